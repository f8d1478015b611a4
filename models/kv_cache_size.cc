#include "models/kv_cache_size.h"

#include <algorithm>

#include "base/dtype.h"

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

int64_t KvBytesPerToken(const ModelSpec& spec, DType kv_dtype, int tensor_parallel) {
  return KvBytesPerTokenLayer(spec, kv_dtype, tensor_parallel) * spec.num_layers();
}

}  // namespace infergrid
