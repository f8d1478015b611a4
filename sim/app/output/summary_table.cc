#include "sim/app/output/summary_table.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/app/format/text_table.h"
#include "sim/app/format/units.h"

namespace infergrid {

using format::Fixed;
using format::Grouped;
using format::Percent;

namespace {

void AddLatencyRow(format::TextTable& table, const std::string& name, const LatencySummary& s) {
  auto ms = [](double seconds) { return Fixed(seconds * 1e3, 2); };
  if (s.count() == 0) {
    table.AddRow({name, "-", "-", "-", "-", "-", "-", "-", "0"});
    return;
  }
  table.AddRow({name, ms(s.mean()), ms(s.p50()), ms(s.p90()), ms(s.p95()), ms(s.p99()), ms(s.p99_9()), ms(s.max()),
                Grouped(s.count())});
}

// "azure-conv synthetic", "input fixed:2000, output fixed:300 tokens", "lengths resampled from F".
std::string SyntheticLengths(const SimulationConfig& c) {
  if (!c.lengths().empty()) return absl::StrCat("lengths resampled from ", c.lengths());
  std::string out = c.workload() == "lengths" ? "" : absl::StrCat(c.workload(), " synthetic");
  std::vector<std::string> given;
  if (!c.input_lengths().empty()) given.push_back(absl::StrCat("input ", c.input_lengths()));
  if (!c.output_lengths().empty()) given.push_back(absl::StrCat("output ", c.output_lengths()));
  if (given.empty()) return out;
  const std::string lengths = absl::StrCat(absl::StrJoin(given, ", "), " tokens");
  return out.empty() ? lengths : absl::StrCat(out, " (", lengths, ")");
}

// The lines under the title: workload, cost model, front end (and noise), KV cache.
std::string RenderSetup(const SimulationSummary& s) {
  const SimulationConfig& c = s.config();
  std::string out;
  std::string workload;
  const std::string arrivals =
      absl::StrCat(c.arrival(), c.arrival() == "gamma" ? absl::StrCat(" (cv ", c.cv(), ")") : "", " arrivals at ",
                   Fixed(c.rate(), 2), " req/s, seed ", c.seed());
  if (c.workload() == "trace" && !c.arrival().empty()) {
    workload = absl::StrCat("trace ", c.trace(), " (lengths only, no times): ", arrivals);
  } else if (c.workload() == "trace") {
    workload = absl::StrCat("trace ", c.trace());
    if (c.time_scale() != 1) absl::StrAppend(&workload, ", time x", c.time_scale());
    if (c.rate() > 0) absl::StrAppend(&workload, ", rescaled to ", Fixed(c.rate(), 2), " req/s");
  } else {
    workload = absl::StrCat(SyntheticLengths(c), ", ", arrivals);
  }
  absl::StrAppend(&out, "  workload     ", workload, "\n");
  absl::StrAppend(&out, "  cost model   ", s.cost_model().description(), " (", s.cost_model().reason(), ")\n");
  if (!c.front_end().empty()) {
    absl::StrAppend(&out, "  front end    ", c.front_end(),
                    c.front_end() == "off" ? " (--front-end=false: the engine alone)" : " per replica");
    if (c.iteration_noise() > 0 || c.send_jitter_s() > 0) {
      absl::StrAppend(&out, "; noise: iterations x lognormal(", c.iteration_noise(), "), sends +",
                      Fixed(c.send_jitter_s() * 1e3, 2), " ms mean");
    }
    absl::StrAppend(&out, "\n");
  }
  const MemorySummary& m = s.memory();
  absl::StrAppend(&out, "  KV cache     ", Grouped(m.num_gpu_blocks()), " blocks",
                  m.kv_block_groups() > 1 ? absl::StrCat(" / ", m.kv_block_groups(), " groups") : "", " x ",
                  c.block_size(), " tokens = ", Grouped(m.kv_tokens()), " tokens per replica (", c.kv_cache_dtype(),
                  ", ", Fixed(m.kv_cache_bytes_per_gpu() / kGiB, 2), " GiB per GPU, plan ", m.plan_engine(), ")\n\n");
  return out;
}

// "rejected     3 prompt longer than max_model_len (2,048 tokens), ..." when any request was refused.
std::string RenderRejections(const SimulationSummary& s) {
  if (s.rejections().empty()) return "";
  std::string reasons;
  for (const Rejection& r : s.rejections()) {
    std::string why = r.reason();
    if (r.reason() == "prompt_too_long") {
      why = absl::StrCat("prompt longer than max_model_len (", Grouped(s.config().max_model_len()), " tokens)");
    } else if (r.reason() == "kv_cache_too_small") {
      why = absl::StrCat("KV larger than a replica's cache (", Grouped(s.memory().kv_tokens()), " tokens)");
    }
    absl::StrAppend(&reasons, reasons.empty() ? "" : ", ", Grouped(r.requests()), " ", why);
  }
  return absl::StrCat("rejected     ", reasons, "\n");
}

// The spread of one figure across the replicas: min, median, max and the first replica at the max.
std::vector<std::string> SpreadRow(const std::string& name, const FleetSummary& fleet,
                                   double (*figure)(const ReplicaSummary&), std::string (*print)(double)) {
  std::vector<double> values;
  values.reserve(static_cast<size_t>(fleet.replicas_size()));
  int at_max = 0;
  for (const ReplicaSummary& r : fleet.replicas()) {
    const double x = figure(r);
    if (values.empty() || x > values[static_cast<size_t>(at_max)]) at_max = static_cast<int>(values.size());
    values.push_back(x);
  }
  const double max = values[static_cast<size_t>(at_max)];
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  const double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return {name, print(values.front()), print(median), print(max), absl::StrCat(fleet.replicas(at_max).replica())};
}

// With several replicas: the spread of a few figures across them, one line each whatever their number.
std::string RenderFleet(const SimulationSummary& s) {
  if (!s.has_fleet() || s.fleet().replicas().empty()) return "";
  const FleetSummary& fleet = s.fleet();
  auto count = [](double x) { return Grouped(x); };
  auto share = [](double x) { return Percent(x); };
  auto rate = [](double x) { return Fixed(x, 1); };
  auto ms = [](double x) { return Fixed(x * 1e3, 2); };
  format::TextTable table(
      {absl::StrCat("per replica (", Grouped(fleet.replicas_size()), ")"), "min", "median", "max", "max at replica"});
  table.AddRow(SpreadRow(
      "completed", fleet, [](const ReplicaSummary& r) { return static_cast<double>(r.completed()); }, count));
  table.AddRow(SpreadRow(
      "output tok/s", fleet, [](const ReplicaSummary& r) { return r.output_tokens_per_s(); }, rate));
  table.AddRow(SpreadRow(
      "engine busy", fleet, [](const ReplicaSummary& r) { return r.utilization(); }, share));
  table.AddRow(SpreadRow(
      "mean batch", fleet, [](const ReplicaSummary& r) { return r.mean_batch_size(); }, rate));
  table.AddRow(SpreadRow(
      "KV peak", fleet, [](const ReplicaSummary& r) { return r.peak_kv_fraction(); }, share));
  table.AddRow(SpreadRow(
      "TTFT p99 (ms)", fleet, [](const ReplicaSummary& r) { return r.ttft_p99_s(); }, ms));
  table.AddRow(SpreadRow(
      "E2E p99 (ms)", fleet, [](const ReplicaSummary& r) { return r.e2e_p99_s(); }, ms));
  return absl::StrCat("\n", table.Render(), "\n");
}

// --autoscale: GPU-hours against the fixed fleet's, and what the autoscaler did.
void AppendAutoscale(const AutoscaleSummary& a, std::string* out) {
  absl::StrAppend(out, "autoscale    ", a.metric(), " ", Fixed(a.target(), 2), ", ", a.min_replicas(), "..",
                  a.max_replicas(), " replicas (start-up ", Fixed(a.replica_startup_s(), 1),
                  " s): ", Fixed(a.gpu_hours(), 2), " GPU-hours vs ", Fixed(a.fixed_gpu_hours(), 2), " fixed\n");
  absl::StrAppend(out, "             ", a.scale_ups(), " scale-ups (+", a.replicas_started(), "), ", a.scale_downs(),
                  " scale-downs (-", a.replicas_stopped(), "), active replicas mean ",
                  Fixed(a.mean_active_replicas(), 2), ", peak ", a.peak_active_replicas(), "\n");
}

}  // namespace

std::string RenderSummaryTable(const SimulationSummary& s, const std::string& title) {
  const SimulationConfig& c = s.config();
  std::string out = absl::StrCat("InferGrid simulate: ", title, ", ", c.scheduler(), " scheduler\n");
  absl::StrAppend(&out, RenderSetup(s));
  format::TextTable table({"latency (ms)", "mean", "p50", "p90", "p95", "p99", "p99.9", "max", "count"});
  AddLatencyRow(table, "TTFT", s.ttft());
  AddLatencyRow(table, "TPOT", s.tpot());
  AddLatencyRow(table, "ITL", s.itl());
  AddLatencyRow(table, "E2E", s.e2e());
  AddLatencyRow(table, "queueing", s.queueing());
  absl::StrAppend(&out, table.Render(), "\n");

  absl::StrAppend(&out, "requests     ", Grouped(s.completed()), " of ", Grouped(s.requests()), " completed (",
                  Grouped(s.rejected()), " rejected, ", Grouped(s.truncated()), " truncated) in ",
                  Fixed(s.simulated_duration_s(), 3), " s simulated\n");
  absl::StrAppend(&out, RenderRejections(s));
  const Throughput& t = s.throughput();
  absl::StrAppend(&out, "throughput   ", Fixed(t.requests_per_s(), 3), " req/s, ", Grouped(t.input_tokens_per_s()),
                  " input tok/s, ", Grouped(t.output_tokens_per_s()), " output tok/s\n");
  const Goodput& g = s.goodput();
  if (g.slo_ttft_s() > 0 || g.slo_tpot_s() > 0) {
    std::string slo;
    if (g.slo_ttft_s() > 0) absl::StrAppend(&slo, "TTFT <= ", Fixed(g.slo_ttft_s() * 1e3, 0), " ms");
    if (g.slo_tpot_s() > 0)
      absl::StrAppend(&slo, slo.empty() ? "" : ", ", "TPOT <= ", Fixed(g.slo_tpot_s() * 1e3, 0), " ms");
    absl::StrAppend(&out, "goodput      ", Fixed(g.requests_per_s(), 3), " req/s (", Percent(g.fraction()),
                    " of completed requests meet ", slo, ")\n");
  }
  const KvSummary& kv = s.kv();
  absl::StrAppend(&out, "KV cache     peak ", Percent(kv.peak_fraction()), " of blocks, ", Grouped(kv.preemptions()),
                  " preemptions (", Grouped(kv.preemptions_recompute()), " recompute, ", Grouped(kv.preemptions_swap()),
                  " swap)");
  if (kv.prefix_cache_hit_tokens() > 0) {
    absl::StrAppend(&out, ", prefix cache hit ", Percent(kv.prefix_cache_hit_rate()), " of prompt tokens");
  }
  absl::StrAppend(&out, "\n");
  const IterationSummary& it = s.iterations();
  absl::StrAppend(&out, "iterations   ", Grouped(it.iterations()), " (", Grouped(it.prefill_iterations()),
                  " with prefill), mean batch ", Fixed(it.mean_batch_size(), 1), ", engine busy ",
                  Percent(it.utilization()), "\n");
  std::string binding;
  for (const ResourceShare& share : s.binding()) {
    absl::StrAppend(&binding, binding.empty() ? "" : ", ", share.resource(), " ", Percent(share.time_share()));
  }
  absl::StrAppend(&out, "binding      ", binding.empty() ? "-" : binding, " of busy time\n");
  if (it.host_s() > 0 || it.host_hidden_s() > 0) {
    absl::StrAppend(&out, "host         ", Percent(it.host_share()),
                    " of busy time waiting for the engine's host work (",
                    Fixed(it.host_hidden_s() / std::max(1e-300, it.busy_s()) * 100, 1), "% more ran under the GPU)\n");
  }
  if (s.has_disaggregation()) {
    const DisaggregationSummary& pd = s.disaggregation();
    absl::StrAppend(&out, "disaggregated ", pd.prefill_replicas(), " prefill + ", pd.decode_replicas(),
                    " decode replicas (", pd.decode_router(), "): KV transfer mean ",
                    Fixed(pd.kv_transfer().mean() * 1e3, 2), " ms, p99 ", Fixed(pd.kv_transfer().p99() * 1e3, 2),
                    " ms (", Percent(pd.kv_transfer_share_of_ttft()), " of mean TTFT), ",
                    Fixed(pd.kv_bytes_per_gpu() / 1e6, 1), " MB per GPU\n");
  }
  if (s.has_autoscale()) AppendAutoscale(s.autoscale(), &out);
  if (s.has_speculation()) {
    const SpeculationSummary& spec = s.speculation();
    absl::StrAppend(&out, "speculation  ", spec.method(), spec.draft_model().empty() ? "" : " ", spec.draft_model(),
                    ", k = ", spec.num_speculative_tokens(), ": ", Fixed(spec.mean_tokens_per_step(), 2),
                    " tokens per step (", Fixed(spec.expected_tokens_per_step(), 2), " expected), acceptance ",
                    Percent(spec.acceptance_rate()), ", drafting ", Percent(spec.draft_share()), " of busy time\n");
  }
  absl::StrAppend(&out, RenderFleet(s));
  absl::StrAppend(&out, "engine       ", Grouped(s.events()), " events, ", Grouped(s.simgrid_activities()),
                  " SimGrid activities");
  if (s.performance().wall_time_s() > 0) {
    absl::StrAppend(&out, " in ", Fixed(s.performance().wall_time_s(), 3), " s wall (",
                    Grouped(s.performance().events_per_s()), " events/s, ", Grouped(s.performance().requests_per_s()),
                    " requests/s)");
  }
  absl::StrAppend(&out, "\n");
  for (const std::string& note : s.notes()) absl::StrAppend(&out, "note: ", note, "\n");
  return out;
}

}  // namespace infergrid
