// NVIDIA aiperf's metrics over a simulated run (`aiperf profile`, github.com/ai-dynamo/aiperf
// at db4f6397, 2025-10-10: aiperf/metrics/types/*.py): the warm-up requests first and unmeasured, then
// --request-count measured requests. Per measured request: request latency, TTFT, time to second
// token, inter-token latency = (latency - TTFT) / (output tokens - 1), its inverse as output
// token throughput per user, output and input sequence lengths; each as avg, min, max, std
// (np.std, population) and np.percentile's p1 ... p99 (metric_dicts.py). Over the run: request
// count, benchmark duration = last response - first request sent, output token throughput and
// request throughput = tokens (requests) / that duration. Times in ms, the duration in sec, as
// aiperf's display units. Failed requests are not in the metrics (aiperf counts them apart).
#ifndef INFERGRID_SIM_APP_BENCH_AIPERF_METRICS_H_
#define INFERGRID_SIM_APP_BENCH_AIPERF_METRICS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/app/bench/numpy_stats.h"
#include "sim/app/bench/python_json.h"
#include "sim/app/bench/serve_metrics.h"

namespace infergrid::bench {

// aiperf's own defaults (aiperf/common/config/config_defaults.py: LoadGeneratorDefaults,
// InputDefaults, OutputDefaults).
inline constexpr int64_t kAiperfDefaultRequestCount = 10;
inline constexpr int64_t kAiperfDefaultDatasetEntries = 100;
inline constexpr const char* kAiperfDefaultArtifactDir = "artifacts";
// The most requests (warm-up and measured) one aiperf run simulates.
inline constexpr int64_t kMaxAiperfRequests = 1'000'000;

struct AiperfRunOptions {
  int64_t request_count = kAiperfDefaultRequestCount;  // --request-count
  int64_t warmup_requests = 0;  // --warmup-request-count
  int64_t dataset_entries = kAiperfDefaultDatasetEntries;  // --num-dataset-entries: prompts, reused in turn
  bool poisson = true;  // --request-rate-mode (aiperf's default poisson)
  std::string artifact_dir;  // where the exports go (resolved)
};

// One metric: a value per record (the summary's percentiles 1, 5, 10, 25, 50, 75, 90, 95, 99),
// or one value (avg) for the run.
struct AiperfStat : NumpySummary {
  std::string tag, header, unit;
  bool per_record = true;
  bool integral = false;  // token counts: min and max are integers, as NumPy's on an int array
};

struct AiperfMetrics {
  std::vector<AiperfStat> stats;  // in JsonExportData's field order
  int64_t requests = 0;
  int64_t failed = 0;
  const AiperfStat* Find(const std::string& tag) const;
};

// `outcomes` in send order; the first `warmup` are not measured.
AiperfMetrics ComputeAiperfMetrics(const std::vector<RequestOutcome>& outcomes, int64_t warmup);

// The console table ("NVIDIA AIPerf | LLM Metrics") as plain text.
std::string AiperfResultText(const AiperfMetrics& metrics);

// profile_export_aiperf.json: {"request_throughput": {"unit": "requests/sec", "avg": ...},
// "request_latency": {"unit": "ms", "avg": ..., "p1": ..., ..., "min": ..., "max": ..., "std": ...},
// ..., "was_cancelled": false} (export_models.py's JsonExportData, indent 2).
PyJson AiperfJson(const AiperfMetrics& metrics);

// profile_export_aiperf.csv (csv_exporter.py): the per-request metrics' rows ("Metric", avg,
// min, max, p1 ... p99, std; tags sorted), a blank row, then the run's values ("Metric", "Value").
std::string AiperfCsv(const AiperfMetrics& metrics);

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_AIPERF_METRICS_H_
