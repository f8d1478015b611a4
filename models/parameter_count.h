// Exact parameter counts derived from the architecture, tensor by tensor.
// Matches the element count of the published checkpoints (Llama-3-8B: 8,030,261,248).
#ifndef INFERGRID_MODELS_PARAMETER_COUNT_H_
#define INFERGRID_MODELS_PARAMETER_COUNT_H_

#include <cstdint>

#include "models/model_spec.pb.h"

namespace infergrid {

struct ParameterBreakdown {
  int64_t embedding = 0;  // token embedding matrix (vocab x d_model)
  int64_t attention = 0;  // Q, K, V, O projections (+ QKV biases; latent projections) over all layers
  int64_t mlp = 0;  // dense MLP or all experts (routed + shared) over all layers
  int64_t router = 0;  // MoE gate matrices
  int64_t norms = 0;  // RMSNorm weights (two per layer, two more with MLA, + final)
  int64_t lm_head = 0;  // 0 when tied to the embedding
  int64_t Total() const { return embedding + attention + mlp + router + norms + lm_head; }
};

ParameterBreakdown CountParameters(const ModelSpec& spec);

// Parameters of the routed experts over all expert layers (their biases included): what a
// checkpoint that quantizes only the experts stores in its quantized format.
int64_t RoutedExpertParameters(const ModelSpec& spec);

// Whether layer `layer` (0-based) has routed experts: past the leading dense layers, and every
// moe.interleave_step-th layer where the experts are interleaved (Llama-4 Maverick: 1, 3, ...).
bool IsExpertLayer(const ModelSpec& spec, int layer);
// Layers whose MLP is routed experts: all of them for an MoE model, less its leading dense
// layers (DeepSeek-V3: 58 of 61) and its interleaved dense ones (Maverick: 24 of 48); 0 for a
// dense model. The second form counts layers [first, first + count) (a pipeline stage).
int64_t ExpertLayers(const ModelSpec& spec);
int64_t ExpertLayers(const ModelSpec& spec, int first, int count);

// Parameters one token passes through: all but the routed experts it is not sent to.
// Equals CountParameters().Total() for dense models.
int64_t ActiveParametersPerToken(const ModelSpec& spec);

}  // namespace infergrid

#endif  // INFERGRID_MODELS_PARAMETER_COUNT_H_
