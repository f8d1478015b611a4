// Speculative decoding as the serving model sees it: how many draft tokens each decode step
// proposes (k), and how many of them the target accepts. Acceptance follows the standard model
// (Leviathan et al. 2023): each draft token is accepted independently with the request's rate
// a, the step keeps the leading accepted run and adds one token of the target's own (the
// correction, or the bonus token when all k are accepted), so a step yields 1 + j tokens,
// j in [0, k], with E[1 + j] = (1 - a^(k+1)) / (1 - a). The rate is one constant for every
// request, or drawn per request from Beta(alpha, beta). Every draw comes from the request's own
// stream, seeded from the simulation seed and the request's index, so a run is reproducible and
// two configurations compared on the same seed see the same acceptances per request.
// What the steps cost is sim/core/cost/speculative_cost_model.h's business.
#ifndef INFERGRID_SIM_CORE_SERVING_SPECULATION_H_
#define INFERGRID_SIM_CORE_SERVING_SPECULATION_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace infergrid {

// The per-token acceptance rate: a constant, or Beta(alpha, beta) per request.
struct AcceptanceModel {
  bool beta = false;
  double rate = 0.7;  // constant: every request's rate
  double alpha = 7;  // beta: the distribution's parameters (mean alpha / (alpha + beta))
  double beta_b = 3;
  double mean() const { return beta ? alpha / (alpha + beta_b) : rate; }
};

// "0.8" (a constant rate in [0, 1]) or "beta:ALPHA,BETA" (both > 0). Errors name `flag`.
absl::StatusOr<AcceptanceModel> ParseAcceptanceModel(absl::string_view flag, absl::string_view text);

struct SpeculationPolicy {
  int num_speculative_tokens = 0;  // k; 0: no speculation
  AcceptanceModel acceptance;
  uint64_t seed = 0;  // the simulation's seed
  // What summary.json echoes: the proposer and what it takes from the GPU.
  std::string method;  // draft_model, eagle, mtp or ngram
  std::string draft_model;  // the draft's name (draft_model)
  std::string acceptance_text;  // the flag's value
  double draft_weight_bytes = 0;  // per GPU
  int64_t draft_kv_bytes_per_token = 0;  // per GPU
  bool enabled() const { return num_speculative_tokens > 0; }
};

// A request's random stream (splitmix64): a few bytes of state carried by its Sequence.
class SpeculationStream {
 public:
  // The stream of request `index` in a run seeded with `seed`.
  static uint64_t Seed(uint64_t seed, int64_t index);
  // A uniform draw in [0, 1) advancing `state`.
  static double Uniform(uint64_t& state);
  // The request's acceptance rate under `model` (one draw per request for Beta).
  static double DrawRate(const AcceptanceModel& model, uint64_t& state);
  // Draft tokens accepted in one step: the leading run of k independent draws below `rate`
  // (j in [0, k]); the step yields j + 1 tokens.
  static int AcceptedDrafts(double rate, int k, uint64_t& state);
};

// (1 - a^(k+1)) / (1 - a): the expected tokens per step (k + 1 at a = 1).
double ExpectedTokensPerStep(double rate, int k);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SERVING_SPECULATION_H_
