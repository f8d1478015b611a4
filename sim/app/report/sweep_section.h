// The part of the report drawn from a `sweep --out=DIR` folder (sweep.json, results.jsonl): a
// table of the design, metrics against the swept axis with one line per configuration, and cost
// against latency with a Pareto front per load.
//
// The swept axis is `rate` when the sweep varies it, else the first varied flag whose values are
// all numbers; a configuration is one combination of the other axes' values. Each point is the
// mean over its replications that ran ok; failed runs are left out and counted in the text.
//
// Cost: a point's GPUs (tensor_parallel_size x num_replicas of its summary.json config) times
// its GPU's price per GPU-hour (ReportInputs::gpu_prices), in USD per hour. Pareto rule, within
// one value of the swept axis (points that serve one load; all points when there is no swept
// axis): a point is on the front when no other priced point of its value costs no more and has
// no higher p99 TTFT, with one of the two strictly lower; each front is joined in order of cost.
#ifndef INFERGRID_SIM_APP_REPORT_SWEEP_SECTION_H_
#define INFERGRID_SIM_APP_REPORT_SWEEP_SECTION_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/app/report/chart.h"
#include "sim/app/report/html_page.h"
#include "sim/app/report/report_inputs.h"

namespace infergrid::report {

// One point of the design, reduced over its replications.
struct SweepPoint {
  int point = 0;
  std::string label;  // every setting, "rate=2, kv_cache_dtype=fp8"
  std::string configuration;  // the settings other than the swept axis ("all points" when none)
  std::optional<double> x;  // the swept axis' value (absent: no numeric axis)
  int replications_ok = 0;
  double ttft_p99_s = 0, tpot_p99_s = 0, output_tokens_per_s = 0;  // means over replications
  int gpus = 0;
  std::string gpu;
  double usd_per_hour = 0;  // 0: the GPU has no price
  bool on_front = false;
};

// The points with at least one ok replication, in design order, with the Pareto front marked
// among those that have a cost (one front per value of the swept axis). `swept_axis` is set to
// the swept flag ("" when none is numeric).
std::vector<SweepPoint> SweepPoints(const SweepInput& sweep, const std::map<std::string, double>& gpu_prices,
                                    std::string* swept_axis);

// The metric charts (p99 TTFT, p99 TPOT, output tokens/s against the swept axis); empty when
// there is no numeric axis.
std::vector<Chart> SweepAxisCharts(const std::vector<SweepPoint>& points, const std::string& swept_axis);
// Cost against p99 TTFT, a front per value of the swept axis; empty when no point has a cost.
std::optional<Chart> ParetoChart(const std::vector<SweepPoint>& points, const std::string& swept_axis);

void AddSweepSection(const SweepInput& sweep, const std::map<std::string, double>& gpu_prices, HtmlPage* page);

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_SWEEP_SECTION_H_
