#include "sim/core/simulator/simulation_setup.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/dtype.h"
#include "base/units.h"
#include "hardware/gpu_catalog.h"
#include "models/parameter_count.h"
#include "sim/core/engine/autoscale_policy.h"
#include "base/usage_error.h"
#include "sim/core/memory_plan/memory_plan_detail.h"
#include "sim/core/memory_plan/speculative_memory.h"
#include "sim/core/personality/front_end_model.h"
#include "sim/core/personality/personality_catalog.h"

namespace infergrid {
namespace {

// Tensor parallelism as simulate models it: one pipeline stage, inside one node or in whole
// nodes of one NVLink domain (GB200 NVL72), heads divisible.
absl::Status CheckDeployment(const SimulationSettings& o) {
  if (o.memory.pipeline_parallel != 1) {
    return UsageError("--pipeline-parallel-size: simulate models tensor parallelism only (use 1)");
  }
  const int tp = o.memory.tensor_parallel;
  const int gpus = tp * o.memory.attention_data_parallel;  // per replica
  const std::string what = o.memory.attention_data_parallel > 1
                               ? absl::StrCat(gpus, " GPUs of ", o.memory.attention_data_parallel, " attention ranks")
                               : absl::StrCat("--tensor-parallel-size=", tp);
  const int node = GpusPerNode(o.setup.gpu);
  const int domain = NvlinkDomainGpus(o.setup.gpu);
  if (gpus > domain) {
    return UsageError(absl::StrCat(what, " does not fit ", o.setup.gpu.name(), "'s NVLink domain of ", domain,
                                   " GPUs (a replica stays inside one NVLink domain)"));
  }
  if (gpus > node && gpus % node != 0) {
    return UsageError(absl::StrCat(what, " spans nodes of ", node, " GPUs on ", o.setup.gpu.name(),
                                   ": above one node it must be a multiple of ", node));
  }
  if (o.setup.model.num_attention_heads() % tp != 0) {
    return UsageError(absl::StrCat("--tensor-parallel-size=", tp, " does not divide the ",
                                   o.setup.model.num_attention_heads(), " attention heads of ", o.setup.model.name()));
  }
  return absl::OkStatus();
}

// "gpu-memory-utilization" for "gpu_memory_utilization": a flag as the command line spells it.
std::string Dashed(absl::string_view flag) { return absl::StrReplaceAll(flag, {{"_", "-"}}); }

// SGLang's --max-prefill-tokens default: the prefill budget when chunking is off.
constexpr int64_t kSglangMaxPrefillTokens = 16384;

// The limits the engine runs with and its memory plan: the user's limits, else the engine's
// defaults as its memory plan resolves them (one home for both).
struct EngineLimits {
  int64_t max_model_len = 0;
  int64_t max_num_seqs = 0;
  int64_t max_num_batched_tokens = 0;
  int64_t chunk_size = 0;
  SchedulerKind scheduler = SchedulerKind::kVllm;
  bool guaranteed_no_evict = false;  // the engine reserves a request's whole length at admission
  bool whole_prompts = false;  // SGLang with chunking off
  std::string fraction_flag;  // the engine's memory-fraction flag, dashed ("gpu-memory-utilization")
  double watermark = 0;
  MemoryPlan memory;
  DraftMemory draft;  // speculative decoding's proposer (zero without one)
};

absl::StatusOr<EngineLimits> ResolveEngineLimits(const SimulationSettings& o, const EnginePersonality& p) {
  // Each flag belongs to the engines whose personality has the behaviour it configures.
  if (o.chunked_prefill_size != 0 && p.execution().batch_policy() != PREFILL_FIRST_CHUNKED) {
    return UsageError(absl::StrCat("--chunked-prefill-size is not a ", PersonalityName(p),
                                   " flag (SGLang's; --chunk-size sets any chunked scheduler's chunk)"));
  }
  if (o.guaranteed_no_evict.has_value() && !p.execution().guaranteed_no_evict()) {
    return UsageError(absl::StrCat("--capacity-scheduler-policy is not a ", PersonalityName(p), " flag"));
  }
  const bool chunked_policy = p.execution().batch_policy() == CHUNKED_PREFILL;
  const bool chunked_prompts = p.execution().batch_policy() == PREFILL_FIRST_CHUNKED;
  MemoryPlanRequest request = o.memory;
  request.enable_cuda_graphs = o.cuda_graphs;
  // Chunked prefill asked of an engine that prefills whole prompts by default: its chunked
  // budget (vLLM V0: 512 tokens), unless the user gives one.
  if (o.scheduler == SchedulerKind::kSarathi && !chunked_policy && request.max_num_batched_tokens == 0 &&
      p.chunked_prefill_tokens() > 0) {
    request.max_num_batched_tokens = p.chunked_prefill_tokens();
  }
  absl::StatusOr<MemoryPlanDetail> detail = ExplainEngineMemory(request);
  if (!detail.ok()) return detail.status();
  EngineLimits limits;
  limits.max_model_len = detail->max_model_len;
  limits.max_num_seqs = detail->max_num_seqs;
  limits.max_num_batched_tokens = detail->max_num_batched_tokens;
  limits.watermark = p.watermark_fraction();
  // The engine's batch policy, or chunked prefill where the engine turns it on itself (vLLM V0
  // above 32K contexts: its default budget then cannot hold a whole prompt).
  const bool auto_chunked = o.memory.max_num_batched_tokens == 0 && p.chunked_prefill_above() > 0 &&
                            limits.max_num_batched_tokens < limits.max_model_len;
  limits.scheduler = o.scheduler.value_or(chunked_policy || auto_chunked ? SchedulerKind::kSarathi
                                          : chunked_prompts              ? SchedulerKind::kSglang
                                                                         : SchedulerKind::kVllm);
  if (limits.scheduler == SchedulerKind::kSglang && o.preemption == PreemptionMode::kSwap) {
    return UsageError(
        "--preemption-mode=swap: the sglang scheduler retracts requests to be prefilled again, as SGLang "
        "does (it has no swap)");
  }
  if (limits.scheduler == SchedulerKind::kVllm && limits.max_num_batched_tokens < limits.max_model_len) {
    if (o.memory.max_num_batched_tokens > 0) {
      // vLLM refuses this without chunked prefill: a long prompt could never be scheduled.
      return UsageError(
          absl::StrCat("--max-num-batched-tokens=", limits.max_num_batched_tokens,
                       " is smaller than --max-model-len=", limits.max_model_len,
                       "; without chunked prefill (--scheduler=sarathi) a prompt of max_model_len could never run"));
    }
    // An engine whose prompts are chunked, run with whole prompts (--scheduler=vllm): a prompt
    // of max_model_len must fit one iteration.
    limits.max_num_batched_tokens = limits.max_model_len;
  }
  // SGLang's --chunked-prefill-size=-1: whole prompts up to max_prefill_tokens a prefill.
  limits.whole_prompts = o.chunked_prefill_size < 0;
  limits.chunk_size = o.chunk_size > 0             ? o.chunk_size
                      : o.chunked_prefill_size > 0 ? o.chunked_prefill_size
                      : limits.whole_prompts       ? kSglangMaxPrefillTokens
                                                   : limits.max_num_batched_tokens;
  limits.guaranteed_no_evict = o.guaranteed_no_evict.value_or(p.execution().guaranteed_no_evict());
  limits.fraction_flag = Dashed(p.fraction_flag());
  limits.memory = std::move(detail->plan);
  const SpeculativeSettings& s = o.speculative;
  if (s.enabled() && s.proposer.has_value()) {
    limits.draft = ComputeDraftMemory(*s.proposer, s.method != SpeculativeMethod::kDraftModel, o.setup.weights,
                                      o.memory.kv_dtype, o.memory.tensor_parallel, p);
    if (absl::Status st = AddDraftToPlan(limits.draft, request, limits.memory); !st.ok()) return st;
  }
  return limits;
}

// Speculative decoding on the policy; usage errors where the engine model cannot run it.
absl::Status AddSpeculation(const SimulationSettings& o, const EngineLimits& limits, ExecutionPolicy& policy) {
  const SpeculativeSettings& s = o.speculative;
  if (!s.enabled()) return absl::OkStatus();
  if (limits.scheduler != SchedulerKind::kVllm && limits.scheduler != SchedulerKind::kSglang &&
      limits.scheduler != SchedulerKind::kSarathi) {
    return UsageError(
        absl::StrCat("--num-speculative-tokens: speculative decoding runs with the vllm, sglang and sarathi "
                     "schedulers (paged KV with lookahead slots), not --scheduler=",
                     NameOf(kSchedulerNames, limits.scheduler)));
  }
  if (policy.num_scheduler_steps > 1) {
    return UsageError(
        "--num-speculative-tokens: vLLM runs speculative decoding without multi-step scheduling "
        "(--num-scheduler-steps)");
  }
  SpeculationPolicy& p = policy.speculation;
  p.num_speculative_tokens = s.num_speculative_tokens;
  p.acceptance = s.acceptance;
  p.acceptance_text = s.acceptance_text;
  p.method = std::string(NameOf(kSpeculativeMethodNames, s.method));
  if (s.method == SpeculativeMethod::kDraftModel) p.draft_model = s.proposer->name();
  p.draft_weight_bytes = limits.draft.weight_bytes;
  p.draft_kv_bytes_per_token = limits.draft.kv_bytes_per_token;
  return absl::OkStatus();
}

// CUDA-graph sizes and multi-step scheduling as the personality's execution says.
absl::StatusOr<ExecutionPolicy> BuildExecutionPolicy(const SimulationSettings& o, const EnginePersonality& p,
                                                     const EngineLimits& limits) {
  const ExecutionModel& x = p.execution();
  ExecutionPolicy policy;
  const CudaGraphCapture& g = x.cuda_graphs();
  if (o.cuda_graphs && g.sizes_size() > 0) {
    std::vector<SizeRangeSpec> ranges;
    for (const SizeRange& r : g.sizes()) ranges.push_back({r.start(), r.end(), r.step()});
    int64_t max_size =
        g.large_tp_from() > 0 && o.memory.tensor_parallel >= g.large_tp_from() ? g.max_size_large_tp() : g.max_size();
    if (max_size == 0) {
      // max_num_seqs rounded up to a captured size, times the factor, capped.
      const std::vector<int64_t> all = CaptureSizes(ranges, int64_t{1} << 30);
      const auto up = std::lower_bound(all.begin(), all.end(), limits.max_num_seqs);
      max_size = static_cast<int64_t>((up == all.end() ? limits.max_num_seqs : *up) *
                                      (g.max_seqs_factor() > 0 ? g.max_seqs_factor() : 1));
      if (g.max_size_cap() > 0) max_size = std::min<int64_t>(max_size, g.max_size_cap());
    }
    policy.graphs.sizes = CaptureSizes(ranges, max_size);
    policy.graphs.keyed_on_tokens = g.keyed_on_tokens();
    policy.graphs.pad = g.pad();
    policy.graphs.decode_only = g.decode_only();
    policy.graphs.piecewise_mixed = g.piecewise_mixed();
    policy.graphs.max_decode_context = g.max_decode_context();
  }
  policy.num_scheduler_steps = o.num_scheduler_steps > 0 ? o.num_scheduler_steps : std::max(1, x.num_scheduler_steps());
  if (policy.num_scheduler_steps > 1 && !x.supports_multi_step()) {
    return UsageError(absl::StrCat("--num-scheduler-steps is not a ", PersonalityName(p),
                                   " flag (multi-step scheduling is a vLLM 0.6 V0 feature: --engine=vllm-v0@0.6.5)"));
  }
  policy.stream_each_step = o.multi_step_stream_outputs.value_or(x.multi_step_streams_each_step());
  const StreamInterval& stream = x.stream_interval();
  if (o.stream_interval > 0 && stream.rule() == STREAM_INTERVAL_NONE) {
    return UsageError(absl::StrCat("--stream-interval is not a ", PersonalityName(p),
                                   " flag (vLLM V1, SGLang and TensorRT-LLM's PyTorch backend have one)"));
  }
  policy.stream.interval = o.stream_interval > 0 ? o.stream_interval : std::max(1, stream.default_interval());
  switch (stream.rule()) {
    case REQUEST_TOKEN_MULTIPLE: policy.stream.rule = StreamRule::kTokenMultiple; break;
    case DECODE_BATCH_MULTIPLE: policy.stream.rule = StreamRule::kDecodeBatchMultiple; break;
    default: policy.stream.rule = StreamRule::kTokensSinceSent; break;
  }
  policy.schedules_ahead = x.schedules_ahead() && o.overlap_disabled_by.empty();
  if (absl::Status s = AddSpeculation(o, limits, policy); !s.ok()) return s;
  for (const std::string& flag : o.overlap_disabled_by) {
    if (flag != x.disable_overlap_flag()) {
      return UsageError(absl::StrCat("--", Dashed(flag), " is not a ", PersonalityName(p), " flag"));
    }
  }
  return policy;
}

// TensorRT-LLM's pools per window (--max-attention-window) in the block manager: what runs with
// them (usage errors naming the flag for what does not), and FailedPrecondition when a pool
// cannot hold one max_model_len request's window.
absl::Status CheckWindowPools(const SimulationSettings& o, const EngineLimits& limits, const KvCacheLayout& kv) {
  if (kv.window_pools.empty()) return absl::OkStatus();
  std::string refused;
  if (o.prefix_caching) refused = "--enable-prefix-caching (cyclic window blocks are not reused)";
  if (o.preemption == PreemptionMode::kSwap) refused = "--preemption-mode=swap";
  if (o.prefill_replicas > 0) refused = "--pd (each pool's KV transfer)";
  if (limits.scheduler == SchedulerKind::kSglang) refused = "--scheduler=sglang";
  if (!refused.empty()) {
    return UsageError(absl::StrCat("--max-attention-window with ", refused, " is not modelled"));
  }
  for (size_t i = 1; i < kv.window_pools.size(); ++i) {
    const KvWindowPool& pool = kv.window_pools[i];
    const int64_t needed =
        std::min(pool.WindowBlocks(kv.block_size), (limits.max_model_len + kv.block_size - 1) / kv.block_size);
    if (needed > pool.num_blocks) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the ", pool.window_tokens, "-token window's pool holds ", pool.num_blocks, " blocks, fewer than the ",
          needed, " one request holds; widen the window or raise --free-gpu-memory-fraction"));
    }
  }
  return absl::OkStatus();
}

