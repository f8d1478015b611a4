// Opens a simulation's requests: the trace with its rescaling (first N, time scale, mean rate),
// or the synthetic workload; a length table without times takes the synthetic arrival process.
// `seed` seeds every draw (synthetic lengths and arrivals), so one run's seed decides its
// workload. Every source is bounded: an arrival past what a double holds is an error naming
// the setting that made it (--rate, --trace with --time-scale).
#ifndef INFERGRID_SIM_CORE_SIMULATOR_WORKLOAD_SOURCE_H_
#define INFERGRID_SIM_CORE_SIMULATOR_WORKLOAD_SOURCE_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "sim/core/simulator/workload_settings.h"
#include "traces/request.h"
#include "traces/trace_reader.h"

namespace infergrid {

// `stats`, for a trace, receives what reading it found (rows, warnings); may be null.
absl::StatusOr<std::unique_ptr<RequestSource>> OpenWorkload(const WorkloadSettings& workload, uint64_t seed,
                                                            TraceReadStats* stats);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SIMULATOR_WORKLOAD_SOURCE_H_
