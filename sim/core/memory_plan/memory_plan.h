// The KV-cache capacity a serving engine allocates at startup, predicted term by term the way
// the engine itself computes and logs it (vLLM V1/V0, SGLang, TensorRT-LLM). Each engine rule
// lives in a versioned personality (sim/core/personality/engines/*.textproto); every term is
// derived from the model and the deployment, never looked up per model. `infergrid memory
// --engine=...` prints this plan and `simulate` sizes its block manager from it, so both
// agree. All byte counts are per GPU unless stated; tokens are per replica.
#ifndef INFERGRID_SIM_CORE_MEMORY_PLAN_MEMORY_PLAN_H_
#define INFERGRID_SIM_CORE_MEMORY_PLAN_MEMORY_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/dtype.h"
#include "hardware/hardware_spec.pb.h"
#include "models/kv_cache_size.h"
#include "models/model_spec.pb.h"

namespace infergrid {

// The range of each engine flag, one per flag: the command line (sim/app/cli) and
// ExplainEngineMemory check the same bounds and say them the same way ("--flag=V is out of range
// (min..max)").
// vLLM's --gpu-memory-utilization default (EngineArgs), the value that means "not given".
inline constexpr double kDefaultGpuMemoryUtilization = 0.9;
inline constexpr int64_t kMaxEngineCount = (int64_t{1} << 31) - 1;  // --max-num-batched-tokens, --max-num-seqs,
    // --max-model-len, --num-gpu-blocks-override
inline constexpr int kMaxBlockSize = 4096;  // --block-size (0: the engine's)
inline constexpr int kMaxParallelSize = 1024;  // --tensor- and --pipeline-parallel-size

struct MemoryPlanRequest {
  ModelSpec model;
  GpuSpec gpu;
  WeightFormat weights;
  DType kv_dtype = DType::BF16;
  // vllm-v1 | vllm-v0 | sglang | trtllm; a version may be pinned, e.g. "vllm-v1@0.19".
  std::string engine = "vllm-v1";
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  // Expert parallelism over the tensor-parallel group (--enable-expert-parallel): each GPU
  // holds num_experts / TP whole experts instead of a 1/TP shard of each.
  bool expert_parallel = false;
  // Attention data parallelism: this many ranks of tensor_parallel GPUs, each with its own KV
  // cache and batch; the routed experts span all tensor_parallel x attention_data_parallel GPUs.
  // The plan is one rank's (its tokens are per rank); attention and dense weights are replicated
  // across the ranks.
  int attention_data_parallel = 1;
  double gpu_memory_utilization = kDefaultGpuMemoryUtilization;  // vLLM only
  double mem_fraction_static = 0;  // SGLang; 0: the engine's default
  double swa_full_tokens_ratio = 0;  // SGLang's hybrid SWA pool; 0: the personality's
  double free_gpu_memory_fraction = 0;  // TensorRT-LLM; 0: the engine's default
  int64_t max_num_batched_tokens = 0;  // 0: engine default
  int64_t max_num_seqs = 0;  // 0: engine default
  // The engine runs offline (vLLM's LLM class, as the latency and throughput benchmarks run
  // it): the personality's offline batch defaults apply where it has them.
  bool offline = false;
  int64_t max_model_len = 0;  // 0: model's max_position_embeddings
  int block_size = 16;
  bool enable_cuda_graphs = true;
  int64_t num_gpu_blocks_override = 0;  // > 0: use this block count (vLLM's flag)
  double kv_cache_memory_bytes = 0;  // > 0: this many KV bytes per GPU (--kv-cache-memory)
  // TensorRT-LLM's kv_cache_config.max_attention_window: a window per layer, repeated over the
  // layers when shorter; empty: every layer keeps max_model_len tokens in one pool.
  std::vector<int64_t> max_attention_window{};
};

struct MemoryPlan {
  std::string engine;  // resolved personality, e.g. "vllm-v1@0.19"
  double total_bytes = 0;  // device memory as the engine reads it, per GPU
  double budget_bytes = 0;  // what the engine's fraction allows
  double weight_bytes = 0;  // per GPU
  double activation_peak_bytes = 0;
  double non_torch_bytes = 0;
  double cuda_graph_bytes = 0;  // estimated; whether subtracted depends on the version
  double kv_cache_bytes = 0;  // per GPU
  int64_t kv_bytes_per_token = 0;  // per GPU, over the layers one block spans
  int block_size = 16;
  int64_t num_blocks = 0;
  int64_t kv_tokens = 0;  // per replica: kv_groups.CapacityTokens(num_blocks, block_size)
  // The layer groups blocks are cut for (models/kv_cache_groups.h): one group of every layer
  // unless the model has sliding windows and the engine keeps them apart.
  KvCacheGroups kv_groups{};
  // SGLang's hybrid SWA pool (EnginePersonality.windowed_kv_cache): the tokens of the pool of the
  // full-attention layers and of the pool of the chunked layers, and how many of this GPU's layers
  // the latter holds. A running sequence's token takes a slot in both, so num_blocks is the
  // smaller pool. Zero where the engine has one pool.
  int64_t full_pool_tokens = 0;
  int64_t swa_pool_tokens = 0;
  int swa_pool_layers = 0;
  // SGLang's Mamba pool (EnginePersonality.mamba_pool): state slots for linear-attention layers,
  // one per running request, and their bytes per GPU; the KV tokens are then the full-attention
  // layers' alone. Zero otherwise.
  int64_t state_pool_slots = 0;
  double state_pool_bytes = 0;
  // TensorRT-LLM's pools per attention window (--max-attention-window), the largest window first:
  // num_blocks, kv_bytes_per_token and kv_tokens are then the first pool's. Empty for one pool.
  std::vector<KvWindowPool> window_pools{};
  std::vector<std::string> log_lines;  // the plan as the engine logs it, term by term
  DType kv_dtype = DType::BF16;  // the request's, carried with the capacity

  // The cache the plan allocates, as one value for the engine and the cost model.
  KvCacheLayout kv() const { return {kv_dtype, block_size, kv_bytes_per_token, num_blocks, kv_groups, window_pools}; }
};

// Plans the engine's KV cache. InvalidArgument (naming the flag) for fractions outside
// (0, 1], unknown engines/versions, TP that does not divide the heads; FailedPrecondition
// when the model does not fit, saying by how many GiB.
absl::StatusOr<MemoryPlan> PlanEngineMemory(const MemoryPlanRequest& request);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_MEMORY_PLAN_MEMORY_PLAN_H_
