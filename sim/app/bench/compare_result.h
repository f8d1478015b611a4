// `--compare=REAL.json`: a predicted benchmark result held against a real run's saved result,
// metric by metric with the relative error (predicted - measured) / measured. Reads what the
// engines' scripts save: vLLM bench serve --save-result (JSON; JSON lines with
// --append-result), vLLM bench latency/throughput --output-json, SGLang bench_serving's JSONL
// (its e2e_latency and total_throughput are vLLM's e2el and total_token_throughput) and SGLang
// bench_one_batch's result lines. With several documents, the one with the same request rate
// and concurrency (bench_one_batch: batch size and lengths) is used (else the last).
#ifndef INFERGRID_SIM_APP_BENCH_COMPARE_RESULT_H_
#define INFERGRID_SIM_APP_BENCH_COMPARE_RESULT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "sim/app/bench/python_json.h"

namespace infergrid::bench {

// The documents of a saved result: one JSON document, or one per non-empty line. Errors name
// the file and line.
absl::StatusOr<std::vector<nlohmann::json>> ReadSavedResults(const std::string& path);

struct MetricComparison {
  std::string metric;  // vLLM's key ("mean_ttft_ms")
  double predicted = 0;
  std::optional<double> measured;  // unset: the real result does not have it
};

struct Comparison {
  std::string kind;  // "vllm bench serve", "sglang bench_serving", ...
  std::vector<MetricComparison> metrics;
  std::vector<std::string> notes;
};

// Compares `predicted` (this run's result, vLLM's keys) with the matching document of `real`.
// A real result of another kind than the prediction, or a metric that is not a number, is an
// error naming the file.
absl::StatusOr<Comparison> CompareResults(const PyJson& predicted, const std::vector<nlohmann::json>& real,
                                          const std::string& path);

// The comparison table, one line per metric, and the mean absolute error over those measured.
std::string ComparisonText(const Comparison& comparison, const std::string& path);

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_COMPARE_RESULT_H_
