// The part of the report drawn from a `plan --out=DIR` folder (plan.json): what the plan assumed
// (SLO, workload, search), its candidates as a table, and three charts: each candidate's capacity
// and cost as bars, and the SLO frontier, cost per hour against capacity with the Pareto front
// joined. Candidates whose GPU profile is extrapolated (plan.json profile_extrapolated) are drawn
// in a colour of their own, named in the legend, the table and the note under it.
//
// Capacity: the largest rate each candidate sustains within the SLO, or with --target-rate the
// GPUs it needs. Cost: USD per million output tokens (what ranks a largest-rate plan), or USD per
// hour with a target. Frontier, largest-rate plans: a candidate is on it when no other priced
// candidate costs no more per hour and sustains no less, one of the two strictly. With a target
// every candidate serves the same rate, so the frontier is cost per hour against the SLO's
// closest term as a fraction of its limit (the headroom each one leaves), less being better.
// Candidates that are not ok, or have no price, are left off the cost charts and counted.
#ifndef INFERGRID_SIM_APP_REPORT_PLAN_SECTION_H_
#define INFERGRID_SIM_APP_REPORT_PLAN_SECTION_H_

#include <optional>
#include <string>
#include <vector>

#include "sim/app/report/chart.h"
#include "sim/app/report/html_page.h"
#include "sim/app/report/report_inputs.h"

namespace infergrid::report {

// One ok candidate, as the charts draw it.
struct PlanPoint {
  std::string label;
  std::string profile;  // measured | extrapolated | roofline
  double capacity = 0;  // req/s sustained, or GPUs needed with a target
  double usd_per_hour = 0;  // 0: no price
  double cost = 0;  // the ranking cost: USD per million output tokens, or USD per hour
  double frontier_x = 0;  // req/s, or the closest SLO term's fraction of its limit
  bool on_front = false;
};

// The ok candidates in rank order, with the Pareto front marked among the priced ones.
std::vector<PlanPoint> PlanPoints(const PlanResult& plan);

// Capacity and cost bars, and the frontier (absent when no candidate has a price).
std::vector<Chart> PlanCharts(const PlanResult& plan, const std::vector<PlanPoint>& points);

void AddPlanSection(const PlanInput& input, HtmlPage* page);

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_PLAN_SECTION_H_
