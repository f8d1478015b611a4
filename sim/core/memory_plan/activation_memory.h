// The activation peak of an engine's memory-profiling run and its CUDA-graph estimate, per
// GPU, from the personality's coefficients (ActivationModel, CudaGraphModel in
// sim/core/personality/engine_personality.proto) and the model's shape: the peak is a function of the dummy batch's
// tokens, the rows it samples, hidden and FFN width per GPU, vocabulary and TP; never a lookup.
#ifndef INFERGRID_SIM_CORE_MEMORY_PLAN_ACTIVATION_MEMORY_H_
#define INFERGRID_SIM_CORE_MEMORY_PLAN_ACTIVATION_MEMORY_H_

#include <cstdint>

#include "models/model_spec.pb.h"
#include "sim/core/personality/engine_personality.pb.h"

namespace infergrid {

struct ActivationPeak {
  double forward = 0;  // the dummy forward of `tokens` tokens
  double retained = 0;  // its output, alive while sampling
  double logits = 0;  // sampler / logits buffers of `rows` rows (last stage only)
  double peak = 0;  // as the personality combines them
};

// `samples`: this stage computes logits (the last pipeline stage).
ActivationPeak ComputeActivationPeak(const ModelSpec& model, const ActivationModel& coefficients, int64_t tokens,
                                     int64_t rows, int tensor_parallel, bool samples);

// base + per_layer * layers, in bytes; 0 when CUDA graphs are off.
double CudaGraphEstimateBytes(const CudaGraphModel& model, int layers_on_gpu, bool enabled);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_MEMORY_PLAN_ACTIVATION_MEMORY_H_
