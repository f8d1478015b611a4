#include "sim/memory_plan/weight_memory.h"

#include <algorithm>
#include <cmath>

#include "base/units.h"
#include "models/kv_cache_size.h"

namespace infergrid {
namespace {


bool IsFloat(DType dtype) {
  return dtype == DType::FP32 || dtype == DType::FP16 || dtype == DType::BF16;
}

// Quantized linears without group metadata (fp8, int8 W8A8) keep one fp32 scale per output
// channel: that is the compressed-tensors "channel" scheme of the common Hub checkpoints
// (Llama-3.3-70B FP8-dynamic logs 33.88 GiB per GPU at TP2; without the scales 33.87).
double ScaleBytesPerOutputChannel(const WeightFormat& weights) {
  if (IsFloat(weights.dtype) || weights.group_size > 0) return 0;
  return 4.0;
}

}  // namespace

DType UnquantizedDType(const ModelSpec& model, const WeightFormat& weights) {
  if (IsFloat(weights.dtype)) return weights.dtype;
  return model.dtype() == DType::DTYPE_UNSPECIFIED ? DType::BF16 : model.dtype();
}

EngineWeightBytes ComputeEngineWeightBytes(const ModelSpec& model, const WeightFormat& weights,
                                           int tensor_parallel, const StageShape& stage,
                                           const EnginePersonality& personality) {
  const double tp = std::max(1, tensor_parallel);
  const double h = static_cast<double>(model.hidden_size());
  const double d = model.head_dim();
  const double q_width = model.num_attention_heads() * d / tp;
  const double kv_width = KvHeadsPerGpu(model, tensor_parallel) * d;
  const double linear_bytes = weights.BytesPerParameter();
  const double float_bytes = BytesPerElement(UnquantizedDType(model, weights));
  const double scale_bytes = ScaleBytesPerOutputChannel(weights);
  const double mlp_matrices = model.gated_mlp() ? 3 : 2;

  // Per layer: parameters and output channels of the sharded linears.
  double params = 2 * h * q_width + 2 * h * kv_width;
  double rows = q_width + 2 * kv_width + h;
  double replicated = 2 * h;  // the two RMSNorm weights
  if (model.attention_bias()) replicated += q_width + 2 * kv_width;
  if (model.has_moe()) {
    const MixtureOfExperts& moe = model.moe();
    const double experts = moe.num_experts() + moe.num_shared_experts();
    const double ffn = static_cast<double>(moe.expert_ffn_dim() > 0 ? moe.expert_ffn_dim() : model.ffn_dim()) / tp;
    params += experts * mlp_matrices * h * ffn;
    rows += experts * ((mlp_matrices - 1) * ffn + h);
    replicated += h * moe.num_experts();  // the router stays in the float dtype
  } else {
    const double ffn = static_cast<double>(model.ffn_dim()) / tp;
    params += mlp_matrices * h * ffn;
    rows += (mlp_matrices - 1) * ffn + h;
  }

  EngineWeightBytes bytes;
  bytes.linear = stage.layers * (params * linear_bytes + rows * scale_bytes);
  bytes.replicated = stage.layers * replicated * float_bytes;
  const double padding = std::max(1, personality.vocab_padding());
  const double vocab_rows =
      std::ceil(std::ceil(static_cast<double>(model.vocab_size()) / padding) * padding / tp);
  const double vocab_shard = vocab_rows * h * float_bytes;
  if (stage.first) bytes.embedding = vocab_shard;
  // A tied LM head shares the embedding unless another stage holds it.
  if (stage.last && (!model.tie_word_embeddings() || !stage.first)) bytes.lm_head = vocab_shard;
  if (stage.last) bytes.replicated += h * float_bytes;  // the final norm
  bytes.rope_cache = static_cast<double>(model.max_position_embeddings()) * d *
                     personality.rope_cache_bytes_per_element();
  bytes.load_overhead = personality.weight_load_overhead_gib() * kGiB;
  return bytes;
}

}  // namespace infergrid
