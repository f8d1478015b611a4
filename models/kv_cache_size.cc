#include "models/kv_cache_size.h"

#include <algorithm>

#include "base/dtype.h"
#include "models/attention_layout.h"

namespace infergrid {

int64_t KvElementsPerTokenLayer(const ModelSpec& spec, int tensor_parallel) {
  if (spec.has_mla()) return int64_t{spec.mla().kv_lora_rank()} + spec.mla().qk_rope_head_dim();
  return int64_t{2} * KvHeadsPerGpu(spec, tensor_parallel) * spec.head_dim();
}

int KvHeadsPerGpu(const ModelSpec& spec, int tensor_parallel) {
  return std::max(1, spec.num_kv_heads() / std::max(1, tensor_parallel));
}

int64_t KvBytesPerTokenLayer(const ModelSpec& spec, DType kv_dtype, int tensor_parallel) {
  return KvElementsPerTokenLayer(spec, tensor_parallel) * BitsPerElement(kv_dtype) / 8 +
         IndexerBytesPerTokenLayer(spec);
}

int64_t IndexerBytesPerTokenLayer(const ModelSpec& spec) {
  // One fp8 key and its fp32 scale (vLLM's DeepseekV32IndexerCache), whatever the KV dtype.
  return spec.has_sparse_attention() ? int64_t{spec.sparse_attention().index_head_dim()} + 4 : 0;
}

double KvBytes(const ModelSpec& spec, DType kv_dtype, int64_t tokens, int64_t sequences) {
  const AttentionLayerCounts layers = CountAttentionLayers(spec);
  // Chunked local layers are counted whole, as the engines allocate them.
  const double kept = static_cast<double>(layers.full + layers.chunked) * static_cast<double>(tokens) +
                      static_cast<double>(layers.window) *
                          static_cast<double>(std::min<int64_t>(tokens, spec.attention().sliding_window()));
  const double states = static_cast<double>(layers.linear) * static_cast<double>(LinearStateBytesPerLayer(spec, 1));
  return (static_cast<double>(KvBytesPerTokenLayer(spec, kv_dtype, 1)) * kept + states) *
         static_cast<double>(sequences);
}

LinearStateElements LinearStateElementsPerLayer(const ModelSpec& spec, int tensor_parallel) {
  if (CountAttentionLayers(spec).linear == 0) return {};
  const LinearAttention& l = spec.linear_attention();
  const int64_t tp = std::max(1, tensor_parallel);
  const int64_t key_width = int64_t{l.num_key_heads()} * l.key_head_dim();
  const int64_t value_width = int64_t{l.num_value_heads()} * l.value_head_dim();
  return {(int64_t{l.conv_kernel()} - 1) * (2 * key_width + value_width) / tp,
          int64_t{l.num_value_heads()} / tp * l.key_head_dim() * l.value_head_dim()};
}

int64_t LinearStateBytesPerLayer(const ModelSpec& spec, int tensor_parallel) {
  const LinearStateElements state = LinearStateElementsPerLayer(spec, tensor_parallel);
  const DType dtype = spec.dtype() == DType::DTYPE_UNSPECIFIED ? DType::BF16 : spec.dtype();
  return (state.conv + state.recurrent) * BitsPerElement(dtype) / 8;
}

int64_t KvBytesPerToken(const ModelSpec& spec, DType kv_dtype, int tensor_parallel) {
  // Linear-attention layers hold a state, not K and V.
  return KvBytesPerTokenLayer(spec, kv_dtype, tensor_parallel) * CountAttentionLayers(spec).attention();
}

}  // namespace infergrid
