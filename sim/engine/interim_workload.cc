#include "sim/engine/interim_workload.h"

#include <random>

namespace infergrid {
namespace {

class InterimSource final : public RequestSource {
 public:
  explicit InterimSource(const SyntheticWorkloadSpec& spec)
      : spec_(spec),
        rng_(spec.seed),
        exponential_(spec.rate_per_s),
        gamma_(1.0 / (spec.cv * spec.cv), spec.cv * spec.cv / spec.rate_per_s) {}

  absl::StatusOr<bool> Next(Request* request) override {
    if (next_id_ >= spec_.num_requests) return false;
    *request = Request{};
    request->id = next_id_;
    if (next_id_ > 0) time_ += spec_.arrival == "gamma" ? gamma_(rng_) : exponential_(rng_);
    request->arrival_s = time_;
    request->input_tokens = kInterimPromptTokens;
    request->output_tokens = kInterimOutputTokens;
    ++next_id_;
    return true;
  }

 private:
  SyntheticWorkloadSpec spec_;
  std::mt19937_64 rng_;
  std::exponential_distribution<double> exponential_;
  std::gamma_distribution<double> gamma_;
  int64_t next_id_ = 0;
  double time_ = 0;
};

}  // namespace

std::unique_ptr<RequestSource> MakeInterimSyntheticWorkload(const SyntheticWorkloadSpec& spec) {
  return std::make_unique<InterimSource>(spec);
}

}  // namespace infergrid
