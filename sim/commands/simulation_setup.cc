#include "sim/commands/simulation_setup.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "sim/cli/command_line.h"
#include "sim/cli/number_flags.h"
#include "sim/cli/simulate_flags.h"
#include "sim/cli/slo_flags.h"
#include "sim/cli/trace_flags.h"
#include "sim/format/json_output.h"
#include "sim/format/units.h"
#include "sim/output/iterations_csv.h"
#include "sim/output/requests_csv.h"
#include "sim/output/timeline.h"
#include "traces/trace_transforms.h"

ABSL_DECLARE_FLAG(std::string, calibration);  // kernels_command.cc

namespace infergrid {
namespace {


// NCCL all-reduce latency floor on DGX-H100 (microbenchmarks.csv F41: 7 us at TP2, 23 us at
// TP8 for small messages), interpolated in log2(TP).
double AllReduceLatency(int tp) {
  if (tp < 2) return 0;
  return 7e-6 + 8e-6 * (std::log2(static_cast<double>(tp)) - 1);
}

// The flags that differ from their defaults, as a command line that reruns the simulation.
std::string CommandLineEcho() {
  std::vector<std::string> parts = {"infergrid simulate"};
  for (absl::string_view name : cli::SimulateFlagNames()) {
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr || name == "out" || name == "outputs" || name == "quiet" || name == "format") continue;
    const std::string value = flag->CurrentValue();
    if (value == flag->DefaultValue()) continue;
    std::string dashed(name);
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    parts.push_back(absl::StrCat("--", dashed, "=", value));
  }
  return absl::StrJoin(parts, " ");
}

class FanoutSink final : public IterationSink {
 public:
  void Add(IterationSink* sink) { sinks_.push_back(sink); }
  void OnIteration(const IterationRecord& record) override {
    for (IterationSink* sink : sinks_) sink->OnIteration(record);
  }

 private:
  std::vector<IterationSink*> sinks_;
};

absl::StatusOr<std::unique_ptr<RequestSource>> OpenWorkload(const SimulationPlan& plan, uint64_t seed,
                                                            TraceReadStats* stats) {
  if (plan.trace.empty()) {
    SyntheticWorkloadSpec spec = plan.synthetic;
    spec.seed = seed;
    return MakeSyntheticWorkload(spec);
  }
  absl::StatusOr<std::unique_ptr<RequestSource>> source = OpenTrace(plan.trace, plan.trace_options, stats);
  if (!source.ok()) return source.status();
  if (plan.max_requests > 0) {
    source = LimitRequests(*std::move(source), plan.max_requests);
    if (!source.ok()) return source.status();
  }
  if (plan.time_scale != 1) {
    source = ScaleTime(*std::move(source), plan.time_scale);
    if (!source.ok()) return source.status();
  }
  if (plan.trace_rate > 0) source = ScaleToRate(*std::move(source), plan.trace_rate);
  return source;
}

// "summary,requests,..." (any order, no repeats) into a selection.
absl::StatusOr<OutputSelection> ParseOutputs(absl::string_view list) {
  constexpr absl::string_view kExpected = "expected a comma list of summary, requests, iterations and timeline";
  OutputSelection selection{false, false, false, false};
  for (absl::string_view name : absl::StrSplit(list, ',')) {
    bool* wanted = name == "summary"      ? &selection.summary
                   : name == "requests"   ? &selection.requests
                   : name == "iterations" ? &selection.iterations
                   : name == "timeline"   ? &selection.timeline
                                          : nullptr;
    if (wanted == nullptr) {
      return cli::UsageError(absl::StrCat("--outputs: unknown output '", name, "': ", kExpected));
    }
    if (*wanted) return cli::UsageError(absl::StrCat("--outputs: '", name, "' is listed twice"));
    *wanted = true;
  }
  return selection;
}

}  // namespace

