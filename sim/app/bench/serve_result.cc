#include "sim/app/bench/serve_result.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace infergrid::bench {
namespace {

// "{:<40} {:<10}" and "{:<40} {:<10.2f}".
std::string Line(absl::string_view label, absl::string_view value) {
  return absl::StrFormat("%-40s %-10s\n", label, value);
}
std::string Fixed2(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return absl::StrFormat("%.2f", value);
}
// "{s:{c}^{n}}": centred in 50, the extra fill on the right as Python puts it.
std::string Centered(absl::string_view text, char fill) {
  const size_t width = 50;
  if (text.size() >= width) return absl::StrCat(text, "\n");
  const size_t left = (width - text.size()) / 2;
  const size_t right = width - text.size() - left;
  return absl::StrCat(std::string(left, fill), text, std::string(right, fill), "\n");
}

struct MetricSection {
  const char* attribute;
  const char* name;
  const char* header;
  const MetricStats ServeMetrics::*stats;
};

const MetricSection kSections[] = {
    {"ttft", "TTFT", "Time to First Token", &ServeMetrics::ttft},
    {"tpot", "TPOT", "Time per Output Token (excl. 1st token)", &ServeMetrics::tpot},
    {"itl", "ITL", "Inter-token Latency", &ServeMetrics::itl},
    {"e2el", "E2EL", "End-to-end Latency", &ServeMetrics::e2el},
    {"client_queue_time", "Client Queue Time", "Client-side Queueing", &ServeMetrics::client_queue_time},
    {"e2el_including_client_queue", "E2EL incl. Client Queue", "Queue-inclusive End-to-end Latency",
     &ServeMetrics::e2el_including_client_queue},
};

bool Selected(const ServeRunInfo& info, absl::string_view attribute) {
  for (const std::string& m : info.percentile_metrics) {
    if (m == attribute) return true;
  }
  return false;
}

// The queue sections exist only with a concurrency limit; the queue-inclusive one only when
// requests also arrive at a finite rate.
bool SectionApplies(const ServeRunInfo& info, absl::string_view attribute) {
  if (attribute == "client_queue_time") return info.max_concurrency.has_value();
  if (attribute == "e2el_including_client_queue") {
    return info.max_concurrency.has_value() && !std::isinf(info.request_rate);
  }
  return true;
}

}  // namespace

const std::vector<std::string>& PercentileMetricNames() {
  static const auto* names =
      new std::vector<std::string>{"ttft", "tpot", "itl", "e2el", "client_queue_time", "e2el_including_client_queue"};
  return *names;
}

std::string PercentileWord(double p) {
  if (std::floor(p) == p) return absl::StrCat(static_cast<int64_t>(p));
  return PythonFloatRepr(p);
}

std::string ServeResultText(const ServeMetrics& m, const ServeRunInfo& info) {
  std::string out;
  absl::StrAppend(
      &out, "Traffic request rate: ", std::isinf(info.request_rate) ? "inf" : PythonFloatRepr(info.request_rate), "\n");
  absl::StrAppend(&out, "Burstiness factor: ", PythonFloatRepr(info.burstiness), " (",
                  info.burstiness == 1.0 ? "Poisson process" : "Gamma distribution", ")\n");
  absl::StrAppend(&out, "Maximum request concurrency: ",
                  info.max_concurrency ? absl::StrCat(*info.max_concurrency) : std::string("None"), "\n");
  out += Centered(" Serving Benchmark Result ", '=');
  out += Line("Successful requests:", absl::StrCat(m.completed));
  out += Line("Failed requests:", absl::StrCat(m.failed));
  if (info.max_concurrency) out += Line("Maximum request concurrency:", absl::StrCat(*info.max_concurrency));
  if (!std::isinf(info.request_rate)) out += Line("Request rate configured (RPS):", Fixed2(info.request_rate));
  out += Line("Benchmark duration (s):", Fixed2(info.duration_s));
  out += Line("Total input tokens:", absl::StrCat(m.total_input));
  out += Line("Total generated tokens:", absl::StrCat(m.total_output));
  out += Line("Request throughput (req/s):", Fixed2(m.request_throughput));
  if (info.goodput) out += Line("Request goodput (req/s):", Fixed2(m.request_goodput));
  out += Line("Output token throughput (tok/s):", Fixed2(m.output_throughput));
  out += Line("Peak output token throughput (tok/s):", Fixed2(m.max_output_tokens_per_s));
  out += Line("Peak concurrent requests:", Fixed2(static_cast<double>(m.max_concurrent_requests)));
  out += Line("Total token throughput (tok/s):", Fixed2(m.total_token_throughput));
  for (const MetricSection& s : kSections) {
    if (!Selected(info, s.attribute) || !SectionApplies(info, s.attribute)) continue;
    const MetricStats& stats = m.*(s.stats);
    out += Centered(s.header, '-');
    out += Line(absl::StrCat("Mean ", s.name, " (ms):"), Fixed2(stats.mean));
    out += Line(absl::StrCat("Median ", s.name, " (ms):"), Fixed2(stats.median));
    for (const auto& [p, value] : stats.percentiles) {
      out += Line(absl::StrCat("P", PercentileWord(p), " ", s.name, " (ms):"), Fixed2(value));
    }
  }
  out += std::string(50, '=') + "\n";
  return out;
}

