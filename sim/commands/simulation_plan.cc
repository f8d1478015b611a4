#include "sim/commands/simulation_plan.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "base/units.h"
#include "hardware/gpu_catalog.h"
#include "sim/cli/command_line.h"

namespace infergrid {
namespace {

// The batch limits the engine runs with: the user's where given, else the defaults.
struct EngineLimits {
  int64_t max_model_len = 0;
  int64_t max_num_seqs = 0;
  int64_t max_num_batched_tokens = 0;
  int block_size = 16;
  double watermark = 0;
};

// Tensor parallelism as simulate models it: one pipeline stage, inside one node, heads divisible.
absl::Status CheckDeployment(const cli::SimulateOptions& o) {
  if (o.memory.pipeline_parallel != 1) {
    return cli::UsageError("--pipeline-parallel-size: simulate models tensor parallelism only (use 1)");
  }
  const int tp = o.memory.tensor_parallel;
  const int node = GpusPerNode(o.setup.gpu);
  if (tp > node) {
    return cli::UsageError(absl::StrCat("--tensor-parallel-size=", tp, " does not fit a node of ", node,
                                        " GPUs (tensor parallelism stays inside a node)"));
  }
  if (o.setup.model.num_attention_heads() % tp != 0) {
    return cli::UsageError(absl::StrCat("--tensor-parallel-size=", tp, " does not divide the ",
                                        o.setup.model.num_attention_heads(), " attention heads of ",
                                        o.setup.model.name()));
  }
  return absl::OkStatus();
}

absl::StatusOr<EngineLimits> ResolveLimits(const cli::SimulateOptions& o) {
  absl::StatusOr<EngineDefaults> defaults = ResolveEngineDefaults(kSchedulingPersonality, o.setup.gpu);
  if (!defaults.ok()) return defaults.status();
  const MemoryPlanRequest& r = o.memory;
  EngineLimits limits;
  limits.max_model_len = r.max_model_len > 0 ? r.max_model_len : o.setup.model.max_position_embeddings();
  limits.max_num_seqs = r.max_num_seqs > 0 ? r.max_num_seqs : defaults->max_num_seqs;
  const bool chunked = o.scheduler == SchedulerKind::kSarathi;
  limits.max_num_batched_tokens = r.max_num_batched_tokens;
  if (limits.max_num_batched_tokens == 0) {
    limits.max_num_batched_tokens = std::max(chunked ? o.chunk_size : limits.max_model_len,
                                             defaults->min_batched_tokens);
  }
  if (!chunked && limits.max_num_batched_tokens < limits.max_model_len) {
    // vLLM refuses this without chunked prefill: a long prompt could never be scheduled.
    return cli::UsageError(absl::StrCat(
        "--max-num-batched-tokens=", limits.max_num_batched_tokens, " is smaller than --max-model-len=",
        limits.max_model_len, "; without chunked prefill (--scheduler=sarathi) a prompt of max_model_len could never run"));
  }
  limits.block_size = r.block_size > 0 ? r.block_size : defaults->block_size;
  limits.watermark = defaults->watermark_fraction;
  return limits;
}

absl::StatusOr<MemoryPlan> PlanMemory(const cli::SimulateOptions& o, const EngineLimits& limits) {
  MemoryPlanRequest request = o.memory;
  request.max_model_len = limits.max_model_len;
  request.max_num_seqs = limits.max_num_seqs;
  request.max_num_batched_tokens = limits.max_num_batched_tokens;
  request.block_size = limits.block_size;
  request.enable_cuda_graphs = o.cuda_graphs;
  return PlanEngineMemory(request);
}

// The engine's configuration; FailedPrecondition when one max_model_len request cannot fit the
// blocks above the watermark.
absl::StatusOr<EngineConfig> BuildEngineConfig(const cli::SimulateOptions& o, const EngineLimits& limits,
                                               const MemoryPlan& memory) {
  const KvCacheLayout kv = memory.kv();
  EngineConfig e;
  e.layout.num_replicas = o.num_replicas;
  e.layout.tensor_parallel = o.memory.tensor_parallel;
  e.layout.gpus_per_node = GpusPerNode(o.setup.gpu);
  e.scheduler = o.scheduler;
  e.limits.max_num_seqs = limits.max_num_seqs;
  e.limits.max_num_batched_tokens = limits.max_num_batched_tokens;
  e.limits.chunk_size = o.chunk_size;
  e.limits.preemption = o.preemption;
  e.blocks.num_gpu_blocks = kv.num_blocks;
  e.blocks.block_size = kv.block_size;
  e.blocks.watermark = limits.watermark;
  e.blocks.prefix_caching = o.prefix_caching;
  e.blocks.num_cpu_blocks = kv.BlockBytes() > 0 ? static_cast<int64_t>(o.swap_space_gib * kGiB / kv.BlockBytes()) : 0;
  e.router = o.router;
  e.max_model_len = limits.max_model_len;
  e.num_layers = o.setup.model.num_layers();
  e.hidden_size = o.setup.model.hidden_size();
  e.activation_bytes = 2;
  e.kv_bytes_per_token = kv.bytes_per_token;
  e.coalesce = o.coalesce;
  e.cost_stride = o.cost_stride;
  e.progress = o.progress;
  const int64_t usable = kv.num_blocks - WatermarkBlocks(e.blocks);
  const int64_t needed = (limits.max_model_len + kv.block_size - 1) / kv.block_size;
  if (needed > usable) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--max-model-len=", limits.max_model_len, " needs ", needed, " KV blocks but the memory plan leaves ",
        kv.num_blocks, " (", usable, " above the watermark); lower --max-model-len or raise --gpu-memory-utilization"));
  }
  return e;
}

