#include "sim/app/bench/one_batch_result.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/app/bench/numpy_stats.h"

namespace infergrid::bench {
namespace {

// tot_latency: the prefill plus every decode step, summed in the script's order.
double TotalLatency(const OneBatchResult& r) {
  double total = r.prefill_latency;
  for (const double l : r.decode_latencies) total += l;
  return total;
}

}  // namespace

std::string OneBatchResultText(const OneBatchResult& r) {
  const double batch = static_cast<double>(r.batch_size);
  std::string out = absl::StrFormat("Prefill. latency: %6.5f s, throughput: %9.2f token/s\n", r.prefill_latency,
                                    static_cast<double>(r.input_len) * batch / r.prefill_latency);
  for (size_t i = 0; i < r.decode_latencies.size() && i < 5; ++i) {
    const double l = r.decode_latencies[i];
    absl::StrAppendFormat(&out, "Decode %d. Batch size: %d, latency: %6.5f s, throughput: %9.2f token/s\n", i,
                          r.batch_size, l, batch / l);
  }
  if (r.output_len > 1) {
    const double median = NumpyMedian(r.decode_latencies);
    absl::StrAppendFormat(&out, "Decode.  median latency: %6.5f s, median throughput: %9.2f token/s\n", median,
                          batch / median);
  }
  const double total = TotalLatency(r);
  absl::StrAppendFormat(&out, "Total. latency: %6.3f s, throughput: %9.2f token/s\n", total,
                        static_cast<double>(r.input_len + r.output_len) * batch / total);
  return out;
}

PyJson OneBatchResultJson(const OneBatchResult& r) {
  const double batch = static_cast<double>(r.batch_size);
  PyJson j = PyJson::object();
  j["run_name"] = r.run_name;
  j["batch_size"] = r.batch_size;
  j["input_len"] = r.input_len;
  j["output_len"] = r.output_len;
  j["prefill_latency"] = r.prefill_latency;
  j["prefill_throughput"] = static_cast<double>(r.input_len) * batch / r.prefill_latency;
  if (r.output_len > 1) {
    const double median = NumpyMedian(r.decode_latencies);
    j["median_decode_latency"] = median;
    j["median_decode_throughput"] = batch / median;
  }
  const double total = TotalLatency(r);
  j["total_latency"] = total;
  j["overall_throughput"] = static_cast<double>(r.input_len + r.output_len) * batch / total;
  return j;
}

}  // namespace infergrid::bench