// The engine's configuration; FailedPrecondition when one max_model_len request cannot fit the
// blocks above the watermark.
absl::StatusOr<EngineConfig> BuildEngineConfig(const SimulationSettings& o, const EngineLimits& limits,
                                               ExecutionPolicy policy) {
  const KvCacheLayout kv = limits.memory.kv();
  EngineConfig e;
  e.layout.num_replicas = o.num_replicas;
  e.layout.tensor_parallel = o.memory.tensor_parallel * o.memory.attention_data_parallel;
  e.attention_data_parallel = o.memory.attention_data_parallel;
  e.layout.gpus_per_node = GpusPerNode(o.setup.gpu);
  e.layout.nvlink_domain_gpus = NvlinkDomainGpus(o.setup.gpu);
  e.scheduler = limits.scheduler;
  e.limits.max_num_seqs = limits.max_num_seqs;
  e.limits.max_num_batched_tokens = limits.max_num_batched_tokens;
  e.limits.chunk_size = limits.chunk_size;
  e.limits.guaranteed_no_evict = limits.guaranteed_no_evict;
  e.limits.whole_prompts = limits.whole_prompts;
  e.limits.preemption = o.preemption;
  e.limits.lookahead_slots = policy.speculation.num_speculative_tokens;
  e.blocks.num_gpu_blocks = kv.num_blocks;
  e.blocks.block_size = kv.block_size;
  e.blocks.groups = kv.groups;
  e.blocks.watermark = limits.watermark;
  e.blocks.prefix_caching = o.prefix_caching;
  if (o.prefix_caching && kv.groups.hybrid()) {
    // vLLM caches window groups' blocks too, but a hit needs the window's run of cached blocks
    // beside the full groups' prefix: the block manager's one-key-per-block cache cannot say it.
    return absl::InvalidArgumentError(absl::StrCat("--enable-prefix-caching with ", o.setup.model.name(),
                                                   "'s sliding-window KV groups (", kv.groups.Describe(),
                                                   ") is not modelled; run without it"));
  }
  if (o.prefix_caching && limits.memory.state_pool_slots > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--enable-prefix-caching with ", o.setup.model.name(),
        " on this SGLang release: it turns its radix cache "
        "off for models with linear-attention layers (\"Hybrid GDN model detected, disable radix cache\")"));
  }
  if (absl::Status s = CheckWindowPools(o, limits, kv); !s.ok()) return s;
  if (!kv.window_pools.empty()) e.blocks.window_pools.assign(kv.window_pools.begin() + 1, kv.window_pools.end());
  e.blocks.num_cpu_blocks = kv.BlockBytes() > 0 ? static_cast<int64_t>(o.swap_space_gib * kGiB / kv.BlockBytes()) : 0;
  e.router = o.router;
  e.prefill_replicas = o.prefill_replicas;
  e.decode_router = o.decode_router;
  e.kv_transfer_latency_s = o.kv_transfer_latency_s;
  e.layout.fabric_bytes_per_s = o.fabric_bytes_per_s;
  e.layout.fabric_latency_s = o.fabric_latency_s;
  e.max_model_len = limits.max_model_len;
  e.num_layers = o.setup.model.num_layers();
  e.hidden_size = o.setup.model.hidden_size();
  e.activation_bytes = 2;
  // All-to-all dispatch and combine: each GPU sends its 1/TP of the tokens' k copies, of which
  // (TP - 1) / TP leave it, twice per expert layer.
  if (o.expert_parallel.dispatch == ExpertParallelism::Dispatch::kAllToAll && o.memory.tensor_parallel > 1) {
    const double tp = o.memory.tensor_parallel;
    e.all_to_all_bytes_per_token =
        2.0 * static_cast<double>(ExpertLayers(o.setup.model)) * o.setup.model.moe().experts_per_token() *
        static_cast<double>(o.setup.model.hidden_size()) * e.activation_bytes * (tp - 1) / (tp * tp);
  }
  e.kv_bytes_per_token = kv.bytes_per_token;
  e.coalesce = o.coalesce;
  e.fleet_run_ahead = o.fleet_run_ahead;
  e.max_concurrency = o.max_concurrency;
  e.cost_stride = o.cost_stride;
  e.execution = std::move(policy);
  const int64_t usable = kv.num_blocks - WatermarkBlocks(e.blocks);
  // A sequence at max_model_len still reserves its speculative lookahead slots.
  const int64_t needed = kv.groups.BlocksFor(limits.max_model_len + e.limits.lookahead_slots, kv.block_size);
  if (needed > usable) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--max-model-len=", limits.max_model_len, " needs ", needed, " KV blocks but the memory plan leaves ",
        kv.num_blocks, " (", usable, " above the watermark); lower --max-model-len or raise --", limits.fraction_flag));
  }
  return e;
}

