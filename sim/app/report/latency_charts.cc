#include "sim/app/report/latency_charts.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sim/app/format/units.h"
#include "sim/app/report/time_bins.h"
#include "sim/app/report/vega_lite.h"

namespace infergrid::report {
namespace {

using vl::Json;

// A CDF draws every sample up to kCdfEveryPoint samples; above, the quantiles at every
// 1/kCdfQuantiles of the ranks plus the kCdfTailPoints largest values, so the tail keeps its
// shape and the page stays small.
constexpr size_t kCdfEveryPoint = 2000;
constexpr int kCdfQuantiles = 1000;
constexpr size_t kCdfTailPoints = 10;
// The latency-over-arrival chart draws each request up to this many; above, time bins.
constexpr size_t kArrivalEveryPoint = 3000;

struct Metric {
  const char* name;
  const char* samples_of;  // what one sample is
  const LatencySummary& (SimulationSummary::*summary)() const;
  std::vector<double> RequestSamples::*samples;  // null: none in the files
  double (SimulationConfig::*slo)() const;  // null: no SLO on this metric
  const char* meaning;
};

const std::vector<Metric>& Metrics() {
  static const std::vector<Metric>* metrics = new std::vector<Metric>{
      {"TTFT", "requests", &SimulationSummary::ttft, &RequestSamples::ttft_s, &SimulationConfig::slo_ttft_s,
       "Time to first token (arrival to the first output token) of each finished request. Look for: "
       "a long right tail (requests queued behind prefills, or waiting for KV blocks) and how far p99 "
       "sits from p50."},
      {"TPOT", "requests", &SimulationSummary::tpot, &RequestSamples::tpot_s, &SimulationConfig::slo_tpot_s,
       "Time per output token after the first, per request with at least two output tokens. Look for: a "
       "wide spread, which means decode steps slowed by large batches or by prefill chunks sharing "
       "their iterations."},
      {"ITL", "token gaps", &SimulationSummary::itl, nullptr, nullptr,
       "Every gap between consecutive tokens of a request. Look for: the p99 against a TPOT target, and a "
       "step in the curve where iterations that carry a prefill stall the decodes sharing them."},
      {"E2E", "requests", &SimulationSummary::e2e, &RequestSamples::e2e_s, nullptr,
       "Arrival to last token of each finished request. Look for: the tail, which mixes long outputs with "
       "queueing; compare it with TTFT to see which dominates."},
  };
  return *metrics;
}

using Points = std::vector<std::pair<double, double>>;  // (latency s, cumulative fraction)

Points EmpiricalCdf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  std::vector<size_t> ranks;
  if (n <= kCdfEveryPoint) {
    for (size_t i = 0; i < n; ++i) ranks.push_back(i);
  } else {
    for (int k = 0; k <= kCdfQuantiles; ++k) {
      ranks.push_back(
          static_cast<size_t>(std::llround(static_cast<double>(k) * static_cast<double>(n - 1) / kCdfQuantiles)));
    }
    for (size_t i = n - kCdfTailPoints; i < n; ++i) ranks.push_back(i);
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  }
  Points points;
  for (size_t r : ranks) points.emplace_back(values[r], static_cast<double>(r + 1) / static_cast<double>(n));
  return points;
}

Points SummaryCdf(const LatencySummary& s) {
  return {{s.p50(), 0.5}, {s.p90(), 0.9}, {s.p95(), 0.95}, {s.p99(), 0.99}, {s.p99_9(), 0.999}, {s.max(), 1.0}};
}

std::string Ms(double seconds) { return absl::StrCat(format::Fixed(seconds * 1e3, seconds < 0.01 ? 2 : 1), " ms"); }

std::string CurveRule(const Metric& m, const RunInput& run) {
  const std::vector<double>* samples = m.samples != nullptr && run.requests ? &((*run.requests).*m.samples) : nullptr;
  if (samples == nullptr) {
    const std::string why =
        m.samples == nullptr ? "the per-gap values are not in the output files" : "the folder has no requests.csv";
    return absl::StrCat(
        "drawn through summary.json's percentiles (p50, p90, p95, p99, p99.9, max), straight "
        "between them, because ",
        why, m.samples == nullptr ? " (the simulator's log histogram puts the percentiles within 0.05%)" : "");
  }
  const std::string n = format::Grouped(static_cast<double>(samples->size()));
  if (samples->size() <= kCdfEveryPoint) return absl::StrCat("every one of its ", n, " ", m.samples_of);
  return absl::StrCat("its ", n, " ", m.samples_of, " drawn through the quantiles at every ", 100.0 / kCdfQuantiles,
                      "% and the ", kCdfTailPoints, " largest values");
}

Chart CdfChart(const Metric& m, const std::vector<const RunInput*>& runs) {
  const bool several = runs.size() > 1;
  Json curve = Json::array(), markers = Json::array(), slos = Json::array(), labels = Json::array();
  std::set<std::string> rules;
  std::set<double> slo_values;
  for (const RunInput* run : runs) {
    labels.push_back(run->label);
    const LatencySummary& summary = (run->summary.*m.summary)();
    const bool has_samples = m.samples != nullptr && run->requests;
    const Points points = has_samples ? EmpiricalCdf((*run->requests).*m.samples) : SummaryCdf(summary);
    for (const auto& [seconds, fraction] : points) {
      if (!(seconds > 0)) continue;  // a log axis has no zero
      curve.push_back({{"run", run->label}, {"ms", vl::Round(seconds * 1e3)}, {"p", vl::Round(fraction)}});
    }
    for (const auto& [name, seconds, fraction] :
         {std::tuple{"p50", summary.p50(), 0.5}, std::tuple{"p90", summary.p90(), 0.9},
          std::tuple{"p99", summary.p99(), 0.99}}) {
      if (!(seconds > 0)) continue;
      markers.push_back({{"run", run->label},
                         {"q", name},
                         {"ms", vl::Round(seconds * 1e3)},
                         {"p", fraction},
                         {"label", absl::StrCat(name, " ", Ms(seconds))}});
    }
    rules.insert(several ? absl::StrCat(run->label, ": ", CurveRule(m, *run)) : CurveRule(m, *run));
    const double slo = m.slo != nullptr ? (run->summary.config().*m.slo)() : 0;
    if (slo > 0 && slo_values.insert(slo).second) {
      slos.push_back({{"ms", vl::Round(slo * 1e3)}, {"label", absl::StrCat("SLO ", Ms(slo))}});
    }
  }

  Json chart = vl::LayeredChart();
  Json x = vl::Log(vl::Number("ms", absl::StrCat(m.name, " (ms, log scale)")));
  Json y = vl::Percent("p", absl::StrCat("share of ", m.samples_of, " at or below"));
  y["scale"] = {{"domain", {0, 1}}};
  Json encoding = {{"x", x}, {"y", y}};
  if (several) encoding["color"] = vl::WithLegend(vl::Category("run", "run", labels));
  chart["layer"].push_back(vl::Layer(curve, {{"type", "line"}, {"strokeWidth", 1.5}}, encoding));
  Json marker_encoding = {{"x", {{"field", "ms"}, {"type", "quantitative"}}},
                          {"y", {{"field", "p"}, {"type", "quantitative"}}},
                          {"tooltip", vl::Tooltip({{"run", "run"}, {"q", "percentile"}, {"ms", "ms"}})}};
  if (several) {
    marker_encoding["color"] = vl::Category("run", "run", labels);
    marker_encoding["shape"] = vl::Category("q", "percentile", {"p50", "p90", "p99"});
  }
  chart["layer"].push_back(vl::Layer(markers, {{"type", "point"}, {"filled", true}, {"size", 40}}, marker_encoding));
  if (!several) {
    Json text_encoding = marker_encoding;
    text_encoding["text"] = {{"field", "label"}};
    chart["layer"].push_back(
        vl::Layer(markers, {{"type", "text"}, {"align", "right"}, {"dx", -6}, {"dy", -6}}, text_encoding));
  }
  if (!slos.empty()) {
    Json slo_x = {{"field", "ms"}, {"type", "quantitative"}};
    chart["layer"].push_back(
        vl::Layer(slos, {{"type", "rule"}, {"strokeDash", {4, 3}}, {"color", vl::kLimitColor}}, {{"x", slo_x}}));
    chart["layer"].push_back(
        vl::Layer(slos, {{"type", "text"}, {"align", "left"}, {"dx", 3}, {"y", 8}, {"color", vl::kLimitColor}},
                  {{"x", slo_x}, {"text", {{"field", "label"}}}}));
  }

  std::string rule_text;
  for (const std::string& rule : rules) absl::StrAppend(&rule_text, rule_text.empty() ? "" : "; ", rule);
  Chart result;
  result.title = absl::StrCat(m.name, " distribution");
  result.caption = absl::StrCat(m.meaning, " The curve is the cumulative share of ", m.samples_of,
                                " at or below each latency: ", rule_text,
                                ". Dots mark p50, p90 and p99 as "
                                "summary.json gives them",
                                slos.empty() ? "" : "; the dashed line is the SLO", ".");
  result.spec = std::move(chart);
  return result;
}

}  // namespace

