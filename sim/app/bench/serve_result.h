// What `vllm bench serve` prints and saves, from the metrics of one run: the traffic lines and
// the "Serving Benchmark Result" block character for character (labels padded to 40, values
// to 10, two decimals), and the result JSON with vLLM's keys in vLLM's order (--save-result;
// per-request lists only with --save-detailed), written as Python's json.dump writes it.
#ifndef INFERGRID_SIM_APP_BENCH_SERVE_RESULT_H_
#define INFERGRID_SIM_APP_BENCH_SERVE_RESULT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/app/bench/python_json.h"
#include "sim/app/bench/serve_metrics.h"

namespace infergrid::bench {

struct ServeRunInfo {
  double request_rate = 0;  // inf: all at once
  double burstiness = 1;
  std::optional<int64_t> max_concurrency;
  double duration_s = 0;
  std::vector<std::string> percentile_metrics{"ttft", "tpot", "itl"};
  std::vector<double> percentiles{99};
  bool goodput = false;
  // The saved result's header.
  std::string date;  // "%Y%m%d-%H%M%S"
  std::string backend = "openai";
  std::optional<std::string> label;
  std::string model_id;
  std::string tokenizer_id;
  int64_t num_prompts = 0;
  std::vector<std::pair<std::string, std::string>> metadata;  // --metadata KEY=VALUE
};

// "Traffic request rate: inf" ... through the closing line of '='.
std::string ServeResultText(const ServeMetrics& metrics, const ServeRunInfo& info);

// The result dictionary vLLM saves (its `result_json`).
PyJson ServeResultJson(const ServeMetrics& metrics, const ServeRunInfo& info,
                       const std::vector<RequestOutcome>& outcomes, bool save_detailed);

// The metric names --percentile-metrics accepts.
const std::vector<std::string>& PercentileMetricNames();

// Python's str() of a float as the result block prints it ("99", "99.9": P{p}).
std::string PercentileWord(double p);

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_SERVE_RESULT_H_
