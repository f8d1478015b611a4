// vLLM (V1 and V0): KV = total * gpu_memory_utilization - (weights + activation peak +
// non-torch increase [+ CUDA-graph estimate where the version subtracts it]).
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/core/memory_plan/engine_rules.h"

namespace infergrid::memory_plan_internal {

absl::Status ApplyVllmRule(const MemoryPlanRequest& request, MemoryPlanDetail* detail) {
  const EnginePersonality& p = detail->personality;
  detail->fraction_flag = "gpu_memory_utilization";
  detail->fraction = request.gpu_memory_utilization;
  detail->fraction_origin = request.gpu_memory_utilization == p.default_fraction() ? "default" : "given";
  detail->cuda_graph_subtracted = p.cuda_graph().subtracted() && request.enable_cuda_graphs;
  const double budget = detail->plan.total_bytes * detail->fraction;
  detail->plan.budget_bytes = budget;
  FillProfileRunTerms(request, detail);
  for (size_t i = 0; i < detail->stages.size(); ++i) {
    StagePlan& stage = detail->stages[i];
    stage.cuda_graph_bytes = CudaGraphEstimateBytes(p.cuda_graph(), stage.layers, request.enable_cuda_graphs);
    const double weights = stage.weights.Total();
    const double non_kv = weights + stage.activation.peak + stage.non_torch_bytes +
                          (detail->cuda_graph_subtracted ? stage.cuda_graph_bytes : 0);
    stage.kv_cache_bytes = budget - non_kv;
    if (request.kv_cache_memory_bytes > 0) continue;  // --kv-cache-memory: no profiling budget
    if (weights > budget) {
      return absl::FailedPreconditionError(
          absl::StrFormat("%s does not fit: its weights take %.2f GiB per GPU%s, %.2f GiB more than "
                          "gpu_memory_utilization %.2f x %.2f GiB = %.2f GiB allows; raise "
                          "--tensor-parallel-size/--pipeline-parallel-size or quantize the weights",
                          request.model.display_name().empty() ? request.model.name() : request.model.display_name(),
                          weights / kGiB, detail->stages.size() > 1 ? absl::StrCat(" on stage ", i) : "",
                          (weights - budget) / kGiB, detail->fraction, detail->plan.total_bytes / kGiB, budget / kGiB));
    }
    if (stage.kv_cache_bytes <= 0) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "no memory left for the KV cache: weights %.2f + activation peak %.2f + non-torch %.2f%s "
          "GiB exceed gpu_memory_utilization %.2f x %.2f GiB = %.2f GiB by %.2f GiB; raise "
          "--gpu-memory-utilization, lower --max-num-batched-tokens/--max-num-seqs or add GPUs",
          weights / kGiB, stage.activation.peak / kGiB, stage.non_torch_bytes / kGiB,
          detail->cuda_graph_subtracted ? absl::StrFormat(" + CUDA graphs %.2f", stage.cuda_graph_bytes / kGiB) : "",
          detail->fraction, detail->plan.total_bytes / kGiB, budget / kGiB, -stage.kv_cache_bytes / kGiB));
    }
  }
  return absl::OkStatus();
}

void WriteVllmLog(const MemoryPlanRequest& request, MemoryPlanDetail* detail) {
  const MemoryPlan& plan = detail->plan;
  const StagePlan& stage = detail->stages[detail->limiting_stage];
  std::vector<std::string>& log = detail->plan.log_lines;
  // With window groups vLLM logs the pool's blocks over the groups as tokens, and concurrency
  // as the blocks over what one max_model_len request needs at most.
  const bool hybrid = plan.kv_groups.hybrid();
  const int64_t logged_tokens = hybrid ? plan.num_blocks / plan.kv_groups.groups() * plan.block_size : plan.kv_tokens;
  const double concurrency =
      hybrid ? static_cast<double>(plan.num_blocks) / static_cast<double>(HybridBlocksPerRequest(*detail))
             : static_cast<double>(plan.kv_tokens) / static_cast<double>(detail->max_model_len);
  const std::string weights = Gib(stage.weights.Total());
  const std::string activation = Gib(stage.activation.peak);
  const std::string non_torch = Gib(stage.non_torch_bytes);
  if (detail->personality.engine() == "vllm-v0") {
    log.push_back(absl::StrCat("Loading model weights took ", weights, " GiB"));
    log.push_back(absl::StrCat("the current vLLM instance can use total_gpu_memory (", Gib(plan.total_bytes),
                               "GiB) x gpu_memory_utilization (", absl::StrFormat("%.2f", detail->fraction),
                               ") = ", Gib(plan.budget_bytes), "GiB"));
    log.push_back(absl::StrCat("model weights take ", weights, "GiB; non_torch_memory takes ", non_torch,
                               "GiB; PyTorch activation peak memory takes ", activation,
                               "GiB; the rest of the memory reserved for KV Cache is ", Gib(plan.kv_cache_bytes),
                               "GiB."));
    log.push_back(absl::StrCat("# GPU blocks: ", plan.num_blocks));
    log.push_back(absl::StrCat("Maximum concurrency for ", detail->max_model_len,
                               " tokens per request: ", absl::StrFormat("%.2f", concurrency), "x"));
    return;
  }
  log.push_back(absl::StrCat("Model loading took ", weights, " GiB memory"));
  log.push_back(absl::StrCat("requested memory ", Gib(plan.budget_bytes), " GiB = total ", Gib(plan.total_bytes),
                             " GiB x gpu_memory_utilization ", absl::StrFormat("%.2f", detail->fraction)));
  const double non_kv = stage.weights.Total() + stage.activation.peak + stage.non_torch_bytes +
                        (detail->cuda_graph_subtracted ? stage.cuda_graph_bytes : 0);
  log.push_back(
      absl::StrCat("Total non-KV cache memory: ", Gib(non_kv), "GiB; torch peak memory increase: ", activation,
                   "GiB; non-torch forward increase memory: ", non_torch, "GiB; weights memory: ", weights, "GiB."));
  if (request.enable_cuda_graphs) {
    log.push_back(absl::StrCat("Estimated CUDA graph memory: ", Gib(stage.cuda_graph_bytes), " GiB (",
                               detail->cuda_graph_subtracted ? "subtracted from" : "not subtracted from",
                               " the KV cache budget in this version)"));
  }
  log.push_back(absl::StrCat("Available KV cache memory: ", Gib(plan.kv_cache_bytes), " GiB"));
  log.push_back(absl::StrCat("GPU KV cache size: ", Thousands(logged_tokens), " tokens"));
  log.push_back(absl::StrCat("Maximum concurrency for ", Thousands(detail->max_model_len),
                             " tokens per request: ", absl::StrFormat("%.2f", concurrency), "x"));
}

}  // namespace infergrid::memory_plan_internal
