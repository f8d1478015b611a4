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
  return KvElementsPerTokenLayer(spec, tensor_parallel) * BitsPerElement(kv_dtype) / 8;
}

double KvBytes(const ModelSpec& spec, DType kv_dtype, int64_t tokens, int64_t sequences) {
  const AttentionLayerCounts layers = CountAttentionLayers(spec);
  // Chunked local layers are counted whole, as the engines allocate them.
  const double kept = static_cast<double>(layers.full + layers.chunked) * static_cast<double>(tokens) +
                      static_cast<double>(layers.window) *
                          static_cast<double>(std::min<int64_t>(tokens, spec.attention().sliding_window()));
  return static_cast<double>(KvBytesPerTokenLayer(spec, kv_dtype, 1)) * kept * static_cast<double>(sequences);
}

int64_t KvBytesPerToken(const ModelSpec& spec, DType kv_dtype, int tensor_parallel) {
  return KvBytesPerTokenLayer(spec, kv_dtype, tensor_parallel) * spec.num_layers();
}

}  // namespace infergrid
