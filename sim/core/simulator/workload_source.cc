#include "sim/core/simulator/workload_source.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "traces/synthetic_workload.h"
#include "traces/trace_transforms.h"

namespace infergrid {

absl::StatusOr<std::unique_ptr<RequestSource>> OpenWorkload(const WorkloadSettings& w, uint64_t seed,
                                                            TraceReadStats* stats) {
  if (w.trace.empty()) {
    SyntheticWorkloadSpec spec = w.synthetic;
    spec.seed = seed;
    absl::StatusOr<std::unique_ptr<RequestSource>> synthetic = MakeSyntheticWorkload(spec);
    if (!synthetic.ok()) return synthetic.status();
    return BoundArrivals(*std::move(synthetic), absl::StrCat("--rate=", spec.rate_per_s));
  }
  absl::StatusOr<std::unique_ptr<RequestSource>> source = OpenTrace(w.trace, w.trace_options, stats);
  if (!source.ok()) return source.status();
  if (w.max_requests > 0) {
    source = LimitRequests(*std::move(source), w.max_requests);
    if (!source.ok()) return source.status();
  }
  if (w.trace_without_times) {
    SyntheticWorkloadSpec spec = w.synthetic;
    spec.seed = seed;
    absl::StatusOr<std::unique_ptr<ArrivalProcess>> arrivals = MakeSyntheticArrivals(spec);
    if (!arrivals.ok()) return arrivals.status();
    return BoundArrivals(ReplaceArrivals(*std::move(source), *std::move(arrivals)),
                         absl::StrCat("--rate=", spec.rate_per_s));
  }
  if (w.time_scale != 1) {
    source = ScaleTime(*std::move(source), w.time_scale);
    if (!source.ok()) return source.status();
  }
  if (w.trace_rate > 0) source = ScaleToRate(*std::move(source), w.trace_rate);
  if (!source.ok()) return source.status();
  return BoundArrivals(*std::move(source),
                       absl::StrCat("--trace=", w.trace, " with --time-scale=", w.time_scale,
                                    w.trace_rate > 0 ? absl::StrCat(" --rate=", w.trace_rate) : ""));
}

}  // namespace infergrid
