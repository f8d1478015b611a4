#include "sim/app/report/iteration_charts.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sim/app/format/units.h"
#include "sim/app/report/vega_lite.h"

namespace infergrid::report {
namespace {

using vl::Json;

// Simulated time, over exactly the run (not widened to a round number).
Json TimeX(const TimeAxis& axis) {
  Json x = vl::Number("t", "simulated time (s since the first arrival)");
  x["scale"] = {{"domain", {0, vl::Round(axis.Start(axis.bins()))}}, {"nice", false}};
  x["axis"] = {{"tickCount", 10}};
  return x;
}

// One series of per-bin statistics: `value` picks it from a bin.
struct Series {
  const char* name;
  const BinStat& (*value)(const IterationBin&);
};

// Rows {t, series, min, mean, max} of the bins that hold iterations.
Json StatRows(const IterationBins& bins, const std::vector<Series>& series) {
  Json rows = Json::array();
  for (const Series& s : series) {
    for (int b = 0; b < bins.axis().bins(); ++b) {
      const BinStat& stat = s.value(bins.bins()[static_cast<size_t>(b)]);
      if (stat.count == 0) continue;
      rows.push_back({{"t", vl::Round(bins.axis().Middle(b))},
                      {"series", s.name},
                      {"min", vl::Round(stat.min)},
                      {"mean", vl::Round(stat.mean())},
                      {"max", vl::Round(stat.max)}});
    }
  }
  return rows;
}

// A mean line and a min-max band per series, on `y_title`.
Json BandChart(const IterationBins& bins, const std::vector<Series>& series, const std::string& y_title, bool percent) {
  const Json rows = StatRows(bins, series);
  Json domain = Json::array();
  for (const Series& s : series) domain.push_back(s.name);
  Json chart = vl::LayeredChart();
  Json y = percent ? vl::Percent("min", y_title) : vl::Number("min", y_title);
  Json color = vl::WithLegend(vl::Category("series", "", domain));
  chart["layer"].push_back(
      vl::Layer(rows, {{"type", "area"}, {"opacity", 0.2}, {"interpolate", "step"}},
                {{"x", TimeX(bins.axis())}, {"y", y}, {"y2", {{"field", "max"}}}, {"color", color}}));
  Json mean_y = percent ? vl::Percent("mean", y_title) : vl::Number("mean", y_title);
  chart["layer"].push_back(vl::Layer(
      rows, {{"type", "line"}, {"strokeWidth", 1.2}, {"interpolate", "step"}},
      {{"x", TimeX(bins.axis())},
       {"y", mean_y},
       {"color", color},
       {"tooltip",
        vl::Tooltip({{"series", "series"}, {"t", "time (s)"}, {"mean", "mean"}, {"min", "min"}, {"max", "max"}})}}));
  return chart;
}

// Red ticks at the bins where the scheduler preempted requests; a sentence for the caption.
std::string AddPreemptions(const IterationBins& bins, Json* chart) {
  Json rows = Json::array();
  for (int b = 0; b < bins.axis().bins(); ++b) {
    const int64_t n = bins.bins()[static_cast<size_t>(b)].preempted;
    if (n > 0) rows.push_back({{"t", vl::Round(bins.axis().Middle(b))}, {"preempted", n}});
  }
  if (rows.empty()) return "No request was preempted in this run.";
  (*chart)["layer"].push_back(vl::Layer(
      rows, {{"type", "tick"}, {"color", vl::kAlertColor}, {"thickness", 1.5}, {"size", 12}, {"y", "height"}},
      {{"x", TimeX(bins.axis())}, {"tooltip", vl::Tooltip({{"t", "time (s)"}, {"preempted", "preemptions"}})}}));
  return absl::StrCat("Red ticks at the bottom mark the bins with preemptions (", bins.preemptions(),
                      " in all; hover for each bin's count).");
}

// A dashed horizontal line at an engine limit, labelled, where the data comes within half of it
// (a far limit would squash the data into the bottom of the chart); a sentence for the caption.
std::string AddLimit(double value, double data_max, const std::string& label, Json* chart) {
  if (!(value > 0)) return "";
  if (data_max < 0.5 * value) {
    return absl::StrCat(" ", label, " is far above every iteration here, so it is not drawn.");
  }
  const Json rows = Json::array({{{"y", value}, {"label", label}}});
  const Json y = {{"field", "y"}, {"type", "quantitative"}};
  (*chart)["layer"].push_back(
      vl::Layer(rows, {{"type", "rule"}, {"strokeDash", {4, 3}}, {"color", vl::kLimitColor}}, {{"y", y}}));
  (*chart)["layer"].push_back(
      vl::Layer(rows, {{"type", "text"}, {"align", "left"}, {"x", 4}, {"dy", -6}, {"color", vl::kLimitColor}},
                {{"y", y}, {"text", {{"field", "label"}}}}));
  return absl::StrCat(" The dashed line is ", label, ".");
}

// The largest value of a series over the run.
double MaxOf(const IterationBins& bins, const BinStat& (*value)(const IterationBin&)) {
  double max = 0;
  for (const IterationBin& bin : bins.bins()) {
    if (value(bin).count > 0) max = std::max(max, value(bin).max);
  }
  return max;
}

Chart QueueChart(const IterationBins& bins) {
  const std::vector<Series> series = {{"waiting", [](const IterationBin& b) -> const BinStat& { return b.waiting; }},
                                      {"running", [](const IterationBin& b) -> const BinStat& { return b.running; }},
                                      {"swapped", [](const IterationBin& b) -> const BinStat& { return b.swapped; }}};
  Json chart = BandChart(bins, series, "requests per replica", false);
  const std::string preemptions = AddPreemptions(bins, &chart);
  return {"Queues over time",
          absl::StrCat("Requests waiting to be scheduled, running in the batch, and swapped out to host memory, "
                       "per replica, after each iteration's scheduling. Look for: a waiting queue that grows and "
                       "does not drain (overload), and running requests dropping while waiting grows (KV blocks "
                       "ran out). ",
                       preemptions, " ", BinRule(bins.axis(), "the iterations' values")),
          std::move(chart)};
}

Chart KvChart(const IterationBins& bins, const SimulationSummary& summary) {
  const std::vector<Series> series = {
      {"KV blocks in use", [](const IterationBin& b) -> const BinStat& { return b.kv_fraction; }}};
  Json chart = BandChart(bins, series, "KV blocks in use (% of the replica's)", true);
  const std::string preemptions = AddPreemptions(bins, &chart);
  return {"KV-cache occupancy over time",
          absl::StrCat("Share of the replica's ", format::Grouped(summary.memory().num_gpu_blocks()),
                       " KV blocks in use after each iteration's scheduling (peak ",
                       format::Fixed(100 * summary.kv().peak_fraction(), 1),
                       "%). Look for: occupancy pinned near 100%, where new requests wait for blocks and running "
                       "ones are preempted. ",
                       preemptions, " ", BinRule(bins.axis(), "the iterations' values")),
          std::move(chart)};
}

Chart BatchChart(const IterationBins& bins, const SimulationSummary& summary) {
  const std::vector<Series> series = {
      {"batch size", [](const IterationBin& b) -> const BinStat& { return b.batch_size; }}};
  Json chart = BandChart(bins, series, "sequences per iteration", false);
  const int limit = summary.config().max_num_seqs();
  const std::string limit_text = AddLimit(limit, MaxOf(bins, series[0].value),
                                          absl::StrCat("max_num_seqs (", format::Grouped(limit), ")"), &chart);
  return {"Batch size over time",
          absl::StrCat("Sequences in each iteration (prefill, decode and padding). Look for: batches held at "
                       "max_num_seqs, where the scheduler, not the load, limits the batch.",
                       limit_text, " ", BinRule(bins.axis(), "the iterations' batch sizes")),
          std::move(chart)};
}

Chart TokensChart(const IterationBins& bins, const SimulationSummary& summary) {
  const std::vector<Series> series = {
      {"new tokens", [](const IterationBin& b) -> const BinStat& { return b.new_tokens; }}};
  Json chart = BandChart(bins, series, "new tokens per iteration", false);
  const int limit = summary.config().max_num_batched_tokens();
  const std::string limit_text =
      AddLimit(limit, MaxOf(bins, series[0].value),
               absl::StrCat("max_num_batched_tokens (", format::Grouped(limit), ")"), &chart);
  return {"Tokens per iteration over time",
          absl::StrCat("Tokens computed in each iteration: prompt tokens of its prefill chunks plus one per decode "
                       "sequence. Look for: maxima at the token budget, which are prefill chunks, and a mean near "
                       "the batch size, which means decode-only iterations.",
                       limit_text, " ", BinRule(bins.axis(), "the iterations' token counts")),
          std::move(chart)};
}

Chart BindingOverTimeChart(const IterationBins& bins) {
  Json rows = Json::array();
  for (int b = 0; b < bins.axis().bins(); ++b) {
    const IterationBin& bin = bins.bins()[static_cast<size_t>(b)];
    if (!(bin.busy_s > 0)) continue;
    for (size_t r = 0; r < bins.resources().size(); ++r) {
      rows.push_back({{"t", vl::Round(bins.axis().Start(b))},
                      {"resource", bins.resources()[r]},
                      {"share", vl::Round(bin.busy_by_resource_s[r] / bin.busy_s)}});
    }
  }
  Json chart = vl::LayeredChart();
  Json y = vl::Percent("share", "share of busy time");
  y["stack"] = "zero";
  chart["layer"].push_back(
      vl::Layer(rows, {{"type", "area"}, {"interpolate", "step-after"}},
                {{"x", TimeX(bins.axis())},
                 {"y", y},
                 {"color", vl::WithLegend(vl::Category("resource", "binding resource", bins.resources()))},
                 {"tooltip", vl::Tooltip({{"resource", "resource"}, {"t", "bin start (s)"}, {"share", "share"}})}}));
  return {
      "Binding resource over time",
      absl::StrCat("Which resource bound the iterations, as a share of each bin's busy time (iteration "
                   "durations summed over replicas). Look for: phases where compute (prefill-heavy) or host "
                   "time takes over from HBM (decode-heavy). Each bin is ",
                   format::Duration(bins.axis().width_s()), " (the run cut into ", bins.axis().bins(), " equal bins)."),
      std::move(chart)};
}

Chart ResourceFractionChart(const IterationBins& bins) {
  using Pick = double (*)(const IterationBin&);
  const std::pair<const char*, Pick> series[] = {
      {"HBM bandwidth (of peak)", [](const IterationBin& b) { return b.hbm_fraction_s / b.busy_s; }},
      {"tensor FLOP/s (of peak)", [](const IterationBin& b) { return b.compute_fraction_s / b.busy_s; }},
      {"host time (of busy time)", [](const IterationBin& b) { return b.host_s / b.busy_s; }},
      {"host time hidden under the GPU (of busy time)",
       [](const IterationBin& b) { return b.host_hidden_s / b.busy_s; }},
  };
  Json rows = Json::array(), domain = Json::array();
  for (const auto& [name, pick] : series) {
    domain.push_back(name);
    for (int b = 0; b < bins.axis().bins(); ++b) {
      const IterationBin& bin = bins.bins()[static_cast<size_t>(b)];
      if (bin.busy_s > 0)
        rows.push_back({{"t", vl::Round(bins.axis().Middle(b))}, {"series", name}, {"value", vl::Round(pick(bin))}});
    }
  }
  Json chart = vl::LayeredChart();
  chart["layer"].push_back(
      vl::Layer(rows, {{"type", "line"}, {"strokeWidth", 1.2}, {"interpolate", "step"}},
                {{"x", TimeX(bins.axis())},
                 {"y", vl::Percent("value", "fraction")},
                 {"color", vl::WithLegend(vl::Category("series", "", domain))},
                 {"tooltip", vl::Tooltip({{"series", "series"}, {"t", "time (s)"}, {"value", "fraction"}})}}));
  return {"HBM, tensor and host fractions over time",
          absl::StrCat("Achieved HBM bandwidth and tensor FLOP/s as fractions of the GPU's peaks, and the engine's "
                       "host (CPU) time as a share of busy time, exposed or hidden under the GPU's work. Look for: "
                       "HBM near its ceiling in decode phases (memory-bound), a tensor fraction that rises with "
                       "prefill, and exposed host time, which no GPU can buy back. Each point is one bin of ",
                       format::Duration(bins.axis().width_s()), " (the run cut into ", bins.axis().bins(),
                       " equal bins): the fractions are weighted by iteration duration within the bin."),
          std::move(chart)};
}

}  // namespace

std::vector<Chart> IterationCharts(const IterationBins& bins, const SimulationSummary& summary) {
  return {QueueChart(bins),           KvChart(bins, summary),     BatchChart(bins, summary),
          TokensChart(bins, summary), BindingOverTimeChart(bins), ResourceFractionChart(bins)};
}

}  // namespace infergrid::report