PyJson ServeResultJson(const ServeMetrics& m, const ServeRunInfo& info, const std::vector<RequestOutcome>& outcomes,
                       bool save_detailed) {
  PyJson r = PyJson::object();
  r["date"] = info.date;
  r["endpoint_type"] = info.backend;
  r["backend"] = info.backend;
  r["label"] = info.label ? PyJson(*info.label) : PyJson(nullptr);
  r["model_id"] = info.model_id;
  r["tokenizer_id"] = info.tokenizer_id;
  r["num_prompts"] = info.num_prompts;
  for (const auto& [key, value] : info.metadata) r[key] = value;
  r["request_rate"] = std::isinf(info.request_rate) ? PyJson("inf") : PyJson(info.request_rate);
  r["burstiness"] = info.burstiness;
  r["max_concurrency"] = info.max_concurrency ? PyJson(*info.max_concurrency) : PyJson(nullptr);
  r["duration"] = info.duration_s;
  r["completed"] = m.completed;
  r["failed"] = m.failed;
  r["total_input_tokens"] = m.total_input;
  r["total_output_tokens"] = m.total_output;
  r["request_throughput"] = m.request_throughput;
  r["request_goodput"] = info.goodput ? PyJson(m.request_goodput) : PyJson(nullptr);
  r["output_throughput"] = m.output_throughput;
  r["total_token_throughput"] = m.total_token_throughput;
  PyJson input_lens = PyJson::array(), ttfts = PyJson::array(), itls = PyJson::array(), latencies = PyJson::array(),
         start_times = PyJson::array(), queue_times = PyJson::array(), texts = PyJson::array(),
         errors = PyJson::array();
  for (const RequestOutcome& o : outcomes) {
    input_lens.push_back(o.prompt_len);
    ttfts.push_back(o.ttft);
    PyJson gaps = PyJson::array();
    for (const double gap : o.itl) gaps.push_back(gap);
    itls.push_back(std::move(gaps));
    latencies.push_back(o.latency);
    start_times.push_back(o.start_time);
    queue_times.push_back(o.queue_time);
    texts.push_back("");
    errors.push_back(o.error);
  }
  PyJson output_lens = PyJson::array();
  for (const int64_t n : m.actual_output_lens) output_lens.push_back(n);
  if (save_detailed) {
    r["input_lens"] = std::move(input_lens);
    r["output_lens"] = std::move(output_lens);
    r["ttfts"] = std::move(ttfts);
    r["itls"] = std::move(itls);
  }
  r["latencies"] = std::move(latencies);
  if (save_detailed) r["start_times"] = std::move(start_times);
  r["queue_times"] = std::move(queue_times);
  if (save_detailed) {
    r["generated_texts"] = std::move(texts);
    r["errors"] = std::move(errors);
  }
  r["max_output_tokens_per_s"] = m.max_output_tokens_per_s;
  r["max_concurrent_requests"] = m.max_concurrent_requests;
  r["rtfx"] = 0.0;
  for (const MetricSection& s : kSections) {
    if (!Selected(info, s.attribute) || !SectionApplies(info, s.attribute)) continue;
    const MetricStats& stats = m.*(s.stats);
    r[absl::StrCat("mean_", s.attribute, "_ms")] = stats.mean;
    r[absl::StrCat("median_", s.attribute, "_ms")] = stats.median;
    r[absl::StrCat("std_", s.attribute, "_ms")] = stats.std;
    for (const auto& [p, value] : stats.percentiles)
      r[absl::StrCat("p", PercentileWord(p), "_", s.attribute, "_ms")] = value;
  }
  return r;
}

}  // namespace infergrid::bench