CostModelRequest BuildCostRequest(const SimulationSettings& o, const EnginePersonality& p, const MemoryPlan& memory,
                                  const DraftMemory& draft) {
  CostModelRequest c;
  c.kind = o.cost_model;
  c.model = o.setup.model;
  c.gpu = o.setup.gpu;
  c.compute_dtype = o.setup.compute_dtype;
  c.weights = o.setup.weights;
  c.weight_bytes_per_gpu = memory.weight_bytes - draft.weight_bytes;  // the plan's weights include the draft's
  c.kv = memory.kv();
  c.active_parameters = o.setup.parameters.active_per_token();
  c.tensor_parallel = o.memory.tensor_parallel;
  c.attention_data_parallel = o.memory.attention_data_parallel;
  c.enable_cuda_graphs = o.cuda_graphs;
  c.calibration_path = o.calibration_path;
  c.execution = p.execution();
  c.engine = PersonalityName(p);
  c.cpu_speed = o.cpu_speed;
  c.overlap = o.overlap_disabled_by.empty();
  // As BuildExecutionPolicy resolves it: the flag, else the engine's default.
  c.num_scheduler_steps =
      o.num_scheduler_steps > 0 ? o.num_scheduler_steps : std::max(1, p.execution().num_scheduler_steps());
  c.custom_all_reduce = o.custom_all_reduce;
  c.expert_parallel = o.expert_parallel;
  const SpeculativeSettings& s = o.speculative;
  if (s.enabled()) {
    SpeculativeCostRequest spec;
    spec.draft = s.proposer;
    if (s.proposer.has_value()) {
      spec.draft_weight_bytes_per_gpu = draft.pass_weight_bytes;
      spec.draft_kv_bytes_per_token = draft.kv_bytes_per_token;
      spec.draft_active_parameters = static_cast<double>(ActiveParametersPerToken(*s.proposer));
      spec.proposer = s.method == SpeculativeMethod::kDraftModel
                          ? absl::StrCat(s.proposer->name(), " draft")
                          : absl::StrCat(NameOf(kSpeculativeMethodNames, s.method), " head");
    } else {
      spec.ngram_host_s_per_sequence = kNgramHostSecondsPerSequence;
    }
    c.speculation = std::move(spec);
  }
  return c;
}

