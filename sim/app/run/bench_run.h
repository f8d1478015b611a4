// One benchmark client run against the simulated engine: the requests go out at their send
// times (all at once, a rate schedule, or a trace's own times), under the client's
// concurrency limit when the resolved simulation has one (a request then waits for a free slot, and its
// latencies count from when it is sent), through the engine it resolved; each comes
// back as the client saw it (TTFT, every streamed chunk's gap, E2E latency). A request the
// engine refuses for its length (prompt + max_tokens > max_model_len, vLLM's 400 error) fails
// at once without entering the engine. Runs the simulation in a child process (one SimGrid
// engine per process), so a command can run several.
#ifndef INFERGRID_SIM_APP_RUN_BENCH_RUN_H_
#define INFERGRID_SIM_APP_RUN_BENCH_RUN_H_

#include <vector>

#include "absl/status/statusor.h"
#include "sim/app/bench/bench_dataset.h"
#include "sim/app/bench/bench_outcomes.pb.h"
#include "sim/app/run/resolved_simulation.h"

namespace infergrid {

// `send_times[i]` is when request i is released (seconds from the start, non-decreasing);
// `copies` sequences are generated per prompt (--n), each its own request to the engine.
absl::StatusOr<bench::ClientRun> SimulateClientRun(const ResolvedSimulation& resolved,
                                                   const std::vector<bench::BenchRequest>& requests,
                                                   const std::vector<double>& send_times, int64_t copies);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_RUN_BENCH_RUN_H_
