#include "sim/app/output/summary_builder.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/core/metrics/latency_stats.h"

namespace infergrid {
namespace {

void SetLatency(const LatencyStats& s, LatencySummary* out) {
  out->set_count(static_cast<int32_t>(s.count));
  out->set_mean(s.mean);
  out->set_p50(s.p50);
  out->set_p90(s.p90);
  out->set_p95(s.p95);
  out->set_p99(s.p99);
  out->set_p99_9(s.p999);
  out->set_max(s.max);
}

CostModelSummary DescribeCostModel(const CostModelChoice& choice) {
  CostModelSummary c;
  c.set_kind(std::string(NameOf(kCostModelNames, choice.kind)));
  c.set_description(std::string(choice.model->Description()));
  c.set_reason(choice.reason);
  c.set_iteration_overhead_s(choice.overhead_s);
  c.set_allreduce_latency_s(choice.allreduce_latency_s);
  return c;
}

MemorySummary DescribeMemory(const MemoryPlan& m, const BlockManagerOptions& blocks) {
  MemorySummary ms;
  ms.set_plan_engine(m.engine);
  ms.set_weight_bytes_per_gpu(m.weight_bytes);
  ms.set_kv_cache_bytes_per_gpu(m.kv_cache_bytes);
  ms.set_kv_bytes_per_token_per_gpu(static_cast<double>(m.kv_bytes_per_token));
  ms.set_num_gpu_blocks(static_cast<double>(m.num_blocks));
  ms.set_kv_tokens(static_cast<double>(m.kv_tokens));
  ms.set_kv_block_groups(m.kv_groups.groups());
  ms.set_num_cpu_blocks(static_cast<double>(blocks.num_cpu_blocks));
  ms.set_watermark_blocks(static_cast<double>(WatermarkBlocks(blocks)));
  ms.set_total_bytes_per_gpu(m.total_bytes);
  ms.set_budget_bytes_per_gpu(m.budget_bytes);
  ms.set_activation_peak_bytes_per_gpu(m.activation_peak_bytes);
  ms.set_non_torch_bytes_per_gpu(m.non_torch_bytes);
  ms.set_cuda_graph_bytes_per_gpu(m.cuda_graph_bytes);
  return ms;
}

void AddNotes(const SummaryContext& context, SimulationSummary* summary) {
  if (!context.engine_note.empty()) summary->add_notes(context.engine_note);
  if (context.cost_model->kind == CostModelKind::kRoofline) {
    summary->add_notes(
        "the roofline cost model uses datasheet peaks: iteration times are optimistic "
        "(a lower bound plus a fixed overhead), not calibrated predictions");
  }
  if (const TraceReadStats* t = context.trace_stats; t != nullptr) {
    if (t->skipped > 0) {
      std::string reasons;
      for (const auto& [reason, count] : t->skipped_by_reason) {
        absl::StrAppend(&reasons, reasons.empty() ? "" : ", ", reason, " ", count);
      }
      summary->add_notes(absl::StrCat(t->skipped, " trace rows skipped (", reasons, ")"));
    }
    for (const std::string& warning : t->warnings) summary->add_notes(absl::StrCat("trace: ", warning));
  }
  for (const std::string& note : context.model_notes) summary->add_notes(note);
  if (context.timeline_written >= 0) {
    summary->add_notes(absl::StrCat(context.timeline_file, " holds the first ", context.timeline_written,
                                    " iterations (--timeline-max-iterations)"));
  }
}

// What the finished requests add up to: their latencies, their tokens and how many met the SLOs.
struct FinishedRequests {
  std::vector<double> ttft, tpot, e2e, queueing, transfer;
  double transfer_input_tokens = 0;
  double input_tokens = 0, output_tokens = 0, cached_tokens = 0;
  int32_t completed = 0, meeting = 0;
};

FinishedRequests TallyFinished(const RequestLog& log, const SummaryContext& context) {
  FinishedRequests f;
  for (const RequestRecord& r : log.records()) {
    if (r.outcome != RequestOutcome::kFinished) continue;
    ++f.completed;
    const double t = r.first_token_s - r.arrival_s;
    f.ttft.push_back(t);
    f.e2e.push_back(r.finish_s - r.arrival_s);
    f.queueing.push_back(r.scheduled_s - r.arrival_s);
    if (r.kv_transfer_s >= 0) {
      f.transfer.push_back(r.kv_transfer_s);
      f.transfer_input_tokens += r.input_tokens;
    }
    double per_token = 0;
    if (r.output_tokens > 1) {
      per_token = (r.finish_s - r.first_token_s) / (r.output_tokens - 1);
      f.tpot.push_back(per_token);
    }
    f.input_tokens += r.input_tokens;
    f.output_tokens += r.output_tokens;
    f.cached_tokens += r.cached_tokens;
    const bool ttft_ok = context.slo_ttft_s <= 0 || t <= context.slo_ttft_s;
    const bool tpot_ok = context.slo_tpot_s <= 0 || r.output_tokens < 2 || per_token <= context.slo_tpot_s;
    f.meeting += ttft_ok && tpot_ok;
  }
  return f;
}

// Prefill/decode disaggregation: the pools and the KV transfers (after the TTFT they share);
// sorts f.transfer.
void SetDisaggregation(FinishedRequests& f, const SummaryContext& context, SimulationSummary* summary) {
  DisaggregationSummary& pd = *summary->mutable_disaggregation();
  pd.set_prefill_replicas(context.engine->prefill_replicas);
  pd.set_decode_replicas(context.engine->layout.num_replicas - context.engine->prefill_replicas);
  pd.set_decode_router(std::string(NameOf(kRouterNames, context.engine->decode_router)));
  SetLatency(ComputeLatencyStats(f.transfer), pd.mutable_kv_transfer());
  const double ttft_mean = summary->ttft().mean();
  pd.set_kv_transfer_share_of_ttft(ttft_mean > 0 ? pd.kv_transfer().mean() / ttft_mean : 0);
  pd.set_kv_bytes_per_gpu(f.transfer.empty() ? 0
                                             : f.transfer_input_tokens / static_cast<double>(f.transfer.size()) *
                                                   static_cast<double>(context.engine->kv_bytes_per_token));
}

// Throughput and goodput: per simulated second.
void SetRates(const FinishedRequests& f, double duration, const SummaryContext& context, SimulationSummary* summary) {
  auto per_s = [duration](double x) { return duration > 0 ? x / duration : 0.0; };
  Throughput& throughput = *summary->mutable_throughput();
  throughput.set_requests_per_s(per_s(f.completed));
  throughput.set_input_tokens_per_s(per_s(f.input_tokens));
  throughput.set_output_tokens_per_s(per_s(f.output_tokens));
  throughput.set_total_tokens_per_s(per_s(f.input_tokens + f.output_tokens));
  Goodput& goodput = *summary->mutable_goodput();
  goodput.set_slo_ttft_s(context.slo_ttft_s);
  goodput.set_slo_tpot_s(context.slo_tpot_s);
  goodput.set_requests_meeting_slo(f.meeting);
  goodput.set_fraction(f.completed > 0 ? static_cast<double>(f.meeting) / f.completed : 0);
  goodput.set_requests_per_s(per_s(f.meeting));
}

void SetKv(const IterationStats& it, const FinishedRequests& f, const SummaryContext& context,
           SimulationSummary* summary) {
  const double kv_bytes_per_block =
      static_cast<double>(context.engine->blocks.block_size) * static_cast<double>(context.engine->kv_bytes_per_token);
  KvSummary& kv = *summary->mutable_kv();
  kv.set_peak_blocks_used(static_cast<double>(it.peak_kv_blocks));
  kv.set_peak_fraction(it.peak_kv_fraction);
  kv.set_preemptions(static_cast<int32_t>(it.preemptions));
  kv.set_preemptions_swap(static_cast<int32_t>(it.preemptions_swap));
  kv.set_preemptions_recompute(static_cast<int32_t>(it.preemptions - it.preemptions_swap));
  kv.set_swap_out_bytes(static_cast<double>(it.swap_out_blocks) * kv_bytes_per_block);
  kv.set_swap_in_bytes(static_cast<double>(it.swap_in_blocks) * kv_bytes_per_block);
  kv.set_prefix_cache_hit_tokens(f.cached_tokens);
  kv.set_prefix_cache_hit_rate(f.input_tokens > 0 ? f.cached_tokens / f.input_tokens : 0);
}

// The iterations' totals, and the share of them each resource bound.
void SetIterations(const IterationStats& it, double duration, const SummaryContext& context,
                   SimulationSummary* summary) {
  IterationSummary& iterations = *summary->mutable_iterations();
  const double n = static_cast<double>(it.iterations);
  iterations.set_iterations(static_cast<int32_t>(it.iterations));
  iterations.set_prefill_iterations(static_cast<int32_t>(it.prefill_iterations));
  iterations.set_mean_batch_size(n > 0 ? it.batch_size_sum / n : 0);
  iterations.set_max_batch_size(static_cast<int32_t>(it.max_batch_size));
  iterations.set_mean_new_tokens(n > 0 ? (it.prefill_tokens + it.decode_tokens) / n : 0);
  iterations.set_busy_s(it.busy_s);
  iterations.set_utilization(duration > 0 ? it.busy_s / (duration * context.engine->ranks()) : 0);
  iterations.set_communication_s(it.communication_s);
  iterations.set_max_waiting(static_cast<int32_t>(it.max_waiting));
  iterations.set_host_s(it.host_s);
  iterations.set_host_share(it.busy_s > 0 ? it.host_s / it.busy_s : 0);
  iterations.set_host_hidden_s(it.host_hidden_s);

  for (int r = 0; r < kNumResources; ++r) {
    const size_t i = static_cast<size_t>(r);
    if (it.binding_iterations[i] == 0) continue;
    ResourceShare& share = *summary->add_binding();
    share.set_resource(std::string(ResourceName(static_cast<Resource>(r))));
    share.set_iterations(static_cast<int32_t>(it.binding_iterations[i]));
    share.set_iteration_share(n > 0 ? static_cast<double>(it.binding_iterations[i]) / n : 0);
    share.set_time_s(it.binding_time_s[i]);
    share.set_time_share(it.busy_s > 0 ? it.binding_time_s[i] / it.busy_s : 0);
  }
}

void SetSpeculation(const SpeculationPolicy& s, const IterationStats& it, SimulationSummary* summary) {
  SpeculationSummary& spec = *summary->mutable_speculation();
  spec.set_method(s.method);
  spec.set_draft_model(s.draft_model);
  spec.set_num_speculative_tokens(s.num_speculative_tokens);
  spec.set_acceptance(s.acceptance_text);
  spec.set_expected_tokens_per_step(ExpectedTokensPerStep(s.acceptance.mean(), s.num_speculative_tokens));
  const double steps = static_cast<double>(it.speculative_steps);
  const double drafts = static_cast<double>(it.draft_tokens);
  spec.set_steps(steps);
  spec.set_draft_tokens(drafts);
  spec.set_accepted_tokens(static_cast<double>(it.accepted_tokens));
  spec.set_mean_tokens_per_step(steps > 0 ? static_cast<double>(it.emitted_tokens) / steps : 0);
  spec.set_acceptance_rate(drafts > 0 ? static_cast<double>(it.accepted_tokens) / drafts : 0);
  spec.set_draft_s(it.draft_s);
  spec.set_draft_share(it.busy_s > 0 ? it.draft_s / it.busy_s : 0);
  spec.set_draft_weight_bytes(s.draft_weight_bytes);
  spec.set_draft_kv_bytes_per_token(static_cast<double>(s.draft_kv_bytes_per_token));
}

// `rejected` split by admission's reason, one entry per reason that refused any request.
void AddRejections(const RequestLog& log, SimulationSummary* summary) {
  for (RejectReason reason : kRejectReasons) {
    int32_t n = 0;
    for (const RequestRecord& r : log.records()) n += r.reject_reason == reason ? 1 : 0;
    if (n == 0) continue;
    Rejection& rejection = *summary->add_rejections();
    rejection.set_reason(RejectReasonName(reason));
    rejection.set_requests(n);
  }
}

// The requests one replica delivered: completed, tokens, and latency samples (reused between
// replicas).
struct ReplicaRequests {
  int32_t completed = 0;
  double input_tokens = 0, output_tokens = 0;
  std::vector<double> ttft, e2e;
};

double Mean(const std::vector<double>& samples) {
  double sum = 0;
  for (double x : samples) sum += x;
  return samples.empty() ? 0 : sum / static_cast<double>(samples.size());
}

// One replica's entry; sorts `served`'s samples.
void AddReplica(int replica, ReplicaRequests& served, const SimulationResult& result, ReplicaSummary* out) {
  const double duration = result.duration_s;
  auto per_s = [duration](double x) { return duration > 0 ? x / duration : 0.0; };
  const size_t i = static_cast<size_t>(replica);
  out->set_replica(replica);
  out->set_requests(i < result.requests_per_replica.size() ? static_cast<int32_t>(result.requests_per_replica[i]) : 0);
  out->set_completed(served.completed);
  out->set_input_tokens(served.input_tokens);
  out->set_output_tokens(served.output_tokens);
  out->set_output_tokens_per_s(per_s(served.output_tokens));
  const std::vector<ReplicaIterationStats>& iterations = result.stats.per_replica;
  const ReplicaIterationStats it = i < iterations.size() ? iterations[i] : ReplicaIterationStats{};
  out->set_iterations(static_cast<int32_t>(it.iterations));
  out->set_busy_s(it.busy_s);
  out->set_utilization(per_s(it.busy_s));
  out->set_mean_batch_size(it.iterations > 0 ? it.batch_size_sum / static_cast<double>(it.iterations) : 0);
  out->set_peak_kv_blocks(static_cast<double>(it.peak_kv_blocks));
  out->set_peak_kv_fraction(it.peak_kv_fraction);
  out->set_preemptions(static_cast<int32_t>(it.preemptions));
  std::sort(served.ttft.begin(), served.ttft.end());
  std::sort(served.e2e.begin(), served.e2e.end());
  out->set_ttft_mean_s(Mean(served.ttft));
  out->set_ttft_p99_s(SortedQuantile(served.ttft, 0.99));
  out->set_e2e_mean_s(Mean(served.e2e));
  out->set_e2e_p99_s(SortedQuantile(served.e2e, 0.99));
}

// Each replica's figures (summary.json's `fleet`): finished requests grouped by the replica that
// delivered their tokens (RequestRecord::replica; with --pd the decode replica), in one pass
// that orders the log's indices by replica, and the replica's own iteration aggregates.
void SetFleet(const SimulationResult& result, const SummaryContext& context, SimulationSummary* summary) {
  const size_t n = static_cast<size_t>(context.engine->ranks());
  const std::vector<RequestRecord>& records = result.log.records();
  std::vector<size_t> start(n + 1, 0);  // finished requests of replica i: order[start[i] .. start[i+1])
  for (const RequestRecord& r : records) {
    if (r.outcome == RequestOutcome::kFinished && r.replica >= 0 && static_cast<size_t>(r.replica) < n) {
      ++start[static_cast<size_t>(r.replica) + 1];
    }
  }
  for (size_t i = 0; i < n; ++i) start[i + 1] += start[i];
  std::vector<uint32_t> order(start[n]);
  std::vector<size_t> next(start.begin(), start.end() - 1);
  for (size_t k = 0; k < records.size(); ++k) {
    const RequestRecord& r = records[k];
    if (r.outcome == RequestOutcome::kFinished && r.replica >= 0 && static_cast<size_t>(r.replica) < n) {
      order[next[static_cast<size_t>(r.replica)]++] = static_cast<uint32_t>(k);
    }
  }
  FleetSummary& fleet = *summary->mutable_fleet();
  ReplicaRequests served;
  for (size_t i = 0; i < n; ++i) {
    served.completed = 0;
    served.input_tokens = served.output_tokens = 0;
    served.ttft.clear();
    served.e2e.clear();
    for (size_t k = start[i]; k < start[i + 1]; ++k) {
      const RequestRecord& r = records[order[k]];
      ++served.completed;
      served.input_tokens += r.input_tokens;
      served.output_tokens += r.output_tokens;
      served.ttft.push_back(r.first_token_s - r.arrival_s);
      served.e2e.push_back(r.finish_s - r.arrival_s);
    }
    AddReplica(static_cast<int>(i), served, result, fleet.add_replicas());
  }
}

// What the autoscaler did, in GPU-hours (docs/outputs.md).
void SetAutoscale(const AutoscaleResult& r, const EngineConfig& engine, SimulationSummary* summary) {
  const AutoscaleConfig& c = engine.autoscale;
  AutoscaleSummary& a = *summary->mutable_autoscale();
  a.set_metric(std::string(NameOf(kAutoscaleMetricNames, c.target.metric)));
  a.set_target(c.target.target);
  a.set_min_replicas(c.min_replicas);
  a.set_max_replicas(engine.layout.num_replicas);
  a.set_interval_s(c.interval_s);
  a.set_scale_down_delay_s(c.scale_down_delay_s);
  a.set_replica_startup_s(r.startup_s);
  a.set_gpu_hours(r.gpu_seconds / 3600);
  a.set_fixed_gpu_hours(r.fixed_gpu_seconds / 3600);
  a.set_scale_ups(static_cast<int32_t>(r.scale_ups));
  a.set_scale_downs(static_cast<int32_t>(r.scale_downs));
  a.set_replicas_started(static_cast<int32_t>(r.replicas_started));
  a.set_replicas_stopped(static_cast<int32_t>(r.replicas_stopped));
  a.set_peak_active_replicas(r.peak_active);
  a.set_mean_active_replicas(r.mean_active);
}

// The run's own figures.
void AddResults(const SimulationResult& result, const SummaryContext& context, SimulationSummary* summary) {
  FinishedRequests f = TallyFinished(result.log, context);  // latencies sorted as they are summarized
  summary->set_requests(static_cast<int32_t>(result.arrivals));
  summary->set_completed(f.completed);
  summary->set_rejected(static_cast<int32_t>(result.rejected));
  AddRejections(result.log, summary);
  summary->set_truncated(static_cast<int32_t>(result.truncated));
  for (int64_t n : result.requests_per_replica) summary->add_requests_per_replica(static_cast<int32_t>(n));
  SetLatency(ComputeLatencyStats(f.ttft), summary->mutable_ttft());
  SetLatency(ComputeLatencyStats(f.tpot), summary->mutable_tpot());
  SetLatency(ComputeLatencyStats(result.log.itl()), summary->mutable_itl());
  SetLatency(ComputeLatencyStats(f.e2e), summary->mutable_e2e());
  SetLatency(ComputeLatencyStats(f.queueing), summary->mutable_queueing());
  if (context.engine->prefill_replicas > 0) SetDisaggregation(f, context, summary);
  if (context.engine->ranks() > 1) SetFleet(result, context, summary);
  if (result.autoscale.has_value()) SetAutoscale(*result.autoscale, *context.engine, summary);
  SetRates(f, result.duration_s, context, summary);
  SetKv(result.stats, f, context, summary);
  SetIterations(result.stats, result.duration_s, context, summary);
  if (context.engine->execution.has_value() && context.engine->execution->speculation.enabled()) {
    SetSpeculation(context.engine->execution->speculation, result.stats, summary);
  }
  summary->set_simulated_duration_s(result.duration_s);
  summary->set_input_tokens(f.input_tokens);
  summary->set_output_tokens(f.output_tokens);
  summary->set_events(static_cast<int32_t>(result.events));
  summary->set_simgrid_activities(static_cast<int32_t>(result.activities));
  summary->set_cost_model_calls(static_cast<int32_t>(result.cost_model_calls));
  if (context.record_wall_time && result.wall_s > 0) {
    RunPerformance& perf = *summary->mutable_performance();
    perf.set_wall_time_s(result.wall_s);
    perf.set_events_per_s(static_cast<double>(result.events) / result.wall_s);
    perf.set_requests_per_s(static_cast<double>(result.arrivals) / result.wall_s);
  }
}

}  // namespace

SimulationSummary BuildSummary(const SimulationResult& result, const SummaryContext& context) {
  SimulationSummary summary;
  *summary.mutable_config() = context.config;
  *summary.mutable_cost_model() = DescribeCostModel(*context.cost_model);
  *summary.mutable_memory() = DescribeMemory(*context.memory_plan, context.engine->blocks);
  AddResults(result, context, &summary);
  AddNotes(context, &summary);
  return summary;
}

}  // namespace infergrid
