#include "traces/synthetic_workload.h"

#include "absl/strings/str_cat.h"
#include "traces/arrival_process.h"
#include "traces/length_distribution.h"
#include "traces/random_streams.h"
#include "traces/workload_presets.h"

namespace infergrid {
namespace {

class SyntheticSource final : public RequestSource {
 public:
  SyntheticSource(std::unique_ptr<ArrivalProcess> arrivals, std::unique_ptr<LengthSampler> lengths, int64_t n,
                  uint64_t seed)
      : arrivals_(std::move(arrivals)), lengths_(std::move(lengths)), n_(n), random_(seed, "lengths") {}

  absl::StatusOr<bool> Next(Request* request) override {
    if (next_ >= n_) return false;
    absl::StatusOr<double> t = arrivals_->Next();
    if (!t.ok()) return t.status();
    request->id = next_++;
    request->arrival_s = *t;
    lengths_->Sample(random_, &request->input_tokens, &request->output_tokens);
    request->prefix_block_hashes.clear();
    request->priority = 0;
    request->session.clear();
    request->model.clear();
    request->log_type.clear();
    return true;
  }

 private:
  std::unique_ptr<ArrivalProcess> arrivals_;
  std::unique_ptr<LengthSampler> lengths_;
  int64_t n_;
  RandomStream random_;
  int64_t next_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ArrivalProcess>> MakeSyntheticArrivals(const SyntheticWorkloadSpec& spec) {
  if (spec.arrival == "poisson") return MakePoissonArrivals(spec.rate_per_s, spec.seed);
  if (spec.arrival == "constant") return MakeConstantArrivals(spec.rate_per_s);
  if (spec.arrival == "gamma") return MakeGammaArrivals(spec.rate_per_s, spec.cv, spec.seed);
  if (spec.arrival == "piecewise") {
    if (spec.rate_schedule.empty()) {
      return absl::InvalidArgumentError("piecewise arrivals need a rate schedule (DURATION_S:RATE,...)");
    }
    absl::StatusOr<std::vector<RateSegment>> schedule = ParseRateSchedule(spec.rate_schedule, spec.rate_per_s);
    if (!schedule.ok()) return schedule.status();
    return MakePiecewiseArrivals(*std::move(schedule), spec.seed);
  }
  if (spec.arrival == "replay") {
    if (spec.replay_trace.empty()) return absl::InvalidArgumentError("replay arrivals need a trace file");
    return MakeReplayArrivals(spec.replay_trace, TraceOptions{}, spec.rate_per_s);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("arrival process '", spec.arrival, "': expected poisson, gamma, constant, piecewise or replay"));
}

absl::StatusOr<std::unique_ptr<RequestSource>> MakeSyntheticWorkload(const SyntheticWorkloadSpec& spec) {
  if (spec.num_requests <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("number of requests must be > 0, got ", spec.num_requests));
  }
  absl::StatusOr<std::unique_ptr<ArrivalProcess>> arrivals = MakeSyntheticArrivals(spec);
  if (!arrivals.ok()) return arrivals.status();
  std::unique_ptr<LengthSampler> lengths;
  if (!spec.lengths_trace.empty()) {
    absl::StatusOr<std::unique_ptr<LengthSampler>> empirical = MakeEmpiricalLengths(spec.lengths_trace, TraceOptions{});
    if (!empirical.ok()) return empirical.status();
    lengths = *std::move(empirical);
  } else {
    std::unique_ptr<LengthMarginal> input, output;
    for (auto [text, target] : {std::pair{&spec.input_lengths, &input}, std::pair{&spec.output_lengths, &output}}) {
      if (text->empty()) continue;
      absl::StatusOr<std::unique_ptr<LengthMarginal>> m = ParseLengthMarginal(*text);
      if (!m.ok()) return m.status();
      *target = *std::move(m);
    }
    if (input && output) {
      lengths = MakeIndependentLengths(std::move(input), std::move(output));
    } else {
      absl::StatusOr<WorkloadPreset> preset = ResolveWorkloadPreset(spec.preset);
      if (!preset.ok()) return preset.status();
      absl::StatusOr<std::unique_ptr<LengthSampler>> sampler =
          MakePresetLengths(*preset, std::move(input), std::move(output));
      if (!sampler.ok()) return sampler.status();
      lengths = *std::move(sampler);
    }
  }
  return std::unique_ptr<RequestSource>(
      new SyntheticSource(*std::move(arrivals), std::move(lengths), spec.num_requests, spec.seed));
}

}  // namespace infergrid
