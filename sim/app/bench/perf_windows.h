// NVIDIA's genai-perf as it measures a served model (genai-perf passes its settings to
// perf_analyzer, whose InferenceProfiler decides what is measured): load at a concurrency
// (closed loop) or a request rate, the warm-up requests first and unmeasured, then measurement
// windows of --measurement-interval back to back from the end of the warm-up. A window holds the
// requests that end inside it. The measurement is stable when the last three windows all have
// requests and their throughputs and their mean latencies are each within
// --stability-percentage of one another (max / min <= 1 + p / 100); those three windows are
// the result. At most --max-trials windows; none stable is an error, as perf_analyzer's.
// With --request-count the first that many requests after the warm-up are one window, with no
// stability check. genai-perf's metrics over the measured requests
// (llm_profile_data_parser.py): TTFT, ITL = (latency - TTFT) / (output tokens - 1) per
// request, request latency, output and input sequence lengths (avg, min, max, p99, p90, p75,
// ...), output token throughput = their output tokens / (last response - first request sent),
// request throughput = their count / the same span.
#ifndef INFERGRID_SIM_APP_BENCH_PERF_WINDOWS_H_
#define INFERGRID_SIM_APP_BENCH_PERF_WINDOWS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/app/bench/numpy_stats.h"
#include "sim/app/bench/python_json.h"
#include "sim/app/bench/serve_metrics.h"

namespace infergrid::bench {

// The most requests one genai-perf run simulates: its warm-up and measured requests, 40 per
// concurrent request by default, and the doublings of a run too short to measure. A million
// requests take about a minute and a gigabyte.
inline constexpr int64_t kMaxGenaiPerfRequests = 1'000'000;
// Requests a time-windowed run starts with per concurrent request (at least 200 in all).
inline constexpr int64_t kGenaiPerfRequestsPerSlot = 40;
// genai-perf's --warmup-request-count: far above the few dozen it is used with.
inline constexpr int64_t kMaxGenaiPerfWarmup = 100'000;

struct PerfWindowOptions {
  double interval_s = 10;  // --measurement-interval (ms there), genai-perf's 10,000
  double stability_percent = 999;  // genai-perf passes 999: the first three windows
  int max_trials = 10;
  int64_t warmup_requests = 0;
  int64_t request_count = 0;  // > 0: one window of that many requests
};

struct PerfMeasurement {
  bool stable = false;
  double begin_s = 0, end_s = 0;  // the measured span (windows or requests)
  int windows = 0;  // windows looked at
  std::vector<size_t> measured;  // indices of the measured requests
};

// What the measurement needs of a run: `outcomes` in send order; the load is steady until
// `last_send_s` (the last request sent; after it fewer remain in flight). NotFound when the run
// ends before the measurement could: run more requests. FailedPrecondition: not stable within
// max_trials windows.
absl::StatusOr<PerfMeasurement> MeasureWindows(const std::vector<RequestOutcome>& outcomes, double last_send_s,
                                               const PerfWindowOptions& options);

using PerfStat = NumpySummary;  // percentiles 99, 95, 90, 75, 50, 25

struct GenaiPerfMetrics {
  PerfStat ttft_ms, itl_ms, request_latency_ms, output_sequence_length, input_sequence_length;
  double output_token_throughput = 0;  // per second
  double request_throughput = 0;
  int64_t requests = 0;
};

GenaiPerfMetrics ComputeGenaiPerfMetrics(const std::vector<RequestOutcome>& outcomes, const PerfMeasurement& m);

// genai-perf's console table ("NVIDIA GenAI-Perf | LLM Metrics") as plain text.
std::string GenaiPerfResultText(const GenaiPerfMetrics& metrics, const PerfMeasurement& m);

// profile_export_genai_perf.json: {"time_to_first_token": {"unit": "ms", "avg": ..., "p99": ...}, ...}.
PyJson GenaiPerfJson(const GenaiPerfMetrics& metrics);

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_PERF_WINDOWS_H_
