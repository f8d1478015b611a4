#include "sim/app/bench/offline_results.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/app/bench/numpy_stats.h"

namespace infergrid::bench {
namespace {
constexpr int kPercentages[] = {10, 25, 50, 75, 90, 99};
}  // namespace

std::string LatencyResultText(const LatencyResult& r) {
  std::string out;
  absl::StrAppend(&out, "Avg latency: ", PythonFloatRepr(NumpyMean(r.latencies)), " seconds\n");
  absl::StrAppend(&out, "Std latency: ", PythonFloatRepr(NumpyStd(r.latencies)), " seconds\n");
  std::vector<double> sorted = r.latencies;
  std::sort(sorted.begin(), sorted.end());
  for (const int p : kPercentages) {
    absl::StrAppend(&out, p, "% percentile latency: ", PythonFloatRepr(SortedPercentile(sorted, p)), " seconds\n");
  }
  return out;
}

PyJson LatencyResultJson(const LatencyResult& r) {
  PyJson j = PyJson::object();
  j["avg_latency"] = NumpyMean(r.latencies);
  j["std_latency"] = NumpyStd(r.latencies);
  j["latencies"] = PyJson::array();
  for (const double l : r.latencies) j["latencies"].push_back(l);
  std::vector<double> sorted = r.latencies;
  std::sort(sorted.begin(), sorted.end());
  j["percentiles"] = PyJson::object();
  for (const int p : kPercentages) j["percentiles"][absl::StrCat(p)] = SortedPercentile(sorted, p);
  return j;
}

std::string ThroughputResultText(const ThroughputResult& r) {
  const int64_t total = r.total_prompt_tokens + r.total_output_tokens;
  return absl::StrFormat(
      "Throughput: %.2f requests/s, %.2f total tokens/s, %.2f output tokens/s\n"
      "Total num prompt tokens:  %d\n"
      "Total num output tokens:  %d\n",
      static_cast<double>(r.num_requests) / r.elapsed_time, static_cast<double>(total) / r.elapsed_time,
      static_cast<double>(r.total_output_tokens) / r.elapsed_time, r.total_prompt_tokens, r.total_output_tokens);
}

PyJson ThroughputResultJson(const ThroughputResult& r) {
  PyJson j = PyJson::object();
  const int64_t total = r.total_prompt_tokens + r.total_output_tokens;
  j["elapsed_time"] = r.elapsed_time;
  j["num_requests"] = r.num_requests;
  j["total_num_tokens"] = total;
  j["requests_per_second"] = static_cast<double>(r.num_requests) / r.elapsed_time;
  j["tokens_per_second"] = static_cast<double>(total) / r.elapsed_time;
  return j;
}

}  // namespace infergrid::bench
