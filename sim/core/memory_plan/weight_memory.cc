#include "sim/core/memory_plan/weight_memory.h"

#include <algorithm>
#include <cmath>

#include "base/units.h"
#include "models/attention_layout.h"
#include "models/kv_cache_size.h"
#include "models/parameter_count.h"

namespace infergrid {
namespace {

bool IsFloat(DType dtype) { return dtype == DType::FP32 || dtype == DType::FP16 || dtype == DType::BF16; }

// Quantized linears without group metadata (fp8, int8 W8A8) keep one fp32 scale per output
// channel: that is the compressed-tensors "channel" scheme of the common Hub checkpoints
// (Llama-3.3-70B FP8-dynamic logs 33.88 GiB per GPU at TP2; without the scales 33.87).
double ScaleBytesPerOutputChannel(const WeightFormat& weights) {
  if (IsFloat(weights.dtype) || weights.group_size > 0) return 0;
  return 4.0;
}

// Parameters, output channels (one scale each when quantized per channel) and replicated
// float parameters of one layer's linears on one GPU.
struct LayerShard {
  double params = 0;
  double rows = 0;
  double replicated = 0;
};

// The attention projections of one layer on one GPU of a tensor-parallel group.
LayerShard AttentionShard(const ModelSpec& model, int tensor_parallel) {
  const double tp = std::max(1, tensor_parallel);
  const double h = static_cast<double>(model.hidden_size());
  const double heads = model.num_attention_heads() / tp;
  LayerShard s;
  s.replicated = 2 * h;  // the two RMSNorm weights
  if (model.has_mla()) {
    // vLLM's DeepseekV2MLAAttention: q_a and kv_a are replicated on every GPU, q_b, kv_b and
    // o are sharded by heads; the two latent RMSNorms are replicated.
    const LatentAttention& mla = model.mla();
    const double qk = mla.qk_nope_head_dim() + mla.qk_rope_head_dim();
    const double q_lora = mla.q_lora_rank();
    const double kv_a = mla.kv_lora_rank() + mla.qk_rope_head_dim();
    const double kv_b = heads * (mla.qk_nope_head_dim() + mla.v_head_dim());
    const double v = heads * mla.v_head_dim();
    if (q_lora > 0) {
      s.params += h * q_lora + q_lora * heads * qk;
      s.rows += q_lora + heads * qk;
    } else {
      s.params += h * heads * qk;
      s.rows += heads * qk;
    }
    s.params += h * kv_a + mla.kv_lora_rank() * kv_b + v * h;
    s.rows += kv_a + kv_b + h;
    s.replicated += q_lora + mla.kv_lora_rank();
    if (model.has_sparse_attention()) {
      // vLLM's indexer projections are replicated on every GPU (ReplicatedLinear).
      const SparseAttention& sparse = model.sparse_attention();
      const double index_width = static_cast<double>(sparse.index_heads()) * sparse.index_head_dim();
      s.params += (q_lora > 0 ? q_lora : h) * index_width + h * sparse.index_head_dim() + h * sparse.index_heads();
      s.rows += index_width + sparse.index_head_dim() + sparse.index_heads();
      s.replicated += 2.0 * sparse.index_head_dim();
    }
    return s;
  }
  const double d = model.head_dim();
  const double q_width = heads * d;
  const double kv_width = KvHeadsPerGpu(model, tensor_parallel) * d;
  const double gate = model.gated_attention_output() ? q_width : 0;  // q_proj's gate half
  s.params = 2 * h * q_width + 2 * h * kv_width + h * gate;
  s.rows = q_width + 2 * kv_width + h + gate;
  if (model.attention_bias()) s.replicated += q_width + 2 * kv_width;
  if (model.attention_output_bias()) s.replicated += h;
  if (model.attention().attention_sinks()) s.replicated += heads;
  if (model.qk_norm()) s.replicated += 2 * d;
  const int norms = model.norms_per_layer() > 0 ? model.norms_per_layer() : 2;
  s.replicated += (norms - 2) * h;
  return s;
}

// One Gated DeltaNet layer on one GPU: the input projections (q, k, v, z and the b, a gates)
// and out_proj sharded by heads; the convolution, dt_bias, A_log sharded with them, the gated
// norm replicated; its two RMSNorms as every layer's.
LayerShard LinearAttentionShard(const ModelSpec& model, int tensor_parallel) {
  LayerShard s;
  if (CountAttentionLayers(model).linear == 0) return s;
  const LinearAttention& l = model.linear_attention();
  const double tp = std::max(1, tensor_parallel);
  const double h = static_cast<double>(model.hidden_size());
  const double keys = static_cast<double>(l.num_key_heads()) * l.key_head_dim() / tp;
  const double values = static_cast<double>(l.num_value_heads()) * l.value_head_dim() / tp;
  const double gates = 2.0 * l.num_value_heads() / tp;
  s.params = h * (2 * keys + 2 * values + gates) + values * h;
  s.rows = 2 * keys + 2 * values + gates + h;
  const int norms = model.norms_per_layer() > 0 ? model.norms_per_layer() : 2;
  s.replicated = norms * h + (2 * keys + values) * l.conv_kernel() + gates + l.value_head_dim();
  return s;
}

// The MLP of one layer on one GPU: dense, or every routed and shared expert sharded by TP; under
// expert parallelism num_experts / TP whole routed experts and the shared ones sharded. With
// attention data parallelism the routed experts span `expert_world` GPUs (TP x the DP ranks)
// and the shared ones stay sharded by the rank's TP.
LayerShard MlpShard(const ModelSpec& model, int tensor_parallel, bool experts_layer, bool expert_parallel = false,
                    int expert_world = 0) {
  const double tp = std::max(1, tensor_parallel);
  const double world = expert_world > 0 ? expert_world : tp;
  const double h = static_cast<double>(model.hidden_size());
  const double mlp_matrices = model.gated_mlp() ? 3 : 2;
  LayerShard s;
  if (experts_layer) {
    const MixtureOfExperts& moe = model.moe();
    const double width = static_cast<double>(moe.expert_ffn_dim() > 0 ? moe.expert_ffn_dim() : model.ffn_dim());
    const double shared = moe.num_shared_experts();
    // Shared experts: sharded by TP (a 1/TP slice of each, ffn / TP wide).
    s.params = shared * mlp_matrices * h * width / tp;
    s.rows = shared * ((mlp_matrices - 1) * width / tp + h);
    if (expert_parallel) {  // num_experts / world whole routed experts
      const double local = moe.num_experts() / world;
      s.params += local * mlp_matrices * h * width;
      s.rows += local * ((mlp_matrices - 1) * width + h);
    } else {  // a 1/world slice of every routed expert
      s.params += moe.num_experts() * mlp_matrices * h * width / world;
      s.rows += moe.num_experts() * ((mlp_matrices - 1) * width / world + h);
    }
    s.replicated = h * moe.num_experts();  // the router stays in the float dtype
    if (model.expert_bias()) {
      // gpt-oss: the router's and every expert's gate, up and down biases (sharded like them).
      const double routed = expert_parallel ? moe.num_experts() / world : moe.num_experts();
      const double per_expert =
          expert_parallel ? (mlp_matrices - 1) * width + h : (mlp_matrices - 1) * width / world + h;
      s.replicated += moe.num_experts() + routed * per_expert;
    }
  } else {
    const double ffn = static_cast<double>(model.ffn_dim()) / tp;
    s.params = mlp_matrices * h * ffn;
    s.rows = (mlp_matrices - 1) * ffn + h;
  }
  return s;
}

}  // namespace

DType UnquantizedDType(const ModelSpec& model, const WeightFormat& weights) {
  if (IsFloat(weights.dtype)) return weights.dtype;
  return model.dtype() == DType::DTYPE_UNSPECIFIED ? DType::BF16 : model.dtype();
}

EngineWeightBytes ComputeEngineWeightBytes(const ModelSpec& model, const WeightFormat& weights, int tensor_parallel,
                                           const StageShape& stage, const EnginePersonality& personality,
                                           bool expert_parallel, int attention_data_parallel) {
  const double tp = std::max(1, tensor_parallel);
  const double h = static_cast<double>(model.hidden_size());
  const double linear_bytes = weights.BytesPerParameter();
  const double float_bytes = BytesPerElement(UnquantizedDType(model, weights));
  const double scale_bytes = ScaleBytesPerOutputChannel(weights);

  // The stage's layers: the model's leading dense layers (DeepSeek-V3's first three) and
  // interleaved dense layers (Llama-4 Maverick's even ones) among them have a dense MLP, the
  // others routed experts.
  const double expert_layers = static_cast<double>(ExpertLayers(model, stage.first_layer, stage.layers));
  const double dense_layers = stage.layers - expert_layers;
  const LayerShard attention = AttentionShard(model, tensor_parallel);
  const LayerShard dense = MlpShard(model, tensor_parallel, false);
  const LayerShard experts = model.has_moe() ? MlpShard(model, tensor_parallel, true, expert_parallel,
                                                        tensor_parallel * std::max(1, attention_data_parallel))
                                             : LayerShard{};
  // Bytes of `layers` layers whose MLP is `mlp` (`experts`: routed experts). A checkpoint that
  // quantizes only the experts keeps the attention and dense linears in the float dtype.
  const bool all_quantized = !weights.experts_only;
  const auto linear = [&](double layers, const LayerShard& shard, bool quantized) {
    return layers * (quantized ? shard.params * linear_bytes + shard.rows * scale_bytes : shard.params * float_bytes);
  };
  const auto replicated = [&](double layers, const LayerShard& shard) {
    return layers * shard.replicated * float_bytes;
  };
  // Attention layers and linear-attention (Gated DeltaNet) layers, then the MLPs.
  const AttentionLayerCounts kinds = CountAttentionLayers(model, stage.first_layer, stage.layers);
  const LayerShard linear_attention = LinearAttentionShard(model, tensor_parallel);

  EngineWeightBytes bytes;
  bytes.linear = linear(kinds.attention(), attention, all_quantized) +
                 linear(kinds.linear, linear_attention, all_quantized) + linear(dense_layers, dense, all_quantized) +
                 linear(expert_layers, experts, true);
  bytes.replicated = replicated(kinds.attention(), attention) + replicated(kinds.linear, linear_attention) +
                     replicated(dense_layers, dense) + replicated(expert_layers, experts);
  const double padding = std::max(1, personality.vocab_padding());
  const double vocab_rows = std::ceil(std::ceil(static_cast<double>(model.vocab_size()) / padding) * padding / tp);
  const double vocab_shard = vocab_rows * h * float_bytes;
  if (stage.first) bytes.embedding = vocab_shard;
  // A tied LM head shares the embedding unless another stage holds it.
  if (stage.last && (!model.tie_word_embeddings() || !stage.first)) bytes.lm_head = vocab_shard;
  if (stage.last) bytes.replicated += h * float_bytes;  // the final norm
  // The rotary cos/sin cache spans the rotary dimensions (all of a head, or MLA's rope part).
  const double rotary_dims = model.has_mla() ? model.mla().qk_rope_head_dim() : model.head_dim();
  bytes.rope_cache =
      static_cast<double>(model.max_position_embeddings()) * rotary_dims * personality.rope_cache_bytes_per_element();
  bytes.load_overhead = personality.weight_load_overhead_gib() * kGiB;
  return bytes;
}

}  // namespace infergrid
