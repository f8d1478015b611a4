// TensorRT-LLM's pools per attention window (kv_cache_config.max_attention_window, which
// TensorRT-LLM calls variable sliding window attention), as the C++ KV cache manager of the
// releases modelled sizes them (EnginePersonality.max_attention_window_source):
//   - layer i takes window vec[i mod len(vec)]; the layers of each distinct window share a pool;
//   - pool w gets the share (bytes_w x w x layers_w) / sum over windows of the same, where
//     bytes_w is the K and V bytes per token of its layers; for windows with equal layer counts
//     (gpt-oss) that is w / sum of the windows;
//   - its blocks are the budget x share / bytes_w tokens, in whole blocks;
//   - a sequence of n tokens holds ceil(min(n, w) / B) blocks of pool w (cyclic window blocks).
// Internal to sim/core/memory_plan.
#ifndef INFERGRID_SIM_CORE_MEMORY_PLAN_TRTLLM_WINDOW_POOLS_H_
#define INFERGRID_SIM_CORE_MEMORY_PLAN_TRTLLM_WINDOW_POOLS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "models/kv_cache_groups.h"
#include "sim/core/memory_plan/memory_plan.h"
#include "sim/core/personality/engine_personality.pb.h"

namespace infergrid::memory_plan_internal {

// The pools --max-attention-window asks for, largest window first, without their blocks (those
// need the budget: SizeWindowPools); empty when it asks for one pool of every token (no list, or
// every window max_model_len). InvalidArgument, naming the flag, where the list is not what the
// engine and the model allow: an engine without the setting, a window above max_model_len, a
// full-attention or chunked layer given less than max_model_len (the engine would then attend
// only within it, another model), a sliding-window layer given less than its window, every layer
// windowed below max_model_len (one cyclic pool, not modelled), pipeline stages, more distinct
// windows than the block manager keeps, or a block-count override.
absl::StatusOr<std::vector<KvWindowPool>> PlanWindowPools(const MemoryPlanRequest& request,
                                                          const EnginePersonality& personality, int64_t max_model_len,
                                                          int64_t bytes_per_token_layer);

// Fills each pool's share and blocks from the KV budget per GPU, in blocks of `block_size`.
void SizeWindowPools(double kv_cache_bytes, int block_size, std::vector<KvWindowPool>* pools);

// "2 pools: 12 layers x 128-token window (share 0.000976, 66 blocks), 12 layers x 131072 (...)".
std::string DescribeWindowPools(const std::vector<KvWindowPool>& pools);

}  // namespace infergrid::memory_plan_internal

#endif  // INFERGRID_SIM_CORE_MEMORY_PLAN_TRTLLM_WINDOW_POOLS_H_
