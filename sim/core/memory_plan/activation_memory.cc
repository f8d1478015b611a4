#include "sim/core/memory_plan/activation_memory.h"

#include <algorithm>

#include "base/units.h"
#include "models/kv_cache_size.h"
#include "sim/core/memory_plan/weight_memory.h"

namespace infergrid {
namespace {

constexpr double kLogitBytes = 4;  // samplers work on fp32 logits

// FFN width one token passes through on one GPU: the routed experts' for MoE.
double ActiveFfnPerGpu(const ModelSpec& model, int tensor_parallel) {
  double ffn = static_cast<double>(model.ffn_dim());
  if (model.has_moe()) {
    const MixtureOfExperts& moe = model.moe();
    const double expert = static_cast<double>(moe.expert_ffn_dim() > 0 ? moe.expert_ffn_dim() : model.ffn_dim());
    ffn = expert * (moe.experts_per_token() + moe.num_shared_experts());
    // Leading dense layers (DeepSeek-V3's) are wider: the widest layer decides the peak.
    if (moe.first_dense_layers() > 0 || moe.interleave_step() > 1)
      ffn = std::max(ffn, static_cast<double>(model.ffn_dim()));
  }
  return ffn / std::max(1, tensor_parallel);
}

// Width of the query, key and value activations of one token on one GPU: (H_q/TP + 2 H_kv) D,
// or with latent attention the sharded queries plus the latent and rotary key.
double QkvWidthPerGpu(const ModelSpec& model, int tensor_parallel) {
  const double heads = static_cast<double>(model.num_attention_heads()) / std::max(1, tensor_parallel);
  if (model.has_mla()) {
    return heads * model.head_dim() + static_cast<double>(KvElementsPerTokenLayer(model, tensor_parallel));
  }
  return (heads + 2.0 * KvHeadsPerGpu(model, tensor_parallel)) * model.head_dim();
}

}  // namespace

ActivationPeak ComputeActivationPeak(const ModelSpec& model, const ActivationModel& c, int64_t tokens, int64_t rows,
                                     int tensor_parallel, bool samples) {
  const double n = static_cast<double>(tokens);
  const double a = c.activation_bytes() > 0 ? c.activation_bytes() : 2.0;
  const double h = static_cast<double>(model.hidden_size());
  const double qkv = QkvWidthPerGpu(model, tensor_parallel);
  ActivationPeak peak;
  peak.forward =
      n * a * (c.ffn_factor() * ActiveFfnPerGpu(model, tensor_parallel) + c.hidden_factor() * h + c.qkv_factor() * qkv);
  if (samples) {
    peak.retained = c.retained_hidden_factor() * n * a * h;
    peak.logits = c.logits_factor() * static_cast<double>(rows) * static_cast<double>(model.vocab_size()) * kLogitBytes;
  }
  peak.peak = c.combine_with_max() ? std::max(peak.forward, peak.retained + peak.logits)
                                   : peak.forward + peak.retained + peak.logits;
  return peak;
}

double CudaGraphEstimateBytes(const CudaGraphModel& model, int layers_on_gpu, bool enabled) {
  if (!enabled || (model.base_gib() == 0 && model.per_layer_gib() == 0)) return 0;
  return (model.base_gib() + model.per_layer_gib() * layers_on_gpu) * kGiB;
}

}  // namespace infergrid
