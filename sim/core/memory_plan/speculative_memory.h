// What a speculative proposer takes from an engine's KV plan. The draft's weights load beside
// the target's before the engine profiles its memory, so they come out of the KV budget; the
// draft keeps its own KV for every cached token, in blocks paired one to one with the target's
// (vLLM V0's SpecDecodeWorker splits the blocks evenly between scorer and proposer; V1 adds the
// EAGLE/draft layers to the KV cache spec), so a block costs block_size x (target + draft) KV
// bytes per token. An EAGLE/MTP head shares the target's embedding and LM head: only its
// decoder layer and norms are its own. n-gram lookup takes nothing.
#ifndef INFERGRID_SIM_CORE_MEMORY_PLAN_SPECULATIVE_MEMORY_H_
#define INFERGRID_SIM_CORE_MEMORY_PLAN_SPECULATIVE_MEMORY_H_

#include <cstdint>

#include "absl/status/status.h"
#include "base/dtype.h"
#include "models/model_spec.pb.h"
#include "sim/core/memory_plan/memory_plan.h"
#include "sim/core/personality/engine_personality.pb.h"

namespace infergrid {

struct DraftMemory {
  double weight_bytes = 0;  // per GPU, its own (a head's without the shared embedding and LM head)
  double pass_weight_bytes = 0;  // per GPU, what one forward pass reads (shared tensors included)
  int64_t kv_bytes_per_token = 0;  // per GPU
};

// The proposer's weights and KV per token on one GPU of a TP group. `shares_embedding`: an
// EAGLE/MTP head (embedding and LM head are the target's).
DraftMemory ComputeDraftMemory(const ModelSpec& proposer, bool shares_embedding, const WeightFormat& weights,
                               DType kv_dtype, int tensor_parallel, const EnginePersonality& personality);

// Takes the draft out of `plan`: its weights out of the KV bytes (unless the KV bytes were given
// with --kv-cache-memory) and its KV per token into every block (unless the block count was
// given with --num-gpu-blocks-override); adds a log line. FailedPrecondition when nothing is
// left for the KV cache.
absl::Status AddDraftToPlan(const DraftMemory& draft, const MemoryPlanRequest& request, MemoryPlan& plan);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_MEMORY_PLAN_SPECULATIVE_MEMORY_H_
