#include "sim/app/report/comparison_section.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "sim/app/report/run_tables.h"
#include "sim/app/report/vega_lite.h"

namespace infergrid::report {
namespace {

using vl::Json;

// Latency metrics are summary paths in seconds ("ttft.p99"); the page shows them in ms.
bool IsLatency(const std::string& metric) {
  for (const char* prefix : {"ttft.", "tpot.", "itl.", "e2e.", "queueing."}) {
    if (absl::StartsWith(metric, prefix)) return true;
  }
  return false;
}

std::string Unit(const std::string& metric) {
  if (IsLatency(metric)) return "ms";
  if (absl::EndsWith(metric, "_per_s")) return "per s";
  if (absl::EndsWith(metric, "fraction")) return "fraction";
  return "";
}

void AddTable(const Comparison& c, HtmlPage* page) {
  std::vector<std::vector<std::string>> rows;
  for (const MetricDifference& d : c.differences()) {
    const double scale = IsLatency(d.metric()) ? 1e3 : 1;
    const std::string interval = c.replications() > 1 ? absl::StrCat("[", TableNumber(d.ci95_low() * scale), ", ",
                                                                     TableNumber(d.ci95_high() * scale), "]")
                                                      : "-";
    rows.push_back({d.metric(), Unit(d.metric()), TableNumber(d.a_mean() * scale), TableNumber(d.b_mean() * scale),
                    TableNumber(d.difference_mean() * scale), interval,
                    absl::StrCat(TableNumber(100 * d.relative()), "%")});
  }
  page->AddTable({"metric", "unit", "A", "B", "B − A", "95% CI of B − A", "relative"}, rows,
                 c.replications() > 1
                     ? absl::StrCat("Means over ", c.replications(),
                                    " replications; the interval is Student-t over "
                                    "the paired differences (common random numbers: A and B share each seed).")
                     : "One replication: no interval (compare --replications=N gives one).");
}

Chart RelativeChart(const Comparison& c) {
  Json rows = Json::array(), metrics = Json::array();
  for (const MetricDifference& d : c.differences()) {
    if (d.a_mean() == 0) continue;  // no relative difference
    metrics.push_back(d.metric());
    rows.push_back({{"metric", d.metric()},
                    {"relative", vl::Round(d.relative())},
                    {"low", vl::Round(d.ci95_low() / d.a_mean())},
                    {"high", vl::Round(d.ci95_high() / d.a_mean())}});
  }
  Json chart = vl::LayeredChart(vl::kWidth, 24 * static_cast<int>(metrics.size()) + 20);
  Json y = vl::Category("metric", "", metrics);
  chart["layer"].push_back(vl::Layer(
      rows, {{"type", "bar"}, {"height", {{"band", 0.6}}}},
      {{"y", y},
       {"x", vl::Percent("relative", "(B − A) / A")},
       {"color", {{"condition", {{"test", "datum.relative < 0"}, {"value", "#4c78a8"}}}, {"value", "#e45756"}}},
       {"tooltip",
        vl::Tooltip({{"metric", "metric"}, {"relative", "relative"}, {"low", "CI low"}, {"high", "CI high"}})}}));
  if (c.replications() > 1) {
    chart["layer"].push_back(
        vl::Layer(rows, {{"type", "rule"}, {"color", "#222"}},
                  {{"y", y}, {"x", {{"field", "low"}, {"type", "quantitative"}}}, {"x2", {{"field", "high"}}}}));
  }
  chart["layer"].push_back(vl::Layer(Json::array({{{"x", 0}}}), {{"type", "rule"}, {"color", "#888"}},
                                     {{"x", {{"field", "x"}, {"type", "quantitative"}}}}));
  return {"B against A",
          absl::StrCat("Each metric's mean difference B − A relative to A's mean; red: B higher, blue: B lower. ",
                       c.replications() > 1 ? "The black line is the 95% interval; an interval that crosses zero is "
                                              "no evidence of a difference."
                                            : "One replication, so no interval.",
                       " Look for: which latency percentiles move, and whether throughput pays for them."),
          std::move(chart)};
}

Chart PercentileChart(const Comparison& c) {
  Json rows = Json::array();
  const std::pair<const char*, const LatencySummary& (SimulationSummary::*)() const> latencies[] = {
      {"TTFT", &SimulationSummary::ttft},
      {"TPOT", &SimulationSummary::tpot},
      {"ITL", &SimulationSummary::itl},
      {"E2E", &SimulationSummary::e2e}};
  for (const auto& [config, runs] : {std::pair{"A", &c.a_runs()}, std::pair{"B", &c.b_runs()}}) {
    for (int i = 0; i < runs->size(); ++i) {
      const SimulationSummary& run = runs->Get(i);
      for (const auto& [name, latency] : latencies) {
        const LatencySummary& l = (run.*latency)();
        for (const auto& [seconds, p] : {std::pair{l.p50(), 0.5}, std::pair{l.p90(), 0.9}, std::pair{l.p95(), 0.95},
                                         std::pair{l.p99(), 0.99}, std::pair{l.p99_9(), 0.999}}) {
          if (!(seconds > 0)) continue;
          rows.push_back({{"config", config},
                          {"run", absl::StrCat(config, " seed ", run.config().seed())},
                          {"metric", name},
                          {"ms", vl::Round(seconds * 1e3)},
                          {"p", p}});
        }
      }
    }
  }
  Json spec = {
      {"data", {{"values", rows}}},
      {"facet",
       {{"field", "metric"}, {"type", "nominal"}, {"title", nullptr}, {"sort", {"TTFT", "TPOT", "ITL", "E2E"}}}},
      {"columns", 2},
      {"resolve", {{"scale", {{"x", "independent"}}}}},
      {"spec",
       {{"width", 290},
        {"height", 170},
        {"mark", {{"type", "line"}, {"point", true}, {"strokeWidth", 1}}},
        {"encoding",
         {{"x", vl::Log(vl::Number("ms", "latency (ms, log scale)"))},
          {"y", vl::Percent("p", "percentile")},
          {"color", vl::Category("config", "configuration", {"A", "B"})},
          {"detail", {{"field", "run"}, {"type", "nominal"}}},
          {"tooltip", vl::Tooltip({{"run", "run"}, {"p", "percentile"}, {"ms", "ms"}})}}}}}};
  return {
      "Latency percentiles, A and B",
      "p50, p90, p95, p99 and p99.9 of each replication's TTFT, TPOT, ITL and E2E from its summary (comparison.json "
      "holds no per-request data), one line per replication. Look for: B's lines to the left of A's (faster), and "
      "whether the replications of each configuration overlap (the difference is within seed noise).",
      std::move(spec)};
}

}  // namespace

void AddComparisonSection(const ComparisonInput& input, HtmlPage* page) {
  const Comparison& c = input.comparison;
  page->AddHeading(2, absl::StrCat("Comparison: ", input.label));
  page->AddHtml(absl::StrCat("<p>From <code>", EscapeHtml(input.source), "</code> (comparison.json): B − A over ",
                             c.replications(), " replication", c.replications() == 1 ? "" : "s",
                             ".</p>\n<pre class=\"command\">A: ", EscapeHtml(c.a().command_line()),
                             "\nB: ", EscapeHtml(c.b().command_line()), "</pre>"));
  AddTable(c, page);
  page->AddChart(RelativeChart(c));
  page->AddChart(PercentileChart(c));
}

}  // namespace infergrid::report
