#include "models/parameter_count.h"

namespace infergrid {
namespace {

int64_t ExpertFfnDim(const ModelSpec& spec) {
  return spec.moe().expert_ffn_dim() > 0 ? spec.moe().expert_ffn_dim() : spec.ffn_dim();
}

// Parameters of one MLP of width `ffn` (gate + up + down when gated).
int64_t MlpParameters(const ModelSpec& spec, int64_t ffn) {
  return (spec.gated_mlp() ? 3 : 2) * spec.hidden_size() * ffn;
}

}  // namespace

ParameterBreakdown CountParameters(const ModelSpec& spec) {
  const int64_t d = spec.hidden_size();
  const int64_t layers = spec.num_layers();
  const int64_t q_width = int64_t{spec.num_attention_heads()} * spec.head_dim();
  const int64_t kv_width = int64_t{spec.num_kv_heads()} * spec.head_dim();

  ParameterBreakdown count;
  count.embedding = spec.vocab_size() * d;
  int64_t attention_per_layer = d * q_width + 2 * d * kv_width + q_width * d;
  if (spec.attention_bias()) attention_per_layer += q_width + 2 * kv_width;
  count.attention = layers * attention_per_layer;
  if (spec.has_moe()) {
    const MixtureOfExperts& moe = spec.moe();
    const int64_t experts = int64_t{moe.num_experts()} + moe.num_shared_experts();
    count.mlp = layers * experts * MlpParameters(spec, ExpertFfnDim(spec));
    count.router = layers * d * moe.num_experts();
  } else {
    count.mlp = layers * MlpParameters(spec, spec.ffn_dim());
  }
  count.norms = layers * 2 * d + d;
  count.lm_head = spec.tie_word_embeddings() ? 0 : spec.vocab_size() * d;
  return count;
}

int64_t ActiveParametersPerToken(const ModelSpec& spec) {
  const ParameterBreakdown count = CountParameters(spec);
  if (!spec.has_moe()) return count.Total();
  const MixtureOfExperts& moe = spec.moe();
  const int64_t idle_experts = moe.num_experts() - moe.experts_per_token();
  return count.Total() - spec.num_layers() * idle_experts * MlpParameters(spec, ExpertFfnDim(spec));
}

}  // namespace infergrid