std::string OutputSelection::FileList() const {
  std::vector<absl::string_view> files;
  if (summary) files.push_back("summary.json");
  if (requests) files.push_back("requests.csv");
  if (iterations) files.push_back("iterations.csv");
  if (timeline) files.push_back("timeline.json");
  return absl::StrJoin(files, ", ");
}

absl::StatusOr<SimulationPlan> ResolveSimulationPlan() {
  SimulationPlan plan;
  absl::StatusOr<bool> json = cli::WantJson();
  if (!json.ok()) return json.status();
  plan.json = *json;

  // Policies.
  const std::string scheduler = absl::GetFlag(FLAGS_scheduler);
  if (scheduler != "vllm" && scheduler != "sarathi" && scheduler != "orca" && scheduler != "static") {
    return cli::UsageError(absl::StrCat("--scheduler: expected vllm, sarathi, orca or static, got '", scheduler, "'"));
  }
  const std::string preemption = absl::GetFlag(FLAGS_preemption_mode);
  if (preemption != "recompute" && preemption != "swap") {
    return cli::UsageError(absl::StrCat("--preemption-mode: expected recompute or swap, got '", preemption, "'"));
  }
  const std::string router = absl::GetFlag(FLAGS_router);
  if (router != "round-robin" && router != "least-outstanding" && router != "least-kv") {
    return cli::UsageError(absl::StrCat(
        "--router: expected round-robin, least-outstanding or least-kv, got '", router, "'"));
  }
  const std::string cost_model = absl::GetFlag(FLAGS_cost_model);
  if (cost_model != "auto" && cost_model != "roofline" && cost_model != "calibrated") {
    return cli::UsageError(absl::StrCat("--cost-model: expected auto, roofline or calibrated, got '", cost_model, "'"));
  }
  const int replicas = absl::GetFlag(FLAGS_num_replicas);
  if (absl::Status s = cli::CheckRange("num_replicas", replicas, 1, 4096); !s.ok()) return s;
  const int64_t chunk = absl::GetFlag(FLAGS_chunk_size);
  if (absl::Status s = cli::CheckRange("chunk_size", chunk, 1, int64_t{1} << 30); !s.ok()) return s;
  const double swap_gib = absl::GetFlag(FLAGS_swap_space);
  if (absl::Status s = cli::CheckDoubleRange("swap-space", swap_gib, 0, 1e6); !s.ok()) return s;
  const double slo_ttft = absl::GetFlag(FLAGS_slo_ttft);
  const double slo_tpot = absl::GetFlag(FLAGS_slo_tpot);
  if (absl::Status s = cli::CheckDoubleRange("slo-ttft", slo_ttft, 0, 1e9); !s.ok()) return s;
  if (absl::Status s = cli::CheckDoubleRange("slo-tpot", slo_tpot, 0, 1e9); !s.ok()) return s;
  const int64_t timeline_max = absl::GetFlag(FLAGS_timeline_max_iterations);
  if (absl::Status s = cli::CheckRange("timeline_max_iterations", timeline_max, 0, int64_t{1} << 40); !s.ok()) return s;
  plan.timeline_max_iterations = timeline_max;

  // Workload.
  const double rate = absl::GetFlag(FLAGS_rate);
  const double cv = absl::GetFlag(FLAGS_cv);
  const double time_scale = absl::GetFlag(FLAGS_time_scale);
  const int64_t max_requests = absl::GetFlag(FLAGS_max_requests);
  if (absl::Status s = cli::CheckDoubleRange("rate", rate, 0, 1e9); !s.ok()) return s;
  if (!(cv > 0) || cv > 1e3) return cli::UsageError(absl::StrCat("--cv=", cv, " is outside (0, 1000]"));
  if (!(time_scale > 0) || time_scale > 1e9) {
    return cli::UsageError(absl::StrCat("--time-scale=", time_scale, " must be > 0"));
  }
  if (absl::Status s = cli::CheckRange("max_requests", max_requests, 0, int64_t{1} << 31); !s.ok()) return s;
  const std::string arrival = absl::GetFlag(FLAGS_arrival);
  if (arrival != "poisson" && arrival != "gamma") {
    return cli::UsageError(absl::StrCat("--arrival: expected poisson or gamma, got '", arrival, "'"));
  }
  plan.trace = absl::GetFlag(FLAGS_trace);
  absl::StatusOr<TraceOptions> trace_options = cli::ResolveTraceOptions();
  if (!trace_options.ok()) return trace_options.status();
  plan.trace_options = *trace_options;
  plan.time_scale = time_scale;
  plan.trace_rate = plan.trace.empty() ? 0 : rate;
  plan.max_requests = max_requests;
  if (!plan.trace.empty() && access(plan.trace.c_str(), R_OK) != 0) {
    return absl::NotFoundError(absl::StrCat("--trace=", plan.trace, ": cannot read the file"));
  }
  if (plan.trace.empty() && time_scale != 1) {
    return cli::UsageError("--time-scale applies to --trace; a synthetic workload takes --rate");
  }
  plan.synthetic.preset = absl::GetFlag(FLAGS_workload);
  plan.synthetic.arrival = arrival;
  plan.synthetic.rate_per_s = rate > 0 ? rate : kDefaultSyntheticRate;
  plan.synthetic.cv = cv;
  plan.synthetic.num_requests = max_requests > 0 ? max_requests : kDefaultSyntheticRequests;
  plan.synthetic.seed = absl::GetFlag(FLAGS_seed);
  if (plan.trace.empty()) {
    // Sources are lazy: opening one checks the preset and the arrival parameters only.
    absl::StatusOr<std::unique_ptr<RequestSource>> probe = MakeSyntheticWorkload(plan.synthetic);
    if (!probe.ok()) return cli::UsageError(absl::StrCat("--workload: ", probe.status().message()));
  }

  // Model, GPU, formats, and the memory plan.
  absl::StatusOr<cli::AccountingSetup> setup = cli::ResolveAccountingSetup();
  if (!setup.ok()) return setup.status();
  plan.setup = *std::move(setup);
  absl::StatusOr<MemoryPlanRequest> request = cli::ResolveMemoryPlanRequest(plan.setup, "vllm-v1");
  if (!request.ok()) return request.status();
  if (request->pipeline_parallel != 1) {
    return cli::UsageError("--pipeline-parallel-size: simulate models tensor parallelism only (use 1)");
  }
  const int tp = request->tensor_parallel;
  if (tp > 8) {
    return cli::UsageError(absl::StrCat("--tensor-parallel-size=", tp,
                                        " does not fit a node of 8 GPUs (tensor parallelism stays inside a node)"));
  }
  if (plan.setup.model.num_attention_heads() % tp != 0) {
    return cli::UsageError(absl::StrCat("--tensor-parallel-size=", tp, " does not divide the ",
                                        plan.setup.model.num_attention_heads(), " attention heads of ",
                                        plan.setup.model.name()));
  }
  const int64_t max_model_len = request->max_model_len > 0 ? request->max_model_len
                                                           : plan.setup.model.max_position_embeddings();
  const int64_t max_seqs = request->max_num_seqs > 0 ? request->max_num_seqs : 256;
  const bool chunked = scheduler == "sarathi";
  int64_t batched = request->max_num_batched_tokens;
  if (batched == 0) batched = chunked ? std::max<int64_t>(chunk, 2048) : std::max<int64_t>(max_model_len, 2048);
  if (!chunked && batched < max_model_len) {
    // vLLM refuses this without chunked prefill: a long prompt could never be scheduled.
    return cli::UsageError(absl::StrCat(
        "--max-num-batched-tokens=", batched, " is smaller than --max-model-len=", max_model_len,
        "; without chunked prefill (--scheduler=sarathi) a prompt of max_model_len could never run"));
  }
  const int block_size = request->block_size > 0 ? request->block_size : 16;
  const bool cuda_graphs = absl::GetFlag(FLAGS_enable_cuda_graphs) && !absl::GetFlag(FLAGS_enforce_eager);
  request->max_model_len = max_model_len;
  request->max_num_seqs = max_seqs;
  request->max_num_batched_tokens = batched;
  request->block_size = block_size;
  request->enable_cuda_graphs = cuda_graphs;
  absl::StatusOr<MemoryPlan> memory = PlanEngineMemory(*request);
  if (!memory.ok()) return memory.status();
  plan.memory_plan = *memory;
  const MemoryPlan& m = plan.memory_plan;
  const double block_bytes = static_cast<double>(m.block_size) * static_cast<double>(m.kv_bytes_per_token);

  // The engine.
  EngineConfig& e = plan.engine;
  e.layout.num_replicas = replicas;
  e.layout.tensor_parallel = tp;
  e.layout.gpus_per_node = 8;
  e.scheduler = scheduler;
  e.limits.max_num_seqs = max_seqs;
  e.limits.max_num_batched_tokens = batched;
  e.limits.chunk_size = chunk;
  e.limits.preemption = preemption == "swap" ? PreemptionMode::kSwap : PreemptionMode::kRecompute;
  e.blocks.num_gpu_blocks = m.num_blocks;
  e.blocks.block_size = m.block_size;
  e.blocks.watermark = 0.01;
  e.blocks.prefix_caching = absl::GetFlag(FLAGS_enable_prefix_caching);
  e.blocks.num_cpu_blocks = block_bytes > 0 ? static_cast<int64_t>(swap_gib * kGiB / block_bytes) : 0;
  e.router = router;
  e.max_model_len = max_model_len;
  e.num_layers = plan.setup.model.num_layers();
  e.hidden_size = plan.setup.model.hidden_size();
  e.activation_bytes = 2;
  e.allreduce_latency_s = AllReduceLatency(tp);
  e.kv_bytes_per_token = m.kv_bytes_per_token;
  e.coalesce = absl::GetFlag(FLAGS_coalesce);
  e.cost_stride = absl::GetFlag(FLAGS_cost_stride);
  if (absl::Status s = cli::CheckRange("cost_stride", e.cost_stride, 1, 4096); !s.ok()) return s;
  e.progress = !absl::GetFlag(FLAGS_quiet) && isatty(STDERR_FILENO);
  const int64_t usable = m.num_blocks - static_cast<int64_t>(0.01 * static_cast<double>(m.num_blocks));
  if ((max_model_len + m.block_size - 1) / m.block_size > usable) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--max-model-len=", max_model_len, " needs ", (max_model_len + m.block_size - 1) / m.block_size,
        " KV blocks but the memory plan leaves ", m.num_blocks, " (", usable,
        " above the watermark); lower --max-model-len or raise --gpu-memory-utilization"));
  }

  CostModelRequest& c = plan.cost_request;
  c.choice = cost_model;
  c.model = plan.setup.model;
  c.gpu = plan.setup.gpu;
  c.compute_dtype = plan.setup.compute_dtype;
  c.weight_bytes_per_gpu = m.weight_bytes;
  c.kv_bytes_per_token_per_gpu = m.kv_bytes_per_token;
  c.active_parameters = plan.setup.parameters.active_per_token();
  c.tensor_parallel = tp;
  c.enable_cuda_graphs = cuda_graphs;
  c.kv_dtype = plan.setup.kv_dtype;
  c.weights = plan.setup.weights;
  c.block_size = m.block_size;
  c.calibration_path = absl::GetFlag(FLAGS_calibration);

  MemorySummary& ms = plan.memory;
  ms.set_plan_engine(m.engine);
  ms.set_weight_bytes_per_gpu(m.weight_bytes);
  ms.set_kv_cache_bytes_per_gpu(m.kv_cache_bytes);
  ms.set_kv_bytes_per_token_per_gpu(static_cast<double>(m.kv_bytes_per_token));
  ms.set_num_gpu_blocks(static_cast<int32_t>(m.num_blocks));
  ms.set_kv_tokens(static_cast<int32_t>(m.kv_tokens));
  ms.set_num_cpu_blocks(static_cast<int32_t>(e.blocks.num_cpu_blocks));
  ms.set_watermark_blocks(static_cast<int32_t>(m.num_blocks - usable));

  plan.summary_options.slo_ttft_s = slo_ttft;
  plan.summary_options.slo_tpot_s = slo_tpot;
  plan.summary_options.kv_bytes_per_block = block_bytes;
  plan.summary_options.num_replicas = replicas;
  plan.summary_options.record_wall_time = absl::GetFlag(FLAGS_record_wall_time);
  plan.out_dir = absl::GetFlag(FLAGS_out);
  absl::StatusOr<OutputSelection> outputs = ParseOutputs(absl::GetFlag(FLAGS_outputs));
  if (!outputs.ok()) return outputs.status();
  const absl::CommandLineFlag* outputs_flag = absl::FindCommandLineFlag("outputs");
  if (plan.out_dir.empty() && outputs_flag->CurrentValue() != outputs_flag->DefaultValue()) {
    return cli::UsageError("--outputs needs --out=DIR (without it no file is written)");
  }
  plan.outputs = *outputs;

  SimulationConfig& k = plan.config;
  k.set_command_line(CommandLineEcho());
  k.set_model(plan.setup.model.name());
  k.set_gpu(plan.setup.gpu.name());
  k.set_weight_dtype(plan.setup.weights.label.empty() ? std::string(DTypeName(plan.setup.weights.dtype))
                                                      : plan.setup.weights.label);
  k.set_kv_cache_dtype(std::string(DTypeName(plan.setup.kv_dtype)));
  k.set_num_replicas(replicas);
  k.set_tensor_parallel_size(tp);
  k.set_router(router);
  k.set_scheduler(scheduler);
  k.set_max_num_seqs(static_cast<int32_t>(max_seqs));
  k.set_max_num_batched_tokens(static_cast<int32_t>(batched));
  k.set_chunk_size(static_cast<int32_t>(chunk));
  k.set_block_size(m.block_size);
  k.set_gpu_memory_utilization(request->gpu_memory_utilization);
  k.set_max_model_len(static_cast<int32_t>(max_model_len));
  k.set_enable_cuda_graphs(cuda_graphs);
  k.set_enable_prefix_caching(e.blocks.prefix_caching);
  k.set_preemption_mode(preemption);
  k.set_swap_space_gib(swap_gib);
  k.set_cost_model(cost_model);
  k.set_workload(plan.trace.empty() ? plan.synthetic.preset : "trace");
  k.set_trace(plan.trace);
  k.set_trace_format(plan.trace_options.format);
  k.set_arrival(plan.trace.empty() ? arrival : "");
  k.set_rate(plan.trace.empty() ? plan.synthetic.rate_per_s : rate);
  k.set_cv(plan.trace.empty() ? cv : 0);
  k.set_time_scale(time_scale);
  k.set_max_requests(static_cast<int32_t>(plan.trace.empty() ? plan.synthetic.num_requests : max_requests));
  k.set_seed(plan.synthetic.seed);
  k.set_slo_ttft_s(slo_ttft);
  k.set_slo_tpot_s(slo_tpot);
  k.set_coalesce(e.coalesce);
  k.set_cost_stride(e.cost_stride);

  const std::string gpus = replicas * tp == 1 ? "1 x " : absl::StrCat(replicas * tp, " x ");
  plan.title = absl::StrCat(plan.setup.model.display_name(), " on ", gpus, plan.setup.gpu.display_name());
  if (replicas > 1 || tp > 1) absl::StrAppend(&plan.title, " (", replicas, " replica", replicas > 1 ? "s" : "", " x TP ", tp, ")");
  return plan;
}

