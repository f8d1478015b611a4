#include "sim/app/report/run_tables.h"

#include <cmath>
#include <cstdio>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/app/format/units.h"

namespace infergrid::report {
namespace {

struct RunMetric {
  std::string name;
  const char* unit;
  std::function<double(const SimulationSummary&)> value;
};

// The metrics compared between runs; latencies in ms.
const std::vector<RunMetric>& RunMetrics() {
  static const std::vector<RunMetric>* metrics = [] {
    auto* list = new std::vector<RunMetric>;
    const std::pair<const char*, const LatencySummary& (SimulationSummary::*)() const> latencies[] = {
        {"TTFT", &SimulationSummary::ttft},
        {"TPOT", &SimulationSummary::tpot},
        {"ITL", &SimulationSummary::itl},
        {"E2E", &SimulationSummary::e2e},
        {"queueing", &SimulationSummary::queueing}};
    for (const auto& [name, latency] : latencies) {
      const std::pair<const char*, double (LatencySummary::*)() const> stats[] = {
          {"mean", &LatencySummary::mean}, {"p50", &LatencySummary::p50}, {"p99", &LatencySummary::p99}};
      for (const auto& [stat, pick] : stats) {
        list->push_back({absl::StrCat(name, " ", stat), "ms",
                         [latency, pick](const SimulationSummary& s) { return ((s.*latency)().*pick)() * 1e3; }});
      }
    }
    list->push_back(
        {"throughput", "req/s", [](const SimulationSummary& s) { return s.throughput().requests_per_s(); }});
    list->push_back(
        {"output tokens", "tok/s", [](const SimulationSummary& s) { return s.throughput().output_tokens_per_s(); }});
    list->push_back({"goodput", "req/s", [](const SimulationSummary& s) { return s.goodput().requests_per_s(); }});
    list->push_back({"meeting the SLO", "%", [](const SimulationSummary& s) { return 100 * s.goodput().fraction(); }});
    list->push_back(
        {"KV peak", "% of blocks", [](const SimulationSummary& s) { return 100 * s.kv().peak_fraction(); }});
    list->push_back(
        {"preemptions", "", [](const SimulationSummary& s) { return static_cast<double>(s.kv().preemptions()); }});
    list->push_back(
        {"mean batch", "sequences", [](const SimulationSummary& s) { return s.iterations().mean_batch_size(); }});
    list->push_back(
        {"engine busy", "%", [](const SimulationSummary& s) { return 100 * s.iterations().utilization(); }});
    return list;
  }();
  return *metrics;
}

std::string Signed(double value) { return value > 0 ? absl::StrCat("+", TableNumber(value)) : TableNumber(value); }

std::string Workload(const SimulationConfig& c) {
  const std::string rate = c.rate() > 0 ? absl::StrCat(TableNumber(c.rate()), " req/s") : "as recorded";
  if (!c.trace().empty()) return absl::StrCat("trace ", c.trace(), " (", rate, ")");
  return absl::StrCat(c.workload(), ", ", c.arrival(), " ", rate);
}

}  // namespace

std::string TableNumber(double value) {
  if (!std::isfinite(value)) return "-";
  const double magnitude = std::fabs(value);
  if (magnitude >= 1000) return format::Grouped(std::round(value));
  if (magnitude == 0) return "0";
  const int decimals = magnitude >= 100 ? 1 : magnitude >= 10 ? 2 : magnitude >= 1 ? 3 : 4;
  return absl::StrFormat("%.*f", decimals, value);
}

void AddRunsTable(const std::vector<const RunInput*>& runs, HtmlPage* page) {
  std::vector<std::vector<std::string>> rows;
  for (const RunInput* run : runs) {
    const SimulationSummary& s = run->summary;
    const SimulationConfig& c = s.config();
    rows.push_back(
        {run->label, c.model(),
         absl::StrCat(c.num_replicas(), " x ",
                      c.attention_data_parallel() > 1 ? absl::StrCat("DP", c.attention_data_parallel(), " x ") : "",
                      c.tensor_parallel_size(), " x ", c.gpu()),
         absl::StrCat(s.memory().plan_engine(), ", ", c.scheduler()), Workload(c),
         absl::StrCat(format::Grouped(s.completed()), " of ", format::Grouped(s.requests())),
         TableNumber(s.simulated_duration_s()), TableNumber(s.throughput().requests_per_s()),
         TableNumber(s.throughput().output_tokens_per_s())});
  }
  page->AddTable({"run", "model", "replicas x TP x GPU", "memory plan, scheduler", "workload", "completed",
                  "simulated s", "req/s", "output tok/s"},
                 rows, "Throughput is per second of simulated time.");
  for (const RunInput* run : runs) {
    page->AddHtml(
        absl::StrCat("<p>", runs.size() > 1 ? absl::StrCat("<strong>", EscapeHtml(run->label), "</strong>: ") : "",
                     "from <code>", EscapeHtml(run->source), "</code>, rerun with</p>\n<pre class=\"command\">",
                     EscapeHtml(run->summary.config().command_line()), "</pre>"));
    for (const std::string& note : run->summary.notes()) page->AddNote(note);
  }
}

void AddLatencyTable(const std::vector<const RunInput*>& runs, HtmlPage* page) {
  std::vector<std::vector<std::string>> rows;
  const std::pair<const char*, const LatencySummary& (SimulationSummary::*)() const> latencies[] = {
      {"TTFT", &SimulationSummary::ttft},
      {"TPOT", &SimulationSummary::tpot},
      {"ITL", &SimulationSummary::itl},
      {"E2E", &SimulationSummary::e2e},
      {"queueing", &SimulationSummary::queueing}};
  for (const auto& [name, latency] : latencies) {
    for (const RunInput* run : runs) {
      const LatencySummary& l = (run->summary.*latency)();
      const double ms = 1e3;
      rows.push_back({runs.size() > 1 ? absl::StrCat(name, " · ", run->label) : name, TableNumber(l.mean() * ms),
                      TableNumber(l.p50() * ms), TableNumber(l.p90() * ms), TableNumber(l.p95() * ms),
                      TableNumber(l.p99() * ms), TableNumber(l.p99_9() * ms), TableNumber(l.max() * ms),
                      format::Grouped(l.count())});
    }
  }
  page->AddTable({"latency (ms)", "mean", "p50", "p90", "p95", "p99", "p99.9", "max", "count"}, rows,
                 "From summary.json: completed requests (ITL: every gap between tokens).");
}

void AddDifferencesTable(const std::vector<const RunInput*>& runs, HtmlPage* page) {
  std::vector<std::string> header = {"metric", "unit"};
  for (const RunInput* run : runs) header.push_back(run->label);
  for (size_t i = 1; i < runs.size(); ++i) header.push_back(absl::StrCat(runs[i]->label, " − ", runs[0]->label));
  std::vector<std::vector<std::string>> rows;
  for (const RunMetric& metric : RunMetrics()) {
    std::vector<std::string> row = {metric.name, metric.unit};
    const double base = metric.value(runs[0]->summary);
    for (const RunInput* run : runs) row.push_back(TableNumber(metric.value(run->summary)));
    for (size_t i = 1; i < runs.size(); ++i) {
      const double difference = metric.value(runs[i]->summary) - base;
      row.push_back(base != 0 ? absl::StrCat(Signed(difference), " (", Signed(100 * difference / base), "%)")
                              : Signed(difference));
    }
    rows.push_back(std::move(row));
  }
  page->AddTable(header, rows,
                 absl::StrCat("Each run against the first (", runs[0]->label,
                              "): one run per configuration, so no confidence interval; `infergrid compare` "
                              "runs replications with common random numbers and gives one."));
}

}  // namespace infergrid::report
