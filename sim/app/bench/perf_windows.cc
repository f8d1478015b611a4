#include "sim/app/bench/perf_windows.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/app/bench/numpy_stats.h"

namespace infergrid::bench {
namespace {

double EndOf(const RequestOutcome& r) { return r.start_time + r.latency; }

struct Window {
  int64_t count = 0;
  double latency_sum = 0;
  double mean_latency() const { return count > 0 ? latency_sum / static_cast<double>(count) : 0; }
};

bool WithinPercent(double a, double b, double c, double percent) {
  const double hi = std::max({a, b, c});
  const double lo = std::min({a, b, c});
  return lo > 0 && hi / lo <= 1 + percent / 100;
}

PerfStat Stat(std::vector<double> values) { return SummarizeAsNumpy(std::move(values), {99, 95, 90, 75, 50, 25}); }

}  // namespace

absl::StatusOr<PerfMeasurement> MeasureWindows(const std::vector<RequestOutcome>& outcomes, double last_send_s,
                                               const PerfWindowOptions& o) {
  const auto n = static_cast<int64_t>(outcomes.size());
  if (o.warmup_requests + std::max<int64_t>(o.request_count, 1) > n) {
    return absl::NotFoundError("more requests needed");
  }
  // Measurement starts when the warm-up requests have ended.
  double origin = o.warmup_requests > 0 ? 0 : outcomes.front().start_time;
  for (int64_t i = 0; i < o.warmup_requests; ++i) origin = std::max(origin, EndOf(outcomes[static_cast<size_t>(i)]));
  PerfMeasurement m;
  if (o.request_count > 0) {
    m.stable = true;
    m.windows = 1;
    m.begin_s = std::numeric_limits<double>::infinity();
    for (int64_t i = o.warmup_requests; i < o.warmup_requests + o.request_count; ++i) {
      const RequestOutcome& r = outcomes[static_cast<size_t>(i)];
      if (!r.success) continue;
      m.measured.push_back(static_cast<size_t>(i));
      m.begin_s = std::min(m.begin_s, r.start_time);
      m.end_s = std::max(m.end_s, EndOf(r));
    }
    return m;
  }
  std::vector<Window> windows;
  for (int k = 0; k < o.max_trials; ++k) {
    const double begin = origin + k * o.interval_s;
    const double end = begin + o.interval_s;
    if (end > last_send_s) return absl::NotFoundError("more requests needed");
    Window w;
    for (int64_t i = o.warmup_requests; i < n; ++i) {
      const RequestOutcome& r = outcomes[static_cast<size_t>(i)];
      if (r.success && EndOf(r) >= begin && EndOf(r) < end) {
        ++w.count;
        w.latency_sum += r.latency;
      }
    }
    windows.push_back(w);
    m.windows = k + 1;
    if (k < 2) continue;
    const Window& a = windows[static_cast<size_t>(k - 2)];
    const Window& b = windows[static_cast<size_t>(k - 1)];
    const Window& c = windows[static_cast<size_t>(k)];
    if (!WithinPercent(static_cast<double>(a.count), static_cast<double>(b.count), static_cast<double>(c.count),
                       o.stability_percent) ||
        !WithinPercent(a.mean_latency(), b.mean_latency(), c.mean_latency(), o.stability_percent)) {
      continue;
    }
    m.stable = true;
    m.begin_s = origin + (k - 2) * o.interval_s;
    m.end_s = end;
    for (int64_t i = o.warmup_requests; i < n; ++i) {
      const RequestOutcome& r = outcomes[static_cast<size_t>(i)];
      if (r.success && EndOf(r) >= m.begin_s && EndOf(r) < m.end_s) m.measured.push_back(static_cast<size_t>(i));
    }
    return m;
  }
  return absl::FailedPreconditionError(absl::StrCat("genai-perf: no stable measurement in ", o.max_trials,
                                                    " windows of ", o.interval_s * 1000,
                                                    " ms (perf_analyzer's --stability-percentage ", o.stability_percent,
                                                    "): raise --max-trials or --measurement-interval"));
}

GenaiPerfMetrics ComputeGenaiPerfMetrics(const std::vector<RequestOutcome>& outcomes, const PerfMeasurement& m) {
  std::vector<double> ttft, itl, latency, osl, isl;
  double first_start = std::numeric_limits<double>::infinity();
  double last_end = 0;
  double tokens = 0;
  for (const size_t i : m.measured) {
    const RequestOutcome& r = outcomes[i];
    ttft.push_back(r.ttft * 1e3);
    latency.push_back(r.latency * 1e3);
    if (r.output_tokens > 1) itl.push_back((r.latency - r.ttft) / static_cast<double>(r.output_tokens - 1) * 1e3);
    osl.push_back(static_cast<double>(r.output_tokens));
    isl.push_back(static_cast<double>(r.prompt_len));
    first_start = std::min(first_start, r.start_time);
    last_end = std::max(last_end, EndOf(r));
    tokens += static_cast<double>(r.output_tokens);
  }
  GenaiPerfMetrics g;
  g.requests = static_cast<int64_t>(m.measured.size());
  g.ttft_ms = Stat(ttft);
  g.itl_ms = Stat(itl);
  g.request_latency_ms = Stat(latency);
  g.output_sequence_length = Stat(osl);
  g.input_sequence_length = Stat(isl);
  const double span = last_end - first_start;
  if (span > 0) {
    g.output_token_throughput = tokens / span;
    g.request_throughput = static_cast<double>(g.requests) / span;
  }
  return g;
}

std::string GenaiPerfResultText(const GenaiPerfMetrics& g, const PerfMeasurement& m) {
  auto p = [](const PerfStat& s, int which) {
    for (const auto& [q, v] : s.percentiles) {
      if (q == which) return v;
    }
    return 0.0;
  };
  std::string out = absl::StrFormat("%67s\n", "NVIDIA GenAI-Perf | LLM Metrics");
  absl::StrAppend(&out, absl::StrFormat("%34s | %9s | %9s | %9s | %9s | %9s | %9s\n", "Statistic", "avg", "min", "max",
                                        "p99", "p90", "p75"));
  const std::pair<const char*, const PerfStat*> rows[] = {{"Time to first token (ms)", &g.ttft_ms},
                                                          {"Inter token latency (ms)", &g.itl_ms},
                                                          {"Request latency (ms)", &g.request_latency_ms},
                                                          {"Output sequence length", &g.output_sequence_length},
                                                          {"Input sequence length", &g.input_sequence_length}};
  for (const auto& [name, s] : rows) {
    absl::StrAppend(&out, absl::StrFormat("%34s | %9.2f | %9.2f | %9.2f | %9.2f | %9.2f | %9.2f\n", name, s->avg,
                                          s->min, s->max, p(*s, 99), p(*s, 90), p(*s, 75)));
  }
  absl::StrAppend(&out,
                  absl::StrFormat("%34s | %9.2f | %9s | %9s | %9s | %9s | %9s\n", "Output token throughput (per sec)",
                                  g.output_token_throughput, "N/A", "N/A", "N/A", "N/A", "N/A"));
  absl::StrAppend(&out, absl::StrFormat("%34s | %9.2f | %9s | %9s | %9s | %9s | %9s\n", "Request throughput (per sec)",
                                        g.request_throughput, "N/A", "N/A", "N/A", "N/A", "N/A"));
  absl::StrAppend(&out, absl::StrFormat("measured: %d requests ending in %.3f..%.3f s (%s after %d windows)\n",
                                        g.requests, m.begin_s, m.end_s, m.stable ? "stable" : "unstable", m.windows));
  return out;
}

PyJson GenaiPerfJson(const GenaiPerfMetrics& g) {
  auto stat = [](const PerfStat& s, const char* unit) {
    PyJson j = PyJson::object();
    j["unit"] = unit;
    j["avg"] = s.avg;
    for (const auto& [q, v] : s.percentiles) j[absl::StrCat("p", q)] = v;
    j["min"] = s.min;
    j["max"] = s.max;
    j["std"] = s.std;
    return j;
  };
  PyJson j = PyJson::object();
  j["request_throughput"] = PyJson{{"unit", "requests/sec"}, {"avg", g.request_throughput}};
  j["request_latency"] = stat(g.request_latency_ms, "ms");
  j["time_to_first_token"] = stat(g.ttft_ms, "ms");
  j["inter_token_latency"] = stat(g.itl_ms, "ms");
  j["output_token_throughput"] = PyJson{{"unit", "tokens/sec"}, {"avg", g.output_token_throughput}};
  j["output_sequence_length"] = stat(g.output_sequence_length, "tokens");
  j["input_sequence_length"] = stat(g.input_sequence_length, "tokens");
  return j;
}

}  // namespace infergrid::bench
