// SGLang's serving benchmark client (python -m sglang.bench_serving), as `infergrid bench
// serve --client=sglang` runs it: the random dataset's lengths, the request schedule and the
// printed "Serving Benchmark Result" block.
//   lengths   np.random.seed(--seed, default 1); input ~ randint(max(int(L r), 1), L + 1),
//             then output ~ randint(int(O r), O + 1) for all requests (r: --random-range-ratio,
//             the lower bound's share of the length: r = 0 gives U[1, L]), NumPy's legacy
//             RandomState draw for draw (checked against the token totals SGLang printed,
//             serving_under_load.csv L109-L168)
//   schedule  the first request at once, then each after np.random.exponential(1 / rate) from
//             the same stream, continuing after the lengths (sample_random_requests draws no
//             other NumPy numbers); no rescaling to n / rate (unlike vLLM's client)
//   report    backend, rate, requests, duration, token totals, the four throughputs,
//             Concurrency (the sum of E2E latencies / duration), mean and median E2E, mean,
//             median and P99 TTFT, mean, median, P95, P99 and max ITL
// A request drawn with 0 output tokens is sent for one (the engine generates at least one).
#ifndef INFERGRID_SIM_APP_BENCH_SGLANG_SERVING_H_
#define INFERGRID_SIM_APP_BENCH_SGLANG_SERVING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/app/bench/bench_dataset.h"
#include "sim/app/bench/serve_metrics.h"
#include "sim/app/bench/serve_result.h"

namespace infergrid::bench {

absl::StatusOr<std::vector<BenchRequest>> SampleSglangRandom(const DatasetOptions& options);

// Seconds from the benchmark's start; `options` says which draws came before (the random
// dataset's lengths) on the seeded stream.
std::vector<double> SglangSendTimes(const DatasetOptions& options, int64_t count, double request_rate);

std::string SglangServeResultText(const std::vector<RequestOutcome>& outcomes, const ServeMetrics& metrics,
                                  const ServeRunInfo& info);

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_SGLANG_SERVING_H_
