#include "sim/app/report/summary_charts.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/units.h"
#include "sim/app/format/units.h"
#include "sim/app/report/vega_lite.h"

namespace infergrid::report {
namespace {

using vl::Json;

// Terms that differ by less than this are equal: the plan's figures are exact sums, so anything
// larger is a term the rule counts differently.
constexpr double kSameBytes = 1 << 20;

// The waterfall's bars, each from `start` to `end` GiB.
class Waterfall {
 public:
  void Total(const std::string& step, double bytes, const char* kind = "total") { Add(step, 0, bytes, kind); }
  void Take(const std::string& step, double bytes, const char* kind = "taken from the budget") {
    Add(step, level_, level_ - bytes, kind);
  }
  void Beside(const std::string& step, double bytes, const char* kind) {  // does not move the level
    const double level = level_;
    Add(step, 0, bytes, kind);
    level_ = level;
  }
  double level() const { return level_; }
  Json rows() const { return rows_; }

 private:
  void Add(const std::string& step, double start, double end, const char* kind) {
    rows_.push_back({{"order", rows_.size()},
                     {"step", step},
                     {"start", vl::Round(start / kGiB)},
                     {"end", vl::Round(end / kGiB)},
                     {"top", vl::Round(std::max(start, end) / kGiB)},
                     {"kind", kind},
                     {"label", absl::StrCat(format::Fixed(std::fabs(end - start) / kGiB, 2), " GiB")}});
    level_ = end;
  }
  Json rows_ = Json::array();
  double level_ = 0;
};

}  // namespace

Chart BindingShareChart(const SimulationSummary& summary) {
  Json rows = Json::array(), resources = Json::array();
  for (const ResourceShare& share : summary.binding()) {
    resources.push_back(share.resource());
    rows.push_back(
        {{"resource", share.resource()}, {"measure", "busy time"}, {"share", vl::Round(share.time_share())}});
    rows.push_back(
        {{"resource", share.resource()}, {"measure", "iterations"}, {"share", vl::Round(share.iteration_share())}});
  }
  Json chart = vl::LayeredChart(vl::kWidth, 40 + 36 * static_cast<int>(resources.size()));
  Json encoding = {{"y", vl::Category("resource", "binding resource", resources)},
                   {"x", vl::Percent("share", "share")},
                   {"yOffset", vl::Category("measure", "", {"busy time", "iterations"})},
                   {"color", vl::WithLegend(vl::Category("measure", "share of", {"busy time", "iterations"}))},
                   {"tooltip", vl::Tooltip({{"resource", "resource"}, {"measure", "share of"}, {"share", "share"}})}};
  encoding["x"]["scale"] = {{"domain", {0, 1}}};
  chart["layer"].push_back(vl::Layer(rows, "bar", encoding));
  Json text = encoding;
  text["text"] = {{"field", "share"}, {"format", ".1%"}};
  chart["layer"].push_back(vl::Layer(rows, {{"type", "text"}, {"align", "left"}, {"dx", 3}}, text));
  return {"Binding resource",
          "For each resource, the share of iterations it bound (the one whose time, at the achieved rate, set the "
          "iteration's duration) and the share of busy time those iterations took. Look for: hbm dominating "
          "decode-heavy serving (memory-bound: batch more), compute dominating prefill-heavy work, and any host "
          "share, which a faster GPU will not shrink.",
          std::move(chart)};
}

std::optional<Chart> MemoryWaterfallChart(const SimulationSummary& summary) {
  const MemorySummary& m = summary.memory();
  if (!(m.total_bytes_per_gpu() > 0)) return std::nullopt;
  const double weights = m.weight_bytes_per_gpu(), kv = m.kv_cache_bytes_per_gpu();
  Waterfall w;
  w.Total("device total", m.total_bytes_per_gpu());
  // vLLM and SGLang budgets hold the weights and the KV cache; TensorRT-LLM's budget is the KV pool.
  const bool budget_holds_all =
      m.budget_bytes_per_gpu() + kSameBytes >= weights + kv && m.budget_bytes_per_gpu() < m.total_bytes_per_gpu();
  if (budget_holds_all) {
    w.Take("outside the budget", m.total_bytes_per_gpu() - m.budget_bytes_per_gpu(), "outside the budget");
    w.Total("budget", m.budget_bytes_per_gpu());
  }
  w.Take("weights", weights);
  w.Take("activation peak", m.activation_peak_bytes_per_gpu());
  w.Take("non-torch", m.non_torch_bytes_per_gpu());
  const double graphs = m.cuda_graph_bytes_per_gpu();
  const bool graphs_subtracted = std::fabs(w.level() - graphs - kv) < std::fabs(w.level() - kv);
  if (graphs_subtracted) {
    w.Take("CUDA graphs", graphs);
  } else if (graphs > 0) {
    w.Beside("CUDA graphs (not subtracted)", graphs, "not subtracted by this engine");
  }
  const double other = w.level() - kv;
  if (std::fabs(other) > kSameBytes) {
    w.Take(other > 0 ? "left free by the rule" : "added back by the rule", other, "other terms of the rule");
  }
  w.Total("KV cache", kv, "KV cache");

  Json chart = vl::LayeredChart(vl::kWidth, 280);
  Json x = {{"field", "step"},
            {"type", "ordinal"},
            {"title", nullptr},
            {"sort", {{"field", "order"}}},
            {"axis", {{"labelAngle", -25}}}};
  Json kinds = Json::array();  // the kinds drawn, in the order of the legend below
  for (const char* kind : {"total", "outside the budget", "taken from the budget", "not subtracted by this engine",
                           "other terms of the rule", "KV cache"}) {
    for (const Json& row : w.rows()) {
      if (row["kind"] == kind) {
        kinds.push_back(kind);
        break;
      }
    }
  }
  Json encoding = {{"x", x},
                   {"y", vl::Number("start", "GiB per GPU")},
                   {"y2", {{"field", "end"}}},
                   {"color", vl::WithLegend(vl::Category("kind", "", kinds))},
                   {"tooltip", vl::Tooltip({{"step", "term"}, {"label", "amount"}, {"end", "level after (GiB)"}})}};
  chart["layer"].push_back(vl::Layer(w.rows(), {{"type", "bar"}, {"width", {{"band", 0.7}}}}, encoding));
  chart["layer"].push_back(
      vl::Layer(w.rows(), {{"type", "text"}, {"dy", -6}, {"baseline", "bottom"}},
                {{"x", x}, {"y", {{"field", "top"}, {"type", "quantitative"}}}, {"text", {{"field", "label"}}}}));
  return Chart{
      "Memory plan",
      absl::StrCat("How the ", m.plan_engine(),
                   " memory plan turns one GPU's memory into KV cache, in GiB per GPU "
                   "(GiB = 2^30 bytes): the device total, the part the engine's memory fraction keeps outside its "
                   "budget, then what the budget spends before the KV cache. The KV cache holds ",
                   format::Grouped(m.num_gpu_blocks()), " blocks (", format::Grouped(m.kv_tokens()),
                   " tokens per replica). Look for: the term that crowds out KV cache; weights and activation are "
                   "fixed by the model and max_num_batched_tokens, the fraction is a flag.",
                   graphs_subtracted || !(graphs > 0) ? ""
                                                      : " This engine version does not subtract its CUDA-graph "
                                                        "memory from the KV budget; its estimate is drawn beside "
                                                        "the steps."),
      std::move(chart)};
}

}  // namespace infergrid::report