std::vector<Chart> LatencyCdfCharts(const std::vector<const RunInput*>& runs) {
  std::vector<Chart> charts;
  for (const Metric& m : Metrics()) charts.push_back(CdfChart(m, runs));
  return charts;
}

Chart LatencyOverArrivalChart(const RunInput& run) {
  const RequestSamples& r = *run.requests;
  const size_t n = r.arrival_s.size();
  const std::pair<const char*, const std::vector<double>*> series[] = {{"TTFT", &r.ttft_s}, {"E2E", &r.e2e_s}};
  Json chart = vl::LayeredChart();
  Json x = vl::Number("t", "arrival time (s since the first arrival)");
  x["scale"] = {{"nice", false}, {"zero", true}};
  x["axis"] = {{"tickCount", 10}};
  Json color = vl::WithLegend(vl::Category("metric", "latency", {"TTFT", "E2E"}));
  std::string rule;
  if (n <= kArrivalEveryPoint) {
    Json rows = Json::array();
    for (const auto& [name, values] : series) {
      for (size_t i = 0; i < n; ++i) {
        if ((*values)[i] > 0) {
          rows.push_back({{"t", vl::Round(r.arrival_s[i])}, {"metric", name}, {"ms", vl::Round((*values)[i] * 1e3)}});
        }
      }
    }
    Json encoding = {{"x", x},
                     {"y", vl::Log(vl::Number("ms", "latency (ms, log scale)"))},
                     {"color", color},
                     {"tooltip", vl::Tooltip({{"metric", "latency"}, {"t", "arrival (s)"}, {"ms", "ms"}})}};
    chart["layer"].push_back(
        vl::Layer(rows, {{"type", "point"}, {"filled", true}, {"size", 14}, {"opacity", 0.6}}, encoding));
    rule = "Each point is one request.";
  } else {
    const TimeAxis axis(r.arrival_s.back(), kTimeBins);
    Json rows = Json::array();
    for (const auto& [name, values] : series) {
      std::vector<BinStat> bins(static_cast<size_t>(axis.bins()));
      for (size_t i = 0; i < n; ++i) {
        if ((*values)[i] > 0) bins[static_cast<size_t>(axis.BinOf(r.arrival_s[i]))].Add((*values)[i] * 1e3);
      }
      for (int b = 0; b < axis.bins(); ++b) {
        const BinStat& s = bins[static_cast<size_t>(b)];
        if (s.count == 0) continue;
        rows.push_back({{"t", vl::Round(axis.Middle(b))},
                        {"metric", name},
                        {"min", vl::Round(s.min)},
                        {"mean", vl::Round(s.mean())},
                        {"max", vl::Round(s.max)},
                        {"requests", s.count}});
      }
    }
    Json band = {{"x", x},
                 {"y", vl::Log(vl::Number("min", "latency (ms, log scale)"))},
                 {"y2", {{"field", "max"}}},
                 {"color", color}};
    chart["layer"].push_back(vl::Layer(rows, {{"type", "area"}, {"opacity", 0.25}}, band));
    Json line = {{"x", x},
                 {"y", vl::Log(vl::Number("mean", "latency (ms, log scale)"))},
                 {"color", color},
                 {"tooltip", vl::Tooltip({{"metric", "latency"},
                                          {"t", "arrival (s)"},
                                          {"mean", "mean ms"},
                                          {"max", "max ms"},
                                          {"requests", "requests"}})}};
    chart["layer"].push_back(vl::Layer(rows, {{"type", "line"}, {"strokeWidth", 1.2}}, line));
    rule = BinRule(axis, "the latencies of the requests arriving");
  }
  Chart result;
  result.title = "Latency over arrival time";
  result.caption = absl::StrCat(
      "TTFT and E2E of each finished request against the time it arrived. Look for: latency that climbs "
      "through a burst of arrivals and how long it takes to drain; a climb that never comes back down "
      "means the deployment cannot keep up at this rate. ",
      rule,
      r.not_finished == 1  ? " 1 request that did not finish is left out."
      : r.not_finished > 1 ? absl::StrCat(" ", r.not_finished, " requests that did not finish are left out.")
                           : "");
  result.spec = std::move(chart);
  return result;
}

}  // namespace infergrid::report
