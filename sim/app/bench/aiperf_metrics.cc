#include "sim/app/bench/aiperf_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/app/bench/numpy_stats.h"

namespace infergrid::bench {
namespace {

AiperfStat AiperfNamedStat(const char* tag, const char* header, const char* unit) {
  AiperfStat s;
  s.tag = tag;
  s.header = header;
  s.unit = unit;
  return s;
}

AiperfStat AiperfRecordStat(const char* tag, const char* header, const char* unit, std::vector<double> values,
                            bool integral = false) {
  AiperfStat s = AiperfNamedStat(tag, header, unit);
  s.integral = integral;
  static_cast<NumpySummary&>(s) = SummarizeAsNumpy(std::move(values), {1, 5, 10, 25, 50, 75, 90, 95, 99});
  return s;
}

AiperfStat AiperfRunValue(const char* tag, const char* header, const char* unit, double value) {
  AiperfStat s = AiperfNamedStat(tag, header, unit);
  s.per_record = false;
  s.avg = value;
  return s;
}

// Per-record values, in ms (times) or tokens, of the measured requests.
struct AiperfRecords {
  std::vector<double> latency, ttft, ttst, itl, tps_user, osl, isl;
  double first_start = std::numeric_limits<double>::infinity();
  double last_end = 0;
  double tokens = 0;
};

void AiperfAddRecord(const RequestOutcome& r, AiperfRecords& a) {
  a.latency.push_back(r.latency * 1e3);
  a.ttft.push_back(r.ttft * 1e3);
  if (!r.itl.empty()) a.ttst.push_back(r.itl.front() * 1e3);
  if (r.output_tokens > 1) {
    const double itl_s = (r.latency - r.ttft) / static_cast<double>(r.output_tokens - 1);
    a.itl.push_back(itl_s * 1e3);
    if (itl_s > 0) a.tps_user.push_back(1 / itl_s);
  }
  a.osl.push_back(static_cast<double>(r.output_tokens));
  a.isl.push_back(static_cast<double>(r.prompt_len));
  a.first_start = std::min(a.first_start, r.start_time);
  a.last_end = std::max(a.last_end, r.start_time + r.latency);
  a.tokens += static_cast<double>(r.output_tokens);
}

std::string AiperfNumber(double value, bool integral) {
  return integral ? absl::StrCat(static_cast<int64_t>(std::llround(value))) : absl::StrFormat("%.2f", value);
}

}  // namespace

const AiperfStat* AiperfMetrics::Find(const std::string& tag) const {
  for (const AiperfStat& s : stats) {
    if (s.tag == tag) return &s;
  }
  return nullptr;
}

AiperfMetrics ComputeAiperfMetrics(const std::vector<RequestOutcome>& outcomes, int64_t warmup) {
  AiperfRecords a;
  AiperfMetrics m;
  for (size_t i = static_cast<size_t>(std::max<int64_t>(warmup, 0)); i < outcomes.size(); ++i) {
    if (!outcomes[i].success) {
      ++m.failed;
      continue;
    }
    AiperfAddRecord(outcomes[i], a);
    ++m.requests;
  }
  const double duration = m.requests > 0 ? a.last_end - a.first_start : 0;
  const double per_s = duration > 0 ? 1 / duration : 0;
  m.stats = {
      AiperfRunValue("request_throughput", "Request Throughput", "requests/sec",
                     static_cast<double>(m.requests) * per_s),
      AiperfRecordStat("request_latency", "Request Latency", "ms", a.latency),
      AiperfRunValue("request_count", "Request Count", "requests", static_cast<double>(m.requests)),
      AiperfRecordStat("time_to_first_token", "Time to First Token", "ms", a.ttft),
      AiperfRecordStat("time_to_second_token", "Time to Second Token", "ms", a.ttst),
      AiperfRecordStat("inter_token_latency", "Inter Token Latency", "ms", a.itl),
      AiperfRunValue("output_token_throughput", "Output Token Throughput", "tokens/sec", a.tokens * per_s),
      AiperfRecordStat("output_token_throughput_per_user", "Output Token Throughput Per User", "tokens/sec/user",
                       a.tps_user),
      AiperfRecordStat("output_sequence_length", "Output Sequence Length", "tokens", a.osl, true),
      AiperfRecordStat("input_sequence_length", "Input Sequence Length", "tokens", a.isl, true),
      AiperfRunValue("benchmark_duration", "Benchmark Duration", "sec", duration),
  };
  m.stats[2].integral = true;
  return m;
}

std::string AiperfResultText(const AiperfMetrics& m) {
  auto p = [](const AiperfStat& s, int which) {
    for (const auto& [q, v] : s.percentiles) {
      if (q == which) return v;
    }
    return 0.0;
  };
  std::string out = absl::StrFormat("%76s\n", "NVIDIA AIPerf | LLM Metrics");
  absl::StrAppend(&out, absl::StrFormat("%50s | %9s | %9s | %9s | %9s | %9s | %9s | %9s\n", "Metric", "avg", "min",
                                        "max", "p99", "p90", "p50", "std"));
  for (const AiperfStat& s : m.stats) {
    if (s.tag == "benchmark_duration") continue;  // NO_CONSOLE in aiperf
    const std::string name = s.unit == "requests" ? s.header : absl::StrCat(s.header, " (", s.unit, ")");
    if (!s.per_record) {
      absl::StrAppend(&out, absl::StrFormat("%50s | %9s | %9s | %9s | %9s | %9s | %9s | %9s\n", name,
                                            AiperfNumber(s.avg, s.integral), "N/A", "N/A", "N/A", "N/A", "N/A", "N/A"));
      continue;
    }
    absl::StrAppend(&out, absl::StrFormat("%50s | %9.2f | %9.2f | %9.2f | %9.2f | %9.2f | %9.2f | %9.2f\n", name, s.avg,
                                          s.min, s.max, p(s, 99), p(s, 90), p(s, 50), s.std));
  }
  if (m.failed > 0) absl::StrAppend(&out, absl::StrFormat("failed requests: %d (not in the metrics)\n", m.failed));
  return out;
}

PyJson AiperfJson(const AiperfMetrics& m) {
  PyJson j = PyJson::object();
  for (const AiperfStat& s : m.stats) {
    PyJson stat = PyJson::object();
    stat["unit"] = s.unit;
    if (s.integral && !s.per_record) {
      stat["avg"] = static_cast<int64_t>(std::llround(s.avg));
    } else {
      stat["avg"] = s.avg;
    }
    if (s.per_record) {
      for (const auto& [q, v] : s.percentiles) stat[absl::StrCat("p", q)] = v;
      if (s.integral) {
        stat["min"] = static_cast<int64_t>(std::llround(s.min));
        stat["max"] = static_cast<int64_t>(std::llround(s.max));
      } else {
        stat["min"] = s.min;
        stat["max"] = s.max;
      }
      stat["std"] = s.std;
    }
    j[s.tag] = std::move(stat);
  }
  j["was_cancelled"] = false;
  return j;
}

std::string AiperfCsv(const AiperfMetrics& m) {
  std::map<std::string, const AiperfStat*> records, run;  // sorted by tag, as csv_exporter.py
  for (const AiperfStat& s : m.stats) (s.per_record ? records : run)[s.tag] = &s;
  auto name = [](const AiperfStat& s) {
    return s.unit == "requests" ? s.header : absl::StrCat(s.header, " (", s.unit, ")");
  };
  std::string out = "Metric,avg,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\r\n";
  for (const auto& [tag, s] : records) {
    absl::StrAppend(&out, name(*s), ",", AiperfNumber(s->avg, false), ",", AiperfNumber(s->min, s->integral), ",",
                    AiperfNumber(s->max, s->integral));
    for (const auto& [q, v] : s->percentiles) absl::StrAppend(&out, ",", AiperfNumber(v, false));
    absl::StrAppend(&out, ",", AiperfNumber(s->std, false), "\r\n");
  }
  absl::StrAppend(&out, "\r\nMetric,Value\r\n");
  for (const auto& [tag, s] : run) absl::StrAppend(&out, name(*s), ",", AiperfNumber(s->avg, s->integral), "\r\n");
  return out;
}

}  // namespace infergrid::bench
