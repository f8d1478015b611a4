#include "sim/core/memory_plan/speculative_memory.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/units.h"
#include "models/kv_cache_size.h"
#include "sim/core/memory_plan/weight_memory.h"

namespace infergrid {

DraftMemory ComputeDraftMemory(const ModelSpec& proposer, bool shares_embedding, const WeightFormat& weights,
                               DType kv_dtype, int tensor_parallel, const EnginePersonality& personality) {
  const EngineWeightBytes w =
      ComputeEngineWeightBytes(proposer, weights, tensor_parallel, {proposer.num_layers(), true, true}, personality);
  DraftMemory d;
  d.weight_bytes = shares_embedding ? w.linear + w.replicated : w.Total();
  d.pass_weight_bytes = w.Total();
  d.kv_bytes_per_token = KvBytesPerToken(proposer, kv_dtype, tensor_parallel);
  return d;
}

absl::Status AddDraftToPlan(const DraftMemory& draft, const MemoryPlanRequest& request, MemoryPlan& plan) {
  // SGLang sizes the draft's pool from the split pools, and allocates per-request draft states
  // beside its Mamba pool: neither is modelled, so neither is priced as something else.
  if (!plan.window_pools.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--speculative-model with --max-attention-window on ", plan.engine,
                                                   ": the draft's KV beside per-window pools is not modelled"));
  }
  if (plan.swa_pool_tokens > 0 || plan.state_pool_slots > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--speculative-model with ", request.model.name(), " on ", plan.engine, ": the draft beside SGLang's ",
        plan.swa_pool_tokens > 0 ? "hybrid SWA pool" : "Mamba pool", " is not modelled"));
  }
  plan.weight_bytes += draft.weight_bytes;
  if (request.kv_cache_memory_bytes <= 0) plan.kv_cache_bytes -= draft.weight_bytes;
  if (plan.kv_cache_bytes <= 0) {
    return absl::FailedPreconditionError(
        absl::StrFormat("--speculative-model: the draft's %.2f GiB of weights leave no memory for the KV cache",
                        draft.weight_bytes / kGiB));
  }
  if (request.num_gpu_blocks_override <= 0) {
    const double block_bytes =
        static_cast<double>(plan.block_size) * static_cast<double>(plan.kv_bytes_per_token + draft.kv_bytes_per_token);
    plan.num_blocks = static_cast<int64_t>(std::floor(plan.kv_cache_bytes / block_bytes));
    plan.kv_tokens = plan.kv_groups.CapacityTokens(plan.num_blocks, plan.block_size);
  }
  plan.log_lines.push_back(absl::StrFormat(
      "speculative decoding: draft weights %.2f GiB, draft KV %d B/token; %d blocks of target + draft KV",
      draft.weight_bytes / kGiB, draft.kv_bytes_per_token, plan.num_blocks));
  return absl::OkStatus();
}

}  // namespace infergrid
