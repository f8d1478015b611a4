// KV cache payload: 2 (K and V) x L x H_kv x D x S x B x b, with b from the KV cache dtype
// (independent of the weight dtype). Payload only: block tables and padding are extra.
#ifndef INFERGRID_MODELS_KV_CACHE_SIZE_H_
#define INFERGRID_MODELS_KV_CACHE_SIZE_H_

#include <cstdint>

#include "base/dtype.pb.h"
#include "models/model_spec.pb.h"

namespace infergrid {

// Bytes of K and V for one token over all layers (Llama-3-8B fp16: 131,072 B = 128 KiB).
int64_t KvBytesPerToken(const ModelSpec& spec, DType kv_dtype);

// Bytes for `tokens` tokens of each of `sequences` sequences.
inline double KvBytes(const ModelSpec& spec, DType kv_dtype, int64_t tokens, int64_t sequences) {
  return static_cast<double>(KvBytesPerToken(spec, kv_dtype)) * static_cast<double>(tokens) *
         static_cast<double>(sequences);
}

}  // namespace infergrid

#endif  // INFERGRID_MODELS_KV_CACHE_SIZE_H_
