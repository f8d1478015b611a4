// TensorRT-LLM: the fraction applies to what is free after weights, runtime buffers and (PyTorch
// backend) the profiling pass:
//   KV = free_gpu_memory_fraction * (total - weights - context - activation profile)
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/core/memory_plan/engine_rules.h"

namespace infergrid::memory_plan_internal {

absl::Status ApplyTrtllmRule(const MemoryPlanRequest& request, MemoryPlanDetail* detail) {
  const EnginePersonality& p = detail->personality;
  detail->fraction_flag = "free_gpu_memory_fraction";
  detail->fraction = request.free_gpu_memory_fraction > 0 ? request.free_gpu_memory_fraction : p.default_fraction();
  detail->fraction_origin = request.free_gpu_memory_fraction > 0 ? "given" : "default";
  FillProfileRunTerms(request, detail);
  for (size_t i = 0; i < detail->stages.size(); ++i) {
    StagePlan& stage = detail->stages[i];
    const double used = stage.weights.Total() + stage.non_torch_bytes + stage.activation.peak;
    stage.available_bytes = detail->plan.total_bytes - used;
    stage.kv_cache_bytes = detail->fraction * stage.available_bytes;
    if (i == 0) detail->plan.budget_bytes = stage.kv_cache_bytes;
    if (request.kv_cache_memory_bytes > 0) continue;
    if (stage.available_bytes <= 0) {
      return absl::FailedPreconditionError(
          absl::StrFormat("%s does not fit: weights %.2f + runtime buffers and activations %.2f GiB exceed the "
                          "%.2f GiB total by %.2f GiB; raise --tensor-parallel-size, lower "
                          "--max-num-batched-tokens/--max-num-seqs or quantize the weights",
                          request.model.display_name().empty() ? request.model.name() : request.model.display_name(),
                          stage.weights.Total() / kGiB, (stage.non_torch_bytes + stage.activation.peak) / kGiB,
                          detail->plan.total_bytes / kGiB, -stage.available_bytes / kGiB));
    }
  }
  return absl::OkStatus();
}

void WriteTrtllmLog(const MemoryPlanRequest&, MemoryPlanDetail* detail) {
  const StagePlan& stage = detail->stages[detail->limiting_stage];
  MemoryPlan& plan = detail->plan;
  double allocated = static_cast<double>(plan.kv_tokens) * static_cast<double>(plan.kv_bytes_per_token);
  if (!plan.window_pools.empty()) {
    allocated = 0;
    for (const KvWindowPool& pool : plan.window_pools) {
      allocated += pool.AllocatedBytes(plan.block_size);
    }
  }
  plan.log_lines.push_back(absl::StrCat(
      "[TensorRT-LLM][INFO] Memory usage when calculating max tokens in paged kv cache: total: ", Gib(plan.total_bytes),
      " GiB, available: ", Gib(stage.available_bytes), " GiB"));
  if (plan.window_pools.empty()) {
    plan.log_lines.push_back(
        absl::StrCat("[TensorRT-LLM][INFO] Number of blocks in KV cache primary pool: ", plan.num_blocks));
  }
  // With several windows the engine logs each pool's blocks at debug level only.
  for (const KvWindowPool& pool : plan.window_pools) {
    plan.log_lines.push_back(
        absl::StrCat("[TensorRT-LLM][DEBUG] Number of blocks in KV cache primary pool for windowSize ",
                     pool.window_tokens, ": ", pool.num_blocks));
  }
  plan.log_lines.push_back(absl::StrCat("[TensorRT-LLM][INFO] Number of tokens per block: ", plan.block_size, "."));
  plan.log_lines.push_back(absl::StrCat("[TensorRT-LLM][INFO] [MemUsageChange] Allocated ", Gib(allocated),
                                        " GiB for max tokens in paged KV cache (", plan.kv_tokens, ")."));
}

}  // namespace infergrid::memory_plan_internal
