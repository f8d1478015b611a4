// Speculative decoding as a simulation runs it: the proposer kind (vLLM's speculative_config
// "method" names), its model, the tokens proposed per step and the acceptance model. sim/app/cli
// reads it from vLLM's flags (speculative_options.h); docs/speculative.md describes the model.
#ifndef INFERGRID_SIM_CORE_SIMULATOR_SPECULATIVE_SETTINGS_H_
#define INFERGRID_SIM_CORE_SIMULATOR_SPECULATIVE_SETTINGS_H_

#include <optional>
#include <string>

#include "base/enum_names.h"
#include "models/model_spec.pb.h"
#include "sim/core/serving/speculation.h"

namespace infergrid {

// The proposer kinds (vLLM's speculative_config "method" names).
enum class SpeculativeMethod { kDraftModel, kEagle, kMtp, kNgram };
inline constexpr EnumName<SpeculativeMethod> kSpeculativeMethodNames[] = {
    {SpeculativeMethod::kDraftModel, "draft_model"},
    {SpeculativeMethod::kEagle, "eagle"},
    {SpeculativeMethod::kMtp, "mtp"},
    {SpeculativeMethod::kNgram, "ngram"}};

// n-gram lookup's host time per decode sequence per step (an assumption: vLLM's numba
// KMP search over a few thousand token ids takes microseconds).
inline constexpr double kNgramHostSecondsPerSequence = 10e-6;

struct SpeculativeSettings {
  int num_speculative_tokens = 0;  // k; 0: no speculation (every other field unused)
  SpeculativeMethod method = SpeculativeMethod::kDraftModel;
  // The proposer's model: the draft (draft_model), or the target cut to one decoder layer
  // (eagle, mtp); unset for ngram.
  std::optional<ModelSpec> proposer;
  AcceptanceModel acceptance;
  std::string acceptance_text;
  bool enabled() const { return num_speculative_tokens > 0; }
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SIMULATOR_SPECULATIVE_SETTINGS_H_
