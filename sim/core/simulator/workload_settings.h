// Where a simulation's requests come from: a trace (with its rescaling), a synthetic preset,
// lengths drawn from a distribution or resampled from a length table, and the arrival process
// of everything that has no times of its own, a length table given as a trace included.
// sim/app/cli reads it from simulate's workload flags (workload_options.h); OpenWorkload
// (workload_source.h) opens it.
#ifndef INFERGRID_SIM_CORE_SIMULATOR_WORKLOAD_SETTINGS_H_
#define INFERGRID_SIM_CORE_SIMULATOR_WORKLOAD_SETTINGS_H_

#include <cstdint>
#include <string>

#include "traces/synthetic_workload.h"
#include "traces/trace_reader.h"

namespace infergrid {

// Where the requests come from: a trace, or a synthetic workload.
struct WorkloadSettings {
  std::string trace;  // empty: the synthetic workload
  TraceOptions trace_options;
  // The trace is a length table without times (format lengths): its rows keep their order and
  // take their arrivals from the synthetic arrival process (synthetic.arrival, rate, cv, seed).
  bool trace_without_times = false;
  double time_scale = 1;  // trace arrival times multiplied by this
  double trace_rate = 0;  // trace rescaled to this mean rate (0: as recorded)
  int64_t max_requests = 0;  // the trace's first N (0: all)
  SyntheticWorkloadSpec synthetic;  // preset or lengths, arrivals, rate, count and seed
};

// Synthetic defaults when --rate / --max-requests are 0.
inline constexpr double kDefaultSyntheticRate = 5.0;
inline constexpr int64_t kDefaultSyntheticRequests = 1000;
// The most requests --max-requests asks of one run: each holds about 130 bytes until the run
// ends (1.3 GB at the bound) and a million take 5 to 10 s.
inline constexpr int64_t kMaxSimulatedRequests = 10'000'000;

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SIMULATOR_WORKLOAD_SETTINGS_H_