absl::StatusOr<SimulationSummary> ExecuteSimulation(const SimulationPlan& plan, uint64_t seed,
                                                    OutputDir* out) {
  absl::StatusOr<CostModelChoice> cost = MakeCostModel(plan.cost_request);
  if (!cost.ok()) return cost.status();
  TraceReadStats trace_stats;
  absl::StatusOr<std::unique_ptr<RequestSource>> source = OpenWorkload(plan, seed, &trace_stats);
  if (!source.ok()) return source.status();

  FanoutSink sinks;
  std::unique_ptr<IterationsCsv> iterations_csv;
  std::unique_ptr<Timeline> timeline;
  if (out != nullptr && plan.outputs.iterations) {
    absl::StatusOr<std::unique_ptr<IterationsCsv>> csv = IterationsCsv::Open(out->TempPath("iterations.csv"));
    if (!csv.ok()) return csv.status();
    iterations_csv = *std::move(csv);
    sinks.Add(iterations_csv.get());
  }
  if (out != nullptr && plan.outputs.timeline) {
    absl::StatusOr<std::unique_ptr<Timeline>> t =
        Timeline::Open(out->TempPath("timeline.json"), plan.engine.layout.num_replicas, plan.timeline_max_iterations);
    if (!t.ok()) return t.status();
    timeline = *std::move(t);
    sinks.Add(timeline.get());
  }
  absl::StatusOr<SimulationResult> result = RunSimulation(
      plan.engine, plan.setup.gpu, *cost->model, **source, iterations_csv || timeline ? &sinks : nullptr);
  if (!result.ok()) return result.status();

  SimulationSummary summary;
  *summary.mutable_config() = plan.config;
  summary.mutable_config()->set_seed(seed);
  CostModelSummary& c = *summary.mutable_cost_model();
  c.set_kind(cost->kind);
  c.set_description(std::string(cost->model->Description()));
  c.set_reason(cost->reason);
  c.set_iteration_overhead_s(cost->overhead_s);
  // The calibrated model times collectives from its NCCL table (IterationCost::network_s).
  c.set_allreduce_latency_s(cost->kind == "roofline" ? plan.engine.allreduce_latency_s : 0);
  *summary.mutable_memory() = plan.memory;
  FillSummary(*result, plan.summary_options, &summary);
  if (cost->kind == "roofline") {
    summary.add_notes("the roofline cost model uses datasheet peaks: iteration times are optimistic "
                      "(a lower bound plus a fixed overhead), not calibrated predictions");
  }
  if (trace_stats.skipped > 0) {
    std::string reasons;
    for (const auto& [reason, count] : trace_stats.skipped_by_reason) {
      absl::StrAppend(&reasons, reasons.empty() ? "" : ", ", reason, " ", count);
    }
    summary.add_notes(absl::StrCat(trace_stats.skipped, " trace rows skipped (", reasons, ")"));
  }
  for (const std::string& warning : trace_stats.warnings) summary.add_notes(absl::StrCat("trace: ", warning));
  if (iterations_csv) {
    if (absl::Status s = iterations_csv->Close(); !s.ok()) return s;
  }
  if (timeline) {
    if (absl::Status s = timeline->Close(); !s.ok()) return s;
    if (timeline->truncated()) {
      summary.add_notes(absl::StrCat("timeline.json holds the first ", timeline->written(),
                                     " iterations (--timeline-max-iterations)"));
    }
  }
  if (out != nullptr && plan.outputs.requests) {
    if (absl::Status s = WriteRequestsCsv(result->log, out->TempPath("requests.csv")); !s.ok()) return s;
  }
  if (out != nullptr && plan.outputs.summary) {
    if (absl::Status s = out->WriteFile("summary.json", format::ToJson(summary)); !s.ok()) return s;
  }
  return summary;
}

}  // namespace infergrid