// The serving front end as the personality describes it, its CPU times scaled by --cpu-speed;
// none when --front-end=false or for the offline benchmarks.
absl::StatusOr<FrontEndSpec> BuildFrontEnd(const SimulationSettings& o, const EnginePersonality& p) {
  FrontEndModel m = p.execution().front_end();
  if (!o.front_end_file.empty()) {
    absl::StatusOr<FrontEndModel> file = ReadFrontEndModel(o.front_end_file);
    if (!file.ok()) return UsageError(absl::StrCat("--front-end-file: ", file.status().message()));
    // A file without a process would turn the front end off under a run that says it has one.
    if (file->process_size() == 0) {
      return UsageError(absl::StrCat("--front-end-file=", o.front_end_file,
                                     ": no process (an empty front end); give its processes, or run with "
                                     "--front-end=false"));
    }
    m = *std::move(file);
  }
  if (o.api_server_count > 0 && m.servers_flag() != "api_server_count") {
    return UsageError(absl::StrCat("--api-server-count is not a ", PersonalityName(p),
                                   " flag (vLLM V1's API server processes: --engine=vllm-v1)"));
  }
  FrontEndSpec spec;
  if (!o.front_end) return spec;
  spec.in_engine_process = m.in_engine_process();
  const double scale = 1.0 / o.cpu_speed;
  for (const FrontEndProcessModel& process : m.process()) {
    FrontEndProcess f;
    f.name = process.name();
    f.servers = std::max(1, process.servers());
    if (spec.processes.empty() && o.api_server_count > 0) f.servers = o.api_server_count;
    f.request_s = process.request_s() * scale;
    f.prompt_token_s = process.prompt_token_s() * scale;
    f.step_s = process.step_s() * scale;
    f.output_token_s = process.output_token_s() * scale;
    spec.processes.push_back(std::move(f));
  }
  return spec;
}

