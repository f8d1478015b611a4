#include "models/kv_cache_size.h"

#include "base/dtype.h"

namespace infergrid {

int64_t KvBytesPerToken(const ModelSpec& spec, DType kv_dtype) {
  const int64_t elements =
      2 * int64_t{spec.num_layers()} * spec.num_kv_heads() * spec.head_dim();
  return elements * BitsPerElement(kv_dtype) / 8;
}

}  // namespace infergrid
