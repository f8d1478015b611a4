// The full derivation behind a MemoryPlan: every term per pipeline stage, the defaults the
// engine applied (fraction, batch limits, block size) and the notes a reader needs to hold
// the plan against a startup log. `infergrid memory --engine` prints this; PlanEngineMemory
// returns its `plan`. Byte counts are per GPU, tokens per replica.
#ifndef INFERGRID_SIM_CORE_MEMORY_PLAN_MEMORY_PLAN_DETAIL_H_
#define INFERGRID_SIM_CORE_MEMORY_PLAN_MEMORY_PLAN_DETAIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/core/memory_plan/activation_memory.h"
#include "sim/core/memory_plan/memory_plan.h"
#include "sim/core/memory_plan/weight_memory.h"
#include "sim/core/personality/engine_personality.pb.h"

namespace infergrid {

struct StagePlan {
  int layers = 0;
  EngineWeightBytes weights;
  ActivationPeak activation;
  double non_torch_bytes = 0;
  double cuda_graph_bytes = 0;
  double free_before_weights_bytes = 0;  // SGLang: free memory when weights start loading
  double available_bytes = 0;  // TensorRT-LLM: free memory the fraction applies to
  double req_to_token_bytes = 0;  // SGLang (newer): request-to-token pool
  double state_pool_bytes = 0;  // SGLang: the Mamba pool of linear-attention states
  double kv_cache_bytes = 0;  // what the rule leaves for KV, before whole blocks
  int64_t kv_bytes_per_token = 0;  // over the layers one block spans
  int64_t num_blocks = 0;
  KvCacheGroups kv_groups{};
};

struct MemoryPlanDetail {
  MemoryPlan plan;  // the stage with the fewest blocks
  EnginePersonality personality;
  std::string fraction_flag;  // "gpu_memory_utilization", ...
  double fraction = 0;
  std::string fraction_origin;  // "given", "default", "default for TP2", "reserve ..."
  int64_t max_num_batched_tokens = 0;  // the profile run's dummy batch (TRT: max_num_tokens)
  int64_t max_num_seqs = 0;  // its sampled rows cap (TRT: max_batch_size)
  int64_t max_model_len = 0;
  bool cuda_graph_subtracted = false;
  std::string total_origin;  // where total_bytes comes from
  int64_t computed_num_blocks = 0;  // before --num-gpu-blocks-override
  int limiting_stage = 0;
  std::vector<StagePlan> stages;
  std::vector<std::string> notes;
};

// As PlanEngineMemory, with the derivation. A request block_size <= 0 takes the engine's
// default (vLLM 16, SGLang 1, TensorRT-LLM 32 or 64).
absl::StatusOr<MemoryPlanDetail> ExplainEngineMemory(const MemoryPlanRequest& request);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_MEMORY_PLAN_MEMORY_PLAN_DETAIL_H_
