#include "sim/app/report/plan_section.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/app/plan/plan_assumptions.h"
#include "sim/app/report/run_tables.h"
#include "sim/app/report/vega_lite.h"

namespace infergrid::report {
namespace {

using vl::Json;

bool TargetMode(const PlanResult& plan) { return plan.target_rate() > 0; }

// The SLO's closest term at the chosen point: its mean as a fraction of its limit.
double ClosestSloFraction(const PlanCandidate& c) {
  double closest = 0;
  for (const SloValue& v : c.slo_values()) {
    if (v.limit_s() > 0) closest = std::max(closest, v.mean_s() / v.limit_s());
  }
  return closest;
}

// Colour by GPU profile, in one order on every chart; only the profiles present are listed.
Json ProfileColor(const std::vector<PlanPoint>& points) {
  static const std::pair<const char*, const char*> kColors[] = {
      {"measured", "#4c78a8"}, {"extrapolated", "#f58518"}, {"roofline", "#9d9d9d"}};
  Json domain = Json::array(), range = Json::array();
  for (const auto& [profile, color] : kColors) {
    if (std::any_of(points.begin(), points.end(), [&](const PlanPoint& p) { return p.profile == profile; })) {
      domain.push_back(profile);
      range.push_back(color);
    }
  }
  Json encoding = vl::WithLegend(vl::Category("profile", "GPU profile", domain));
  encoding["scale"]["range"] = range;
  return encoding;
}

// Horizontal bars, one per candidate in rank order.
Chart PlanBars(const std::vector<const PlanPoint*>& points, const std::vector<PlanPoint>& all, double PlanPoint::*field,
               const std::string& axis, std::string title, std::string caption) {
  Json rows = Json::array(), order = Json::array();
  for (const PlanPoint* p : points) {
    rows.push_back({{"candidate", p->label}, {"profile", p->profile}, {"value", vl::Round(p->*field)}});
    order.push_back(p->label);
  }
  Json chart = vl::LayeredChart(vl::kWidth, std::max(120, 28 * static_cast<int>(points.size())));
  chart["layer"].push_back(vl::Layer(
      rows, {{"type", "bar"}},
      {{"y", {{"field", "candidate"}, {"type", "nominal"}, {"title", "candidate"}, {"sort", order}}},
       {"x", vl::Number("value", axis)},
       {"color", ProfileColor(all)},
       {"tooltip", vl::Tooltip({{"candidate", "candidate"}, {"value", axis.c_str()}, {"profile", "GPU profile"}})}}));
  return Chart{std::move(title), std::move(caption), std::move(chart)};
}

}  // namespace

std::vector<PlanPoint> PlanPoints(const PlanResult& plan) {
  const bool target = TargetMode(plan);
  std::vector<PlanPoint> points;
  for (const PlanCandidate& c : plan.candidates()) {
    if (c.status() != "ok") continue;
    PlanPoint p;
    p.label = c.label();
    p.profile = plan::ProfileMark(c);
    p.capacity = target ? c.gpus() : c.rate();
    p.usd_per_hour = c.usd_per_hour();
    p.cost = target ? c.usd_per_hour() : c.usd_per_million_output_tokens();
    p.frontier_x = target ? ClosestSloFraction(c) : c.rate();
    points.push_back(std::move(p));
  }
  // More capacity is better; with a target, less of the SLO used is.
  const double sign = target ? -1 : 1;
  for (PlanPoint& p : points) {
    if (!(p.usd_per_hour > 0)) continue;
    p.on_front = std::none_of(points.begin(), points.end(), [&](const PlanPoint& q) {
      return q.usd_per_hour > 0 && q.usd_per_hour <= p.usd_per_hour && sign * q.frontier_x >= sign * p.frontier_x &&
             (q.usd_per_hour < p.usd_per_hour || sign * q.frontier_x > sign * p.frontier_x);
    });
  }
  return points;
}

namespace {

// Cost per hour against capacity (or SLO use), every priced candidate marked, the front joined.
std::optional<Chart> FrontierChart(const PlanResult& plan, const std::vector<PlanPoint>& points) {
  const bool target = TargetMode(plan);
  Json rows = Json::array(), front = Json::array();
  std::vector<const PlanPoint*> on_front;
  for (const PlanPoint& p : points) {
    if (!(p.usd_per_hour > 0)) continue;
    rows.push_back({{"candidate", p.label},
                    {"profile", p.profile},
                    {"usd_per_hour", vl::Round(p.usd_per_hour)},
                    {"x", vl::Round(p.frontier_x)},
                    {"front", p.on_front ? "on the front" : "dominated"}});
    if (p.on_front) on_front.push_back(&p);
  }
  if (rows.empty()) return std::nullopt;
  std::sort(on_front.begin(), on_front.end(), [](const PlanPoint* a, const PlanPoint* b) {
    return std::tuple(a->usd_per_hour, a->frontier_x) < std::tuple(b->usd_per_hour, b->frontier_x);
  });
  for (size_t i = 0; i < on_front.size(); ++i) {
    front.push_back({{"order", i},
                     {"usd_per_hour", vl::Round(on_front[i]->usd_per_hour)},
                     {"x", vl::Round(on_front[i]->frontier_x)}});
  }
  const Json x = target ? vl::Percent("x", "closest SLO term at the target (share of its limit)")
                        : vl::Number("x", "capacity: largest rate sustained within the SLO (requests/s)");
  const Json y = vl::Number("usd_per_hour", "cost (USD per hour: GPUs x price per GPU-hour)");
  Json chart = vl::LayeredChart();
  chart["layer"].push_back(vl::Layer(front, {{"type", "line"}, {"strokeWidth", 1.5}, {"color", vl::kLimitColor}},
                                     {{"x", x}, {"y", y}, {"order", {{"field", "order"}, {"type", "quantitative"}}}}));
  chart["layer"].push_back(
      vl::Layer(rows, {{"type", "point"}, {"filled", true}, {"size", 80}},
                {{"x", x},
                 {"y", y},
                 {"color", ProfileColor(points)},
                 {"shape", vl::WithLegend(vl::Category("front", "", {"on the front", "dominated"}))},
                 {"tooltip", vl::Tooltip({{"candidate", "candidate"},
                                          {"profile", "GPU profile"},
                                          {"usd_per_hour", "USD/hour"},
                                          {"x", target ? "closest SLO term / limit" : "requests/s"},
                                          {"front", "Pareto"}})}}));
  const std::string better = target ? "as cheap or cheaper per hour and as far or farther from its SLO limit"
                                    : "as cheap or cheaper per hour and sustains as much or more";
  return Chart{
      "SLO frontier: cost against capacity",
      absl::StrCat(target ? "Each priced candidate at the target rate: its cost per hour against the SLO term it comes "
                            "closest to, as a share of that term's limit (every candidate serves the same traffic, so "
                            "what a dearer one buys is headroom). "
                          : "Each priced candidate at the largest rate it sustains within the SLO: its cost per hour "
                            "against that rate. ",
                   "The grey line joins the Pareto front: the candidates no other beats on both (", better,
                   ", one of the two strictly). Colour is the GPU profile: an extrapolated one was scaled from another "
                   "GPU's measurements, so its point is an estimate. Look for: the cheapest point on the front that "
                   "serves your traffic; a dominated point (square) is never the one to deploy."),
      std::move(chart)};
}

}  // namespace

std::vector<Chart> PlanCharts(const PlanResult& plan, const std::vector<PlanPoint>& points) {
  const bool target = TargetMode(plan);
  std::vector<const PlanPoint*> all, priced;
  for (const PlanPoint& p : points) {
    all.push_back(&p);
    if (p.cost > 0) priced.push_back(&p);
  }
  std::vector<Chart> charts;
  if (!all.empty()) {
    charts.push_back(PlanBars(
        all, points, &PlanPoint::capacity,
        target ? "GPUs needed (replicas x tensor-parallel size)" : "largest sustained rate (requests/s)",
        target ? "Capacity: GPUs needed per candidate" : "Capacity: largest rate per candidate",
        absl::StrCat(target ? "The GPUs each candidate needs to serve the target within the SLO (its fewest replicas "
                              "times its tensor-parallel size), "
                            : "The largest arrival rate each candidate sustains within the SLO, stable, with every "
                              "verification seed, ",
                     "in rank order. Colour is the GPU profile: extrapolated bars are estimates scaled from another "
                     "GPU's measurements. Look for: how far apart the candidates are, and whether the leaders run on "
                     "measured profiles.")));
  }
  if (!priced.empty()) {
    charts.push_back(PlanBars(
        priced, points, &PlanPoint::cost, target ? "USD per hour" : "USD per million output tokens",
        target ? "Cost per candidate (USD per hour)" : "Cost per candidate (USD per million output tokens)",
        absl::StrCat(target ? "What each candidate costs per hour at the target: GPUs x price per GPU-hour. "
                            : "What a million output tokens cost on each candidate running at its capacity: USD per "
                              "hour / (output tokens/s x 3600) x 1e6. ",
                     "The ranking's measure, in rank order; candidates without a price are left out. Look for: the "
                     "margin between the cheapest candidates (within a few percent, the SLO values and the profile "
                     "decide).")));
  }
  if (std::optional<Chart> frontier = FrontierChart(plan, points)) charts.push_back(*std::move(frontier));
  return charts;
}

namespace {

// The candidates as plan's table lists them, with the profile and the Pareto mark.
void AddPlanTable(const PlanResult& plan, const std::vector<PlanPoint>& points, HtmlPage* page) {
  const bool target = TargetMode(plan);
  std::vector<std::vector<std::string>> rows;
  for (const PlanCandidate& c : plan.candidates()) {
    const bool ok = c.status() == "ok";
    const auto point =
        std::find_if(points.begin(), points.end(), [&](const PlanPoint& p) { return p.label == c.label(); });
    std::vector<std::string> row = {c.label(),
                                    ok ? absl::StrCat(c.rank()) : "-",
                                    plan::ProfileMark(c),
                                    ok ? absl::StrCat(c.gpus()) : "-",
                                    !ok      ? "-"
                                    : target ? absl::StrCat(c.replicas())
                                             : TableNumber(c.rate()),
                                    ok ? TableNumber(c.output_tokens_per_s()) : "-"};
    for (int t = 0; t < plan.slo_size(); ++t) {
      row.push_back(ok && t < c.slo_values_size() ? TableNumber(c.slo_values(t).mean_s() * 1e3) : "-");
    }
    row.push_back(ok && c.usd_per_hour() > 0 ? TableNumber(c.usd_per_hour()) : "-");
    row.push_back(ok && c.usd_per_million_output_tokens() > 0 ? TableNumber(c.usd_per_million_output_tokens()) : "-");
    row.push_back(point != points.end() && point->on_front ? "yes" : "");
    row.push_back(ok ? c.error() : absl::StrCat(c.status(), c.error().empty() ? "" : ": ", c.error()));
    rows.push_back(std::move(row));
  }
  std::vector<std::string> header = {"candidate",      "rank", "GPU profile", "GPUs", target ? "replicas" : "req/s",
                                     "output tokens/s"};
  for (const SloTerm& t : plan.slo()) header.push_back(absl::StrCat(t.metric(), " ", t.statistic(), " (ms)"));
  for (const char* h : {"USD/hour", "USD/M output tokens", "Pareto front", "note"}) header.emplace_back(h);
  page->AddTable(
      header, rows,
      absl::StrCat("SLO values are means over ", plan.replications(), " seed", plan.replications() == 1 ? "" : "s",
                   " at the chosen point. GPU profile: measured on that "
                   "GPU, extrapolated from another GPU's measurements, or roofline (datasheet peaks)."));
}

}  // namespace

void AddPlanSection(const PlanInput& input, HtmlPage* page) {
  const PlanResult& plan = input.plan;
  std::vector<std::string> terms;
  for (const SloTerm& t : plan.slo()) terms.push_back(t.text());
  page->AddHeading(2, absl::StrCat("Plan: ", input.label));
  page->AddHtml(absl::StrCat(
      "<p>From <code>", EscapeHtml(input.source), "</code> (plan.json): ", plan.candidates_size(), " candidate",
      plan.candidates_size() == 1 ? "" : "s", ", SLO ", EscapeHtml(absl::StrJoin(terms, ", ")), ", ",
      TargetMode(plan) ? absl::StrCat("the fewest replicas for ", TableNumber(plan.target_rate()), " requests/s")
                       : std::string("the largest rate each sustains"),
      "; ", plan.simulations(), " simulations.</p>"));
  const std::string workload = plan.has_assumed_workload() ? plan.assumed_workload().text() : "(not recorded)";
  page->AddHtml(absl::StrCat("<p>Workload assumed: ", EscapeHtml(workload), ". Flags: <code>",
                             EscapeHtml(plan.workload().empty() ? "(simulate's defaults)" : plan.workload()),
                             "</code></p>"));
  const std::vector<PlanPoint> points = PlanPoints(plan);
  AddPlanTable(plan, points, page);
  for (const std::string& note : plan.notes()) page->AddNote(note);
  const std::vector<Chart> charts = PlanCharts(plan, points);
  for (const Chart& chart : charts) page->AddChart(chart);
  const size_t left_out = static_cast<size_t>(plan.candidates_size()) - points.size();
  if (points.empty()) {
    page->AddNote(absl::StrCat(input.source, ": no candidate is ok, so nothing is drawn (the table says why)."));
  } else if (left_out > 0) {
    page->AddNote(absl::StrCat(left_out, " candidate", left_out == 1 ? " is" : "s are",
                               " not ok (infeasible or failed) and not drawn."));
  }
  if (!points.empty() && charts.size() < 3) {
    page->AddNote(
        "no ok candidate's GPU has a price: cost and the frontier are not drawn (give prices with "
        "plan --price).");
  }
}

}  // namespace infergrid::report
