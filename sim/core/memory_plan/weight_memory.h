// Weight bytes on one GPU as a serving engine holds them: the linear layers of this pipeline
// stage sharded by TP in the weight format, the vocab-parallel embedding (first stage) and LM
// head (last stage) kept in the model's float dtype when the linears are quantized (fp8/int8
// checkpoints carry one fp32 scale per output channel; int4 formats their group scales), norms
// and the rotary cos/sin cache replicated, plus any load overhead the engine's measurement sees.
#ifndef INFERGRID_SIM_CORE_MEMORY_PLAN_WEIGHT_MEMORY_H_
#define INFERGRID_SIM_CORE_MEMORY_PLAN_WEIGHT_MEMORY_H_

#include "base/dtype.h"
#include "models/model_spec.pb.h"
#include "sim/core/personality/engine_personality.pb.h"

namespace infergrid {

// Layers of one pipeline stage and whether it holds the embedding / the LM head.
struct StageShape {
  int layers = 0;
  bool first = true;
  bool last = true;
  int first_layer = 0;  // index of the stage's first layer (decides which dense layers it holds)
};

struct EngineWeightBytes {
  double linear = 0;  // attention + MLP (+ experts) shard, incl. quantization scales
  double embedding = 0;
  double lm_head = 0;
  double replicated = 0;  // norms, QKV biases, MoE routers
  double rope_cache = 0;
  double load_overhead = 0;
  double Total() const { return linear + embedding + lm_head + replicated + rope_cache + load_overhead; }
};

// The float dtype the non-linear tensors stay in: the weight dtype when it is a float format,
// else the checkpoint's dtype (bf16 when unspecified).
DType UnquantizedDType(const ModelSpec& model, const WeightFormat& weights);

EngineWeightBytes ComputeEngineWeightBytes(const ModelSpec& model, const WeightFormat& weights, int tensor_parallel,
                                           const StageShape& stage, const EnginePersonality& personality,
                                           bool expert_parallel = false, int attention_data_parallel = 1);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_MEMORY_PLAN_WEIGHT_MEMORY_H_
