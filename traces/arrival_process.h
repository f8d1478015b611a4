// Arrival processes for synthetic workloads. Each yields non-decreasing arrival times in seconds
// from its own origin and draws only from its own RandomStream.
//   Poisson      exponential gaps at a constant rate; the first arrival is at 0.
//   Constant     evenly spaced, one every 1 / rate seconds from 0 (vLLM's infinite burstiness).
//   Gamma        gamma gaps with a given mean rate and coefficient of variation (burstiness:
//                cv 1 is Poisson, > 1 burstier, < 1 more regular); the first arrival at 0.
//   Piecewise    a non-homogeneous Poisson process whose rate is constant on each segment of a
//                schedule that repeats (a diurnal cycle); times from the schedule's start.
//   Replay       the inter-arrival gaps of a real trace, scaled so that its mean rate becomes
//                the target; streamed (two passes over the file, constant memory), and when the
//                trace runs out it starts over one mean gap after its last arrival.
#ifndef INFERGRID_TRACES_ARRIVAL_PROCESS_H_
#define INFERGRID_TRACES_ARRIVAL_PROCESS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "traces/trace_reader.h"

namespace infergrid {

class ArrivalProcess {
 public:
  virtual ~ArrivalProcess() = default;
  virtual absl::StatusOr<double> Next() = 0;
};

absl::StatusOr<std::unique_ptr<ArrivalProcess>> MakePoissonArrivals(double rate_per_s, uint64_t seed);
absl::StatusOr<std::unique_ptr<ArrivalProcess>> MakeConstantArrivals(double rate_per_s);
absl::StatusOr<std::unique_ptr<ArrivalProcess>> MakeGammaArrivals(double rate_per_s, double cv, uint64_t seed);

struct RateSegment {
  double duration_s = 0;
  double rate_per_s = 0;  // >= 0; at least one segment > 0
};
absl::StatusOr<std::unique_ptr<ArrivalProcess>> MakePiecewiseArrivals(std::vector<RateSegment> schedule, uint64_t seed);
// "DURATION:RATE,DURATION:RATE,..." with every rate multiplied so that the schedule's mean rate
// is `mean_rate_per_s` (the rates give the shape, e.g. "21600:0.3,21600:1,21600:1.7,21600:1");
// a mean of 0 keeps the rates as written (requests per second).
absl::StatusOr<std::vector<RateSegment>> ParseRateSchedule(absl::string_view text, double mean_rate_per_s);
// The time-weighted mean rate of a schedule.
double MeanRate(const std::vector<RateSegment>& schedule);

// rate_per_s <= 0 keeps the trace's own rate.
absl::StatusOr<std::unique_ptr<ArrivalProcess>> MakeReplayArrivals(const std::string& path, const TraceOptions& options,
                                                                   double rate_per_s);

}  // namespace infergrid

#endif  // INFERGRID_TRACES_ARRIVAL_PROCESS_H_
