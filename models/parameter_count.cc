#include "models/parameter_count.h"

#include "models/attention_layout.h"

namespace infergrid {
namespace {

int64_t ExpertFfnDim(const ModelSpec& spec) {
  return spec.moe().expert_ffn_dim() > 0 ? spec.moe().expert_ffn_dim() : spec.ffn_dim();
}

// Parameters of one MLP of width `ffn` (gate + up + down when gated).
int64_t MlpParameters(const ModelSpec& spec, int64_t ffn) {
  return (spec.gated_mlp() ? 3 : 2) * spec.hidden_size() * ffn;
}

// One routed or shared expert: its MLP, and the biases of its linears where the model has them
// (gpt-oss: gate and up, ffn each, and down, d).
int64_t ExpertParameters(const ModelSpec& spec) {
  const int64_t ffn = ExpertFfnDim(spec);
  const int64_t biases = spec.expert_bias() ? (spec.gated_mlp() ? 2 : 1) * ffn + spec.hidden_size() : 0;
  return MlpParameters(spec, ffn) + biases;
}

// Q, K, V and O projections of one layer, and the norms inside the attention (latent only).
struct AttentionParameters {
  int64_t projections = 0;
  int64_t norms = 0;
};

AttentionParameters AttentionPerLayer(const ModelSpec& spec) {
  const int64_t d = spec.hidden_size();
  const int64_t heads = spec.num_attention_heads();
  AttentionParameters p;
  if (spec.has_mla()) {
    // q_a (d -> q_lora) and q_b (q_lora -> H x qk), or one d -> H x qk; kv_a (d -> latent +
    // rope key); kv_b (latent -> H x (nope + v)); o (H x v -> d); RMSNorms on both latents.
    const LatentAttention& mla = spec.mla();
    const int64_t qk = int64_t{mla.qk_nope_head_dim()} + mla.qk_rope_head_dim();
    const int64_t q_lora = mla.q_lora_rank();
    p.projections = q_lora > 0 ? d * q_lora + q_lora * heads * qk : d * heads * qk;
    p.projections += d * (int64_t{mla.kv_lora_rank()} + mla.qk_rope_head_dim());
    p.projections += int64_t{mla.kv_lora_rank()} * heads * (int64_t{mla.qk_nope_head_dim()} + mla.v_head_dim());
    p.projections += heads * mla.v_head_dim() * d;
    p.norms = q_lora + mla.kv_lora_rank();
    if (spec.has_sparse_attention()) {
      // The indexer: wq_b (q_lora -> heads x dim), wk (d -> dim), weights_proj (d -> heads), and
      // the key's LayerNorm (weight and bias).
      const SparseAttention& s = spec.sparse_attention();
      const int64_t index_width = int64_t{s.index_heads()} * s.index_head_dim();
      p.projections += (q_lora > 0 ? q_lora : d) * index_width + d * s.index_head_dim() + d * s.index_heads();
      p.norms += 2 * int64_t{s.index_head_dim()};
    }
    return p;
  }
  const int64_t q_width = heads * spec.head_dim();
  const int64_t kv_width = int64_t{spec.num_kv_heads()} * spec.head_dim();
  p.projections = d * q_width + 2 * d * kv_width + q_width * d;
  if (spec.gated_attention_output()) p.projections += d * q_width;  // the gate's half of q_proj
  if (spec.attention_bias()) p.projections += q_width + 2 * kv_width;
  if (spec.attention_output_bias()) p.projections += d;
  if (spec.attention().attention_sinks()) p.projections += heads;  // one logit per head
  if (spec.qk_norm()) p.norms += 2 * spec.head_dim();
  return p;
}

// One Gated DeltaNet layer: in_proj_qkvz (d -> 2 keys + 2 values), in_proj_ba (d -> 2 x value
// heads), the depthwise convolution over q, k, v, dt_bias and A_log per value head, the gated
// norm (value_head_dim) and out_proj (values -> d).
int64_t LinearAttentionParameters(const ModelSpec& spec) {
  const LinearAttention& l = spec.linear_attention();
  const int64_t d = spec.hidden_size();
  const int64_t keys = int64_t{l.num_key_heads()} * l.key_head_dim();
  const int64_t values = int64_t{l.num_value_heads()} * l.value_head_dim();
  return d * (2 * keys + 2 * values) + d * 2 * l.num_value_heads() + (2 * keys + values) * l.conv_kernel() +
         2 * int64_t{l.num_value_heads()} + l.value_head_dim() + values * d;
}

}  // namespace

bool IsExpertLayer(const ModelSpec& spec, int layer) {
  if (!spec.has_moe() || layer < spec.moe().first_dense_layers()) return false;
  const int step = spec.moe().interleave_step();
  return step <= 1 || (layer + 1) % step == 0;
}

int64_t ExpertLayers(const ModelSpec& spec, int first, int count) {
  int64_t layers = 0;
  for (int layer = first; layer < first + count; ++layer) layers += IsExpertLayer(spec, layer) ? 1 : 0;
  return layers;
}

int64_t ExpertLayers(const ModelSpec& spec) { return ExpertLayers(spec, 0, spec.num_layers()); }

ParameterBreakdown CountParameters(const ModelSpec& spec) {
  const int64_t d = spec.hidden_size();
  const int64_t layers = spec.num_layers();
  ParameterBreakdown count;
  count.embedding = spec.vocab_size() * d;
  const AttentionParameters attention = AttentionPerLayer(spec);
  const AttentionLayerCounts kinds = CountAttentionLayers(spec);
  count.attention = kinds.attention() * attention.projections + kinds.linear * LinearAttentionParameters(spec);
  const int64_t expert_layers = ExpertLayers(spec);
  count.mlp = (layers - expert_layers) * MlpParameters(spec, spec.ffn_dim());
  if (spec.has_moe()) {
    const MixtureOfExperts& moe = spec.moe();
    const int64_t experts = int64_t{moe.num_experts()} + moe.num_shared_experts();
    count.mlp += expert_layers * experts * ExpertParameters(spec);
    count.router = expert_layers * (d + (spec.expert_bias() ? 1 : 0)) * moe.num_experts();
  }
  const int64_t norms_per_layer = spec.norms_per_layer() > 0 ? spec.norms_per_layer() : 2;
  count.norms = layers * norms_per_layer * d + kinds.attention() * attention.norms + d;
  count.lm_head = spec.tie_word_embeddings() ? 0 : spec.vocab_size() * d;
  return count;
}

int64_t RoutedExpertParameters(const ModelSpec& spec) {
  if (!spec.has_moe()) return 0;
  return ExpertLayers(spec) * spec.moe().num_experts() * ExpertParameters(spec);
}

int64_t ActiveParametersPerToken(const ModelSpec& spec) {
  const ParameterBreakdown count = CountParameters(spec);
  if (!spec.has_moe()) return count.Total();
  const MixtureOfExperts& moe = spec.moe();
  const int64_t idle_experts = moe.num_experts() - moe.experts_per_token();
  return count.Total() - ExpertLayers(spec) * idle_experts * ExpertParameters(spec);
}

}  // namespace infergrid