// The autoscaler's settings (EngineConfig::autoscale); a usage error naming the flag for a
// combination it does not model.
absl::StatusOr<AutoscaleConfig> BuildAutoscale(const SimulationSettings& o, const MemoryPlan& memory) {
  AutoscaleConfig a;
  const bool given = !o.autoscale.empty();
  if (!given) {
    if (o.min_replicas != 1) return UsageError("--min-replicas needs --autoscale");
    if (o.replica_startup_s.has_value()) return UsageError("--replica-startup needs --autoscale");
    return a;
  }
  absl::StatusOr<AutoscaleTarget> target = ParseAutoscaleTarget(o.autoscale);
  if (!target.ok()) return UsageError(absl::StrCat("--autoscale=", o.autoscale, ": ", target.status().message()));
  if (o.min_replicas > o.num_replicas) {
    return UsageError(absl::StrCat("--min-replicas=", o.min_replicas, " is above --num-replicas=", o.num_replicas,
                                   " (the most replicas the autoscaler turns on)"));
  }
  if (o.prefill_replicas > 0) return UsageError("--autoscale with --pd (disaggregation) is not modelled");
  if (o.memory.attention_data_parallel > 1) {
    return UsageError(
        "--autoscale with attention data parallelism (--data-parallel-size, --enable-dp-attention) is not modelled");
  }
  a.enabled = true;
  a.target = *target;
  a.min_replicas = o.min_replicas;
  a.interval_s = o.autoscale_interval_s;
  a.scale_down_delay_s = o.scale_down_delay_s;
  a.startup_s = o.replica_startup_s.value_or(DefaultReplicaStartup(memory.weight_bytes));
  return a;
}

