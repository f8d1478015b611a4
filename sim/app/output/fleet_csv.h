// fleet.csv: the fleet over time, one row per fixed window of simulated time from the first
// arrival (the last window ends at the run's simulated duration, so it may be shorter). Columns:
//   start_s, end_s, arrivals (requests that arrived in the window, rejected ones included),
//   completions (requests whose last token came in the window), in_flight (requests arrived and
//   not finished, averaged over the window), busy_replicas (iteration time of every replica in
//   the window / its length), utilization (busy_replicas / replicas), kv_fraction_mean (KV use
//   after scheduling, averaged over the window's iteration time; empty without an iteration),
//   kv_fraction_max, ttft_p99_s (of the finished requests that arrived in the window; empty
//   when none).
// The sink takes the iterations as the run produces them (busy time and KV use, added to the
// windows an iteration overlaps); Write() adds the request log's figures at the end. Nothing is
// kept per iteration or per request beyond the log itself.
#ifndef INFERGRID_SIM_APP_OUTPUT_FLEET_CSV_H_
#define INFERGRID_SIM_APP_OUTPUT_FLEET_CSV_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "sim/core/metrics/iteration_record.h"
#include "sim/core/metrics/request_log.h"

namespace infergrid {

class FleetSeries final : public IterationSink {
 public:
  // `window_s` > 0; `replicas`: the serving ranks (EngineConfig::ranks()).
  FleetSeries(double window_s, int replicas) : window_s_(window_s), replicas_(replicas) {}
  void OnIteration(const IterationRecord& r) override;

  // Writes the windows from 0 to `duration_s` (at least one) to `path`.
  absl::Status Write(const RequestLog& log, double duration_s, const std::string& path) const;

 private:
  struct IterationWindow {
    double busy_s = 0;  // iteration time in the window, summed over replicas
    double kv_weighted_s = 0;  // kv fraction x iteration time in the window
    double kv_max = 0;
  };
  size_t WindowOf(double t) const;

  double window_s_;
  int replicas_;
  std::vector<IterationWindow> windows_;  // grown as iterations reach later windows
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_FLEET_CSV_H_
