#include "sim/app/report/sweep_section.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/app/report/run_tables.h"
#include "sim/app/report/vega_lite.h"

namespace infergrid::report {
namespace {

using vl::Json;

bool IsNumber(const std::string& value) {
  double unused;
  return absl::SimpleAtod(value, &unused);
}

// `rate` when varied, else the first axis whose every value is a number.
std::string SweptAxis(const SweepInput& sweep) {
  const auto& axes = sweep.manifest.axes();
  if (std::find(axes.begin(), axes.end(), "rate") != axes.end()) return "rate";
  for (int a = 0; a < axes.size(); ++a) {
    bool numeric = !sweep.manifest.runs().empty();
    for (const SweepRun& run : sweep.manifest.runs()) {
      numeric = numeric && a < run.settings_size() && IsNumber(run.settings(a).value());
    }
    if (numeric) return axes[a];
  }
  return "";
}

// The axis title with its unit: the flags whose unit is known, else the flag as set.
std::string AxisTitle(const std::string& flag) {
  static const auto* titles =
      new std::map<std::string, std::string>{{"rate", "request rate (requests/s)"},
                                             {"max_num_seqs", "max_num_seqs (sequences)"},
                                             {"max_num_batched_tokens", "max_num_batched_tokens (tokens)"},
                                             {"tensor_parallel_size", "tensor_parallel_size (GPUs)"},
                                             {"num_replicas", "num_replicas (replicas)"},
                                             {"cv", "cv of inter-arrival times"},
                                             {"gpu_memory_utilization", "gpu_memory_utilization (fraction)"}};
  const auto it = titles->find(flag);
  return it != titles->end() ? it->second : absl::StrCat(flag, " (as set)");
}

}  // namespace

std::vector<SweepPoint> SweepPoints(const SweepInput& sweep, const std::map<std::string, double>& gpu_prices,
                                    std::string* swept_axis) {
  *swept_axis = SweptAxis(sweep);
  std::map<int, SweepPoint> by_point;
  for (const SweepResult& result : sweep.results) {
    if (result.status() != "ok") continue;
    const SweepRun& run = result.run();
    SweepPoint& p = by_point[run.point()];
    if (p.replications_ok == 0) {
      p.point = run.point();
      std::vector<std::string> all, others;
      for (const SweepSetting& s : run.settings()) {
        all.push_back(absl::StrCat(s.flag(), "=", s.value()));
        if (s.flag() == *swept_axis) {
          p.x = std::strtod(s.value().c_str(), nullptr);
        } else {
          others.push_back(all.back());
        }
      }
      p.label = absl::StrJoin(all, ", ");
      p.configuration = others.empty() ? "all points" : absl::StrJoin(others, ", ");
      const SimulationConfig& c = result.summary().config();
      p.gpu = c.gpu();
      p.gpus = std::max(1, c.tensor_parallel_size()) * std::max(1, c.attention_data_parallel()) *
               std::max(1, c.num_replicas());
      const auto price = gpu_prices.find(p.gpu);
      p.usd_per_hour = price != gpu_prices.end() ? p.gpus * price->second : 0;
    }
    const SimulationSummary& s = result.summary();
    ++p.replications_ok;
    p.ttft_p99_s += s.ttft().p99();
    p.tpot_p99_s += s.tpot().p99();
    p.output_tokens_per_s += s.throughput().output_tokens_per_s();
  }
  std::vector<SweepPoint> points;
  for (auto& [index, p] : by_point) {
    p.ttft_p99_s /= p.replications_ok;
    p.tpot_p99_s /= p.replications_ok;
    p.output_tokens_per_s /= p.replications_ok;
    points.push_back(std::move(p));
  }
  for (SweepPoint& p : points) {  // one front per value of the swept axis (one load)
    if (!(p.usd_per_hour > 0)) continue;
    p.on_front = std::none_of(points.begin(), points.end(), [&](const SweepPoint& q) {
      return q.x == p.x && q.usd_per_hour > 0 && q.usd_per_hour <= p.usd_per_hour && q.ttft_p99_s <= p.ttft_p99_s &&
             (q.usd_per_hour < p.usd_per_hour || q.ttft_p99_s < p.ttft_p99_s);
    });
  }
  return points;
}

std::vector<Chart> SweepAxisCharts(const std::vector<SweepPoint>& points, const std::string& swept_axis) {
  if (swept_axis.empty()) return {};
  std::vector<std::string> configurations;  // in design order: the legend's
  for (const SweepPoint& p : points) {
    if (std::find(configurations.begin(), configurations.end(), p.configuration) == configurations.end()) {
      configurations.push_back(p.configuration);
    }
  }
  struct Metric {
    const char* title;
    const char* axis;
    double SweepPoint::*field;
    double scale;
    const char* look_for;
  };
  const Metric metrics[] = {
      {"p99 TTFT", "p99 TTFT (ms, log scale)", &SweepPoint::ttft_p99_s, 1e3,
       "the knee where p99 TTFT leaves its floor (queueing starts: the configuration's capacity), and which "
       "configuration's knee comes at the higher load."},
      {"p99 TPOT", "p99 TPOT (ms, log scale)", &SweepPoint::tpot_p99_s, 1e3,
       "TPOT growing with the batch as load rises, and the configurations whose decode slows most."},
      {"Output throughput", "output tokens/s", &SweepPoint::output_tokens_per_s, 1,
       "throughput following the offered load until it flattens (saturation); the flat level is the "
       "configuration's capacity."}};
  std::vector<Chart> charts;
  for (const Metric& m : metrics) {
    const bool log = m.scale != 1;
    Json rows = Json::array();
    for (const SweepPoint& p : points) {
      const double value = p.*(m.field) * m.scale;
      if (!p.x || (log && !(value > 0))) continue;  // a log axis has no zero
      rows.push_back({{"x", vl::Round(*p.x)},
                      {"value", vl::Round(value)},
                      {"configuration", p.configuration},
                      {"replications", p.replications_ok}});
    }
    Json chart = vl::LayeredChart();
    Json y = vl::Number("value", m.axis);
    chart["layer"].push_back(
        vl::Layer(rows, {{"type", "line"}, {"point", true}},
                  {{"x", vl::Number("x", AxisTitle(swept_axis))},
                   {"y", log ? vl::Log(y) : y},
                   {"color", vl::WithLegend(vl::Category("configuration", "configuration", Json(configurations)))},
                   {"tooltip", vl::Tooltip({{"configuration", "configuration"},
                                            {"x", swept_axis.c_str()},
                                            {"value", m.title},
                                            {"replications", "replications"}})}}));
    charts.push_back({absl::StrCat(m.title, " against ", swept_axis),
                      absl::StrCat(m.title, " of each point against ", swept_axis, ", one line per configuration (",
                                   "a combination of the other axes), each point the mean over its replications. "
                                   "Look for: ",
                                   m.look_for),
                      std::move(chart)});
  }
  return charts;
}

std::optional<Chart> ParetoChart(const std::vector<SweepPoint>& points, const std::string& swept_axis) {
  // The group of a point: its value of the swept axis ("all points" when there is none).
  const auto group = [&](const SweepPoint& p) {
    return p.x ? absl::StrCat(swept_axis, "=", vl::Round(*p.x)) : std::string("all points");
  };
  std::vector<std::string> groups;
  Json rows = Json::array(), front = Json::array();
  std::vector<const SweepPoint*> front_points;
  for (const SweepPoint& p : points) {
    if (!(p.usd_per_hour > 0)) continue;
    if (std::find(groups.begin(), groups.end(), group(p)) == groups.end()) groups.push_back(group(p));
    rows.push_back({{"usd_per_hour", vl::Round(p.usd_per_hour)},
                    {"ttft_p99_ms", vl::Round(p.ttft_p99_s * 1e3)},
                    {"group", group(p)},
                    {"point", p.label},
                    {"gpus", absl::StrCat(p.gpus, " x ", p.gpu)},
                    {"front", p.on_front ? "on the front" : "dominated"}});
    if (p.on_front) front_points.push_back(&p);
  }
  if (rows.empty()) return std::nullopt;
  std::sort(front_points.begin(), front_points.end(), [&](const SweepPoint* a, const SweepPoint* b) {
    return std::tuple(a->usd_per_hour, a->ttft_p99_s, group(*a)) <
           std::tuple(b->usd_per_hour, b->ttft_p99_s, group(*b));
  });
  for (size_t i = 0; i < front_points.size(); ++i) {
    front.push_back({{"order", i},
                     {"group", group(*front_points[i])},
                     {"usd_per_hour", vl::Round(front_points[i]->usd_per_hour)},
                     {"ttft_p99_ms", vl::Round(front_points[i]->ttft_p99_s * 1e3)}});
  }
  Json chart = vl::LayeredChart();
  const Json x = vl::Number("usd_per_hour", "cost (USD per hour: GPUs x price per GPU-hour)");
  const Json y = vl::Log(vl::Number("ttft_p99_ms", "p99 TTFT (ms, log scale)"));
  const Json color = vl::WithLegend(vl::Category("group", "front of", Json(groups)));
  chart["layer"].push_back(
      vl::Layer(front, {{"type", "line"}, {"strokeWidth", 1.5}},
                {{"x", x}, {"y", y}, {"color", color}, {"order", {{"field", "order"}, {"type", "quantitative"}}}}));
  chart["layer"].push_back(
      vl::Layer(rows, {{"type", "point"}, {"filled", true}, {"size", 70}},
                {{"x", x},
                 {"y", y},
                 {"color", color},
                 {"shape", vl::WithLegend(vl::Category("front", "", {"on the front", "dominated"}))},
                 {"tooltip", vl::Tooltip({{"point", "point"},
                                          {"gpus", "GPUs"},
                                          {"usd_per_hour", "USD/hour"},
                                          {"ttft_p99_ms", "p99 TTFT (ms)"},
                                          {"front", "Pareto"}})}}));
  return Chart{
      "Cost against p99 TTFT",
      absl::StrCat("Each point of the sweep (mean over its replications): its cost per hour (tensor_parallel_size x "
                   "num_replicas GPUs, each at the catalog's price per GPU-hour) against its p99 TTFT. Points of "
                   "one ",
                   swept_axis.empty() ? "sweep" : swept_axis,
                   " value serve the same load and are compared "
                   "with each other only: the line of each joins its Pareto front, the points no other point of "
                   "that load beats on both (as cheap or cheaper and as fast or faster, one of them strictly). "
                   "Look for: the cheapest point on the front that meets your TTFT target at your load; a "
                   "dominated point (square) is never the one to deploy."),
      std::move(chart)};
}

void AddSweepSection(const SweepInput& sweep, const std::map<std::string, double>& gpu_prices, HtmlPage* page) {
  const SweepManifest& m = sweep.manifest;
  std::string swept_axis;
  const std::vector<SweepPoint> points = SweepPoints(sweep, gpu_prices, &swept_axis);
  int failed = 0;
  for (const SweepResult& r : sweep.results) failed += r.status() != "ok";
  page->AddHeading(2, absl::StrCat("Sweep: ", sweep.label));
  page->AddHtml(absl::StrCat("<p>From <code>", EscapeHtml(sweep.source),
                             "</code> (sweep.json, results.jsonl): ", m.points(), " points x ", m.replications(),
                             " replication", m.replications() == 1 ? "" : "s", " over ",
                             EscapeHtml(absl::StrJoin(m.axes(), ", ")), "; ", sweep.results.size(), " of ",
                             m.runs_size(), " runs have results, ", failed, " failed.</p>"));
  std::vector<std::vector<std::string>> rows;
  for (const SweepPoint& p : points) {
    rows.push_back({p.label, absl::StrCat(p.replications_ok), TableNumber(p.ttft_p99_s * 1e3),
                    TableNumber(p.tpot_p99_s * 1e3), TableNumber(p.output_tokens_per_s),
                    absl::StrCat(p.gpus, " x ", p.gpu), p.usd_per_hour > 0 ? TableNumber(p.usd_per_hour) : "-",
                    p.on_front ? "yes" : ""});
  }
  page->AddTable({"point", "replications", "p99 TTFT (ms)", "p99 TPOT (ms)", "output tokens/s", "GPUs", "USD/hour",
                  "Pareto front"},
                 rows, "Means over the replications that ran ok. USD/hour: GPUs x the catalog's price per GPU-hour.");
  const std::vector<Chart> axis_charts = SweepAxisCharts(points, swept_axis);
  for (const Chart& chart : axis_charts) page->AddChart(chart);
  if (axis_charts.empty()) {
    page->AddNote(absl::StrCat(sweep.source,
                               " varies no flag whose values are all numbers: the metrics are not "
                               "drawn against an axis (the table above lists them)."));
  }
  if (std::optional<Chart> pareto = ParetoChart(points, swept_axis)) {
    page->AddChart(*pareto);
  } else {
    page->AddNote(absl::StrCat(sweep.source,
                               ": no run's GPU has a price per GPU-hour in the catalog, so cost "
                               "against latency is not drawn."));
  }
}

}  // namespace infergrid::report
