// What `vllm bench latency` and `vllm bench throughput` print and write with --output-json,
// character for character: latency's average, standard deviation and percentiles of the
// per-iteration latencies (Python's repr of each number) and its indented JSON; throughput's
// one line of requests/s, total and output tokens/s with its token totals, and its JSON.
#ifndef INFERGRID_SIM_APP_BENCH_OFFLINE_RESULTS_H_
#define INFERGRID_SIM_APP_BENCH_OFFLINE_RESULTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/app/bench/python_json.h"

namespace infergrid::bench {

struct LatencyResult {
  std::vector<double> latencies;  // seconds, one per timed iteration
};
std::string LatencyResultText(const LatencyResult& result);
PyJson LatencyResultJson(const LatencyResult& result);

struct ThroughputResult {
  double elapsed_time = 0;  // seconds: all requests submitted at once to the last finished
  int64_t num_requests = 0;
  int64_t total_prompt_tokens = 0;
  int64_t total_output_tokens = 0;
};
std::string ThroughputResultText(const ThroughputResult& result);
PyJson ThroughputResultJson(const ThroughputResult& result);

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_OFFLINE_RESULTS_H_