std::string Title(const SimulationSettings& o) {
  const int replicas = o.num_replicas;
  const int tp = o.memory.tensor_parallel;
  const int dp = o.memory.attention_data_parallel;
  const std::string gpus = replicas * tp * dp == 1 ? "1 x " : absl::StrCat(replicas * tp * dp, " x ");
  std::string title = absl::StrCat(o.setup.model.display_name(), " on ", gpus, o.setup.gpu.display_name());
  if (replicas > 1 || tp > 1 || dp > 1) {
    absl::StrAppend(&title, " (", replicas, " replica", replicas > 1 ? "s" : "",
                    dp > 1 ? absl::StrCat(" x DP ", dp) : "", " x TP ", tp, ")");
  }
  return title;
}

}  // namespace

absl::StatusOr<SimulationSetup> ResolveSimulation(const SimulationSettings& options) {
  if (absl::Status s = CheckDeployment(options); !s.ok()) return s;
  absl::StatusOr<ResolvedEngine> resolved = ResolveEngine(options.memory.engine);
  if (!resolved.ok()) return UsageError(absl::StrCat("--engine: ", resolved.status().message()));
  const EnginePersonality& personality = resolved->personality;
  absl::StatusOr<EngineLimits> limits = ResolveEngineLimits(options, personality);
  if (!limits.ok()) return limits.status();
  absl::StatusOr<ExecutionPolicy> policy = BuildExecutionPolicy(options, personality, *limits);
  if (!policy.ok()) return policy.status();
  absl::StatusOr<EngineConfig> engine = BuildEngineConfig(options, *limits, *std::move(policy));
  if (!engine.ok()) return engine.status();
  absl::StatusOr<FrontEndSpec> front_end = BuildFrontEnd(options, personality);
  if (!front_end.ok()) return front_end.status();
  engine->front_end = *std::move(front_end);
  absl::StatusOr<AutoscaleConfig> autoscale = BuildAutoscale(options, limits->memory);
  if (!autoscale.ok()) return autoscale.status();
  engine->autoscale = *autoscale;
  if (options.noise) {
    engine->noise.iteration_sigma = options.iteration_noise;
    engine->noise.send_jitter_s = options.send_jitter_s;
  }
  SimulationSetup setup;
  setup.gpu = options.setup.gpu;
  setup.personality = personality;
  setup.memory_plan = std::move(limits->memory);
  setup.engine = *std::move(engine);
  setup.cost_request = BuildCostRequest(options, setup.personality, setup.memory_plan, limits->draft);
  setup.engine_note = std::move(resolved->note);
  setup.title = Title(options);
  return setup;
}

}  // namespace infergrid
