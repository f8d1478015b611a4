#include "sim/app/bench/sglang_serving.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/app/bench/numpy_random.h"
#include "sim/app/bench/python_json.h"

namespace infergrid::bench {
namespace {

struct LengthBounds {
  int64_t input_low = 1, input_high = 1, output_low = 0, output_high = 0;
};

LengthBounds Bounds(const DatasetOptions& o) {
  const double r = o.random_range_ratio;
  LengthBounds b;
  b.input_low = std::max<int64_t>(static_cast<int64_t>(static_cast<double>(o.random_input_len) * r), 1);
  b.input_high = o.random_input_len;
  b.output_low = static_cast<int64_t>(static_cast<double>(o.random_output_len) * r);
  b.output_high = o.random_output_len;
  return b;
}

// np.random.randint(low, high + 1) on the legacy stream.
int64_t RandIntInclusive(LegacyRandomState& rng, int64_t low, int64_t high) {
  return low + rng.RandInt(high - low + 1);
}

// "{:<40} {:<10}" and "{:<40} {:<10.2f}", as SGLang prints them.
std::string SglangLine(absl::string_view label, absl::string_view value) {
  return absl::StrFormat("%-40s %-10s\n", label, value);
}
std::string SglangFixed2(double value) { return absl::StrFormat("%.2f", value); }
std::string SglangCentered(absl::string_view text, char fill) {
  const size_t width = 50;
  const size_t left = (width - text.size()) / 2;
  return absl::StrCat(std::string(left, fill), text, std::string(width - text.size() - left, fill), "\n");
}

}  // namespace

absl::StatusOr<std::vector<BenchRequest>> SampleSglangRandom(const DatasetOptions& o) {
  if (!(o.random_range_ratio >= 0 && o.random_range_ratio <= 1)) {
    return absl::InvalidArgumentError("--random-range-ratio must be in [0, 1] (SGLang: the shortest length's share)");
  }
  if (o.random_input_len < 1 || o.random_output_len < 1) {
    return absl::InvalidArgumentError("--random-input-len and --random-output-len must be at least 1");
  }
  const LengthBounds b = Bounds(o);
  LegacyRandomState rng(static_cast<uint32_t>(o.seed));
  std::vector<BenchRequest> requests(static_cast<size_t>(o.num_prompts));
  for (BenchRequest& r : requests) {
    r.prompt_len = static_cast<int32_t>(RandIntInclusive(rng, b.input_low, b.input_high));
    r.server_extra = static_cast<int32_t>(o.tokenizer.special_tokens);
  }
  for (BenchRequest& r : requests) {
    r.output_len = static_cast<int32_t>(RandIntInclusive(rng, b.output_low, b.output_high));
  }
  return requests;
}

std::vector<double> SglangSendTimes(const DatasetOptions& o, int64_t count, double request_rate) {
  std::vector<double> times(static_cast<size_t>(count), 0.0);
  if (count == 0 || std::isinf(request_rate)) return times;
  LegacyRandomState rng(static_cast<uint32_t>(o.seed));
  if (o.name == "random") {  // the lengths were drawn first
    const LengthBounds b = Bounds(o);
    for (int64_t i = 0; i < o.num_prompts; ++i) RandIntInclusive(rng, b.input_low, b.input_high);
    for (int64_t i = 0; i < o.num_prompts; ++i) RandIntInclusive(rng, b.output_low, b.output_high);
  }
  // get_request: yield, then sleep np.random.exponential(1 / rate) before the next.
  for (size_t i = 1; i < times.size(); ++i) times[i] = times[i - 1] + rng.StandardExponential() / request_rate;
  return times;
}

std::string SglangServeResultText(const std::vector<RequestOutcome>& outcomes, const ServeMetrics& m,
                                  const ServeRunInfo& info) {
  std::vector<double> itls;
  double e2e_sum = 0;
  for (const RequestOutcome& r : outcomes) {
    if (!r.success) continue;
    itls.insert(itls.end(), r.itl.begin(), r.itl.end());
    e2e_sum += r.latency;
  }
  const MetricStats itl = ComputeStats(itls, {95, 99, 100});
  const double duration = info.duration_s;
  std::string out = absl::StrCat("\n", SglangCentered(" Serving Benchmark Result ", '='));
  absl::StrAppend(&out, SglangLine("Backend:", info.backend));
  absl::StrAppend(&out, SglangLine("Traffic request rate:",
                                   std::isinf(info.request_rate) ? "inf" : PythonFloatRepr(info.request_rate)));
  absl::StrAppend(&out, SglangLine("Max request concurrency:",
                                   info.max_concurrency ? absl::StrCat(*info.max_concurrency) : "not set"));
  absl::StrAppend(&out, SglangLine("Successful requests:", absl::StrCat(m.completed)));
  absl::StrAppend(&out, SglangLine("Benchmark duration (s):", SglangFixed2(duration)));
  absl::StrAppend(&out, SglangLine("Total input tokens:", absl::StrCat(m.total_input)));
  absl::StrAppend(&out, SglangLine("Total generated tokens:", absl::StrCat(m.total_output)));
  absl::StrAppend(&out, SglangLine("Total generated tokens (retokenized):", absl::StrCat(m.total_output)));
  absl::StrAppend(&out, SglangLine("Request throughput (req/s):", SglangFixed2(m.request_throughput)));
  absl::StrAppend(
      &out, SglangLine("Input token throughput (tok/s):", SglangFixed2(duration > 0 ? m.total_input / duration : 0)));
  absl::StrAppend(&out, SglangLine("Output token throughput (tok/s):", SglangFixed2(m.output_throughput)));
  absl::StrAppend(&out, SglangLine("Total token throughput (tok/s):", SglangFixed2(m.total_token_throughput)));
  absl::StrAppend(&out, SglangLine("Concurrency:", SglangFixed2(duration > 0 ? e2e_sum / duration : 0)));
  absl::StrAppend(&out, SglangCentered("End-to-End Latency", '-'));
  absl::StrAppend(&out, SglangLine("Mean E2E Latency (ms):", SglangFixed2(m.e2el.mean)));
  absl::StrAppend(&out, SglangLine("Median E2E Latency (ms):", SglangFixed2(m.e2el.median)));
  absl::StrAppend(&out, SglangCentered("Time to First Token", '-'));
  absl::StrAppend(&out, SglangLine("Mean TTFT (ms):", SglangFixed2(m.ttft.mean)));
  absl::StrAppend(&out, SglangLine("Median TTFT (ms):", SglangFixed2(m.ttft.median)));
  const MetricStats ttft99 = ComputeStats(
      [&] {
        std::vector<double> v;
        for (const RequestOutcome& r : outcomes) {
          if (r.success) v.push_back(r.ttft);
        }
        return v;
      }(),
      {99});
  absl::StrAppend(
      &out, SglangLine("P99 TTFT (ms):", SglangFixed2(ttft99.percentiles.empty() ? 0 : ttft99.percentiles[0].second)));
  absl::StrAppend(&out, SglangCentered("Inter-Token Latency", '-'));
  absl::StrAppend(&out, SglangLine("Mean ITL (ms):", SglangFixed2(itl.mean)));
  absl::StrAppend(&out, SglangLine("Median ITL (ms):", SglangFixed2(itl.median)));
  for (size_t i = 0; i < itl.percentiles.size(); ++i) {
    const char* label = i == 0 ? "P95 ITL (ms):" : i == 1 ? "P99 ITL (ms):" : "Max ITL (ms):";
    absl::StrAppend(&out, SglangLine(label, SglangFixed2(itl.percentiles[i].second)));
  }
  absl::StrAppend(&out, std::string(50, '='), "\n");
  return out;
}

}  // namespace infergrid::bench