CostModelRequest BuildCostRequest(const cli::SimulateOptions& o, const MemoryPlan& memory) {
  CostModelRequest c;
  c.kind = o.cost_model;
  c.model = o.setup.model;
  c.gpu = o.setup.gpu;
  c.compute_dtype = o.setup.compute_dtype;
  c.weights = o.setup.weights;
  c.weight_bytes_per_gpu = memory.weight_bytes;
  c.kv = memory.kv();
  c.active_parameters = o.setup.parameters.active_per_token();
  c.tensor_parallel = o.memory.tensor_parallel;
  c.enable_cuda_graphs = o.cuda_graphs;
  c.calibration_path = o.calibration_path;
  return c;
}

// Everything needed to rerun the simulation, as summary.json echoes it.
SimulationConfig BuildConfigEcho(const cli::SimulateOptions& o, const EngineConfig& e) {
  const cli::WorkloadOptions& w = o.workload;
  const bool synthetic = w.trace.empty();
  SimulationConfig k;
  k.set_command_line(o.command_line);
  k.set_model(o.setup.model.name());
  k.set_gpu(o.setup.gpu.name());
  k.set_weight_dtype(o.setup.weights.label.empty() ? std::string(DTypeName(o.setup.weights.dtype))
                                                   : o.setup.weights.label);
  k.set_kv_cache_dtype(std::string(DTypeName(o.setup.kv_dtype)));
  k.set_num_replicas(o.num_replicas);
  k.set_tensor_parallel_size(e.layout.tensor_parallel);
  k.set_router(std::string(NameOf(kRouterNames, o.router)));
  k.set_scheduler(std::string(NameOf(kSchedulerNames, o.scheduler)));
  k.set_max_num_seqs(static_cast<int32_t>(e.limits.max_num_seqs));
  k.set_max_num_batched_tokens(static_cast<int32_t>(e.limits.max_num_batched_tokens));
  k.set_chunk_size(static_cast<int32_t>(o.chunk_size));
  k.set_block_size(e.blocks.block_size);
  k.set_gpu_memory_utilization(o.memory.gpu_memory_utilization);
  k.set_max_model_len(static_cast<int32_t>(e.max_model_len));
  k.set_enable_cuda_graphs(o.cuda_graphs);
  k.set_enable_prefix_caching(o.prefix_caching);
  k.set_preemption_mode(std::string(NameOf(kPreemptionModeNames, o.preemption)));
  k.set_swap_space_gib(o.swap_space_gib);
  k.set_cost_model(std::string(NameOf(kCostModelNames, o.cost_model)));
  k.set_workload(synthetic ? w.synthetic.preset : "trace");
  k.set_trace(w.trace);
  k.set_trace_format(w.trace_options.format);
  k.set_arrival(synthetic ? w.synthetic.arrival : "");
  k.set_rate(synthetic ? w.synthetic.rate_per_s : w.trace_rate);
  k.set_cv(synthetic ? w.synthetic.cv : 0);
  k.set_time_scale(w.time_scale);
  k.set_max_requests(static_cast<int32_t>(synthetic ? w.synthetic.num_requests : w.max_requests));
  k.set_seed(w.synthetic.seed);
  k.set_slo_ttft_s(o.slo_ttft_s);
  k.set_slo_tpot_s(o.slo_tpot_s);
  k.set_coalesce(o.coalesce);
  k.set_cost_stride(o.cost_stride);
  return k;
}

std::string Title(const cli::SimulateOptions& o) {
  const int replicas = o.num_replicas;
  const int tp = o.memory.tensor_parallel;
  const std::string gpus = replicas * tp == 1 ? "1 x " : absl::StrCat(replicas * tp, " x ");
  std::string title = absl::StrCat(o.setup.model.display_name(), " on ", gpus, o.setup.gpu.display_name());
  if (replicas > 1 || tp > 1) {
    absl::StrAppend(&title, " (", replicas, " replica", replicas > 1 ? "s" : "", " x TP ", tp, ")");
  }
  return title;
}

}  // namespace

absl::StatusOr<SimulationPlan> ResolveSimulationPlan(const cli::SimulateOptions& options) {
  if (absl::Status s = CheckDeployment(options); !s.ok()) return s;
  absl::StatusOr<EngineLimits> limits = ResolveLimits(options);
  if (!limits.ok()) return limits.status();
  absl::StatusOr<MemoryPlan> memory = PlanMemory(options, *limits);
  if (!memory.ok()) return memory.status();
  absl::StatusOr<EngineConfig> engine = BuildEngineConfig(options, *limits, *memory);
  if (!engine.ok()) return engine.status();
  SimulationPlan plan;
  plan.options = options;
  plan.memory_plan = *std::move(memory);
  plan.engine = *std::move(engine);
  plan.cost_request = BuildCostRequest(options, plan.memory_plan);
  plan.config = BuildConfigEcho(options, plan.engine);
  plan.title = Title(options);
  return plan;
}

}  // namespace infergrid
