// What SGLang's `python -m sglang.bench_one_batch` (formerly bench_latency) prints and appends to
// its --result-filename, character for character: the prefill's latency and token throughput,
// the first five decode steps, the median decode step (from the second output token on) and
// the total, each formatted as its f-strings format them, and the result as one json.dumps
// line with its keys in its order.
#ifndef INFERGRID_SIM_APP_BENCH_ONE_BATCH_RESULT_H_
#define INFERGRID_SIM_APP_BENCH_ONE_BATCH_RESULT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/app/bench/python_json.h"

namespace infergrid::bench {

struct OneBatchResult {
  std::string run_name = "default";
  int64_t batch_size = 1;
  int64_t input_len = 1024;
  int64_t output_len = 16;
  double prefill_latency = 0;  // seconds: the whole batch's prefill and first sample
  std::vector<double> decode_latencies;  // seconds: one per decode step (output_len - 1 of them)
};

// The lines latency_test_run_once prints for one (batch, input, output) point.
std::string OneBatchResultText(const OneBatchResult& result);
// Its measurement_results: median_decode_* only when output_len > 1, as the script records them.
PyJson OneBatchResultJson(const OneBatchResult& result);

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_ONE_BATCH_RESULT_H_
