// The profiling pass shared by the vLLM and TensorRT-LLM rules: what it leaves allocated per
// stage is the same for both engines; only the equation that turns it into a KV budget differs.
#include <algorithm>

#include "sim/core/memory_plan/engine_rules.h"

namespace infergrid::memory_plan_internal {

void FillProfileRunTerms(const MemoryPlanRequest& request, MemoryPlanDetail* detail) {
  const EnginePersonality& p = detail->personality;
  const int64_t rows = std::min(detail->max_num_seqs, detail->max_num_batched_tokens);
  for (size_t i = 0; i < detail->stages.size(); ++i) {
    StagePlan& stage = detail->stages[i];
    const bool last = i + 1 == detail->stages.size();
    stage.activation = ComputeActivationPeak(request.model, p.activation(), detail->max_num_batched_tokens, rows,
                                             request.tensor_parallel, last);
    stage.non_torch_bytes = NonTorchBytes(p, request.tensor_parallel);
  }
}

}  // namespace infergrid::memory_plan_internal
