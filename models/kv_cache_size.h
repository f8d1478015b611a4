// The one home of KV-cache arithmetic: K and V bytes per token, per layer and per GPU of a
// tensor-parallel group, from the architecture and the KV cache dtype (independent of the
// weight dtype), and the layout an engine's plan gives the cache. Payload only: block tables
// and padding are extra.
#ifndef INFERGRID_MODELS_KV_CACHE_SIZE_H_
#define INFERGRID_MODELS_KV_CACHE_SIZE_H_

#include <cstdint>
#include <vector>

#include "base/dtype.pb.h"
#include "models/kv_cache_groups.h"
#include "models/model_spec.pb.h"

namespace infergrid {

// KV heads one GPU of a tensor-parallel group holds: H_kv / TP, or 1 when TP exceeds H_kv
// (the heads are then replicated).
int KvHeadsPerGpu(const ModelSpec& spec, int tensor_parallel);

// Cached elements for one token in one layer on one GPU: 2 x KV heads per GPU x D for
// (grouped-query) multi-head attention; kv_lora_rank + qk_rope_head_dim for latent attention
// (one latent per token, replicated on every GPU of a tensor-parallel group: DeepSeek-V3 576).
int64_t KvElementsPerTokenLayer(const ModelSpec& spec, int tensor_parallel);

// Bytes of the sparse-attention indexer's key for one token in one layer (DeepSeek-V3.2:
// index_head_dim fp8 values and an fp32 scale, 132 B); 0 without sparse attention.
int64_t IndexerBytesPerTokenLayer(const ModelSpec& spec);

// Bytes of K and V for one token in one layer on one GPU: the elements above x b, plus the
// indexer's key where the model has one.
int64_t KvBytesPerTokenLayer(const ModelSpec& spec, DType kv_dtype, int tensor_parallel);

// Elements of one linear-attention layer's state per sequence at `tensor_parallel` (0 for a
// model without): the convolution's (conv_kernel - 1) x (2 Hk dk + Hv dv) / TP and the
// recurrent Hv / TP x dk x dv. Engines store them in dtypes of their own.
struct LinearStateElements {
  int64_t conv = 0;
  int64_t recurrent = 0;
};
LinearStateElements LinearStateElementsPerLayer(const ModelSpec& spec, int tensor_parallel);

// Bytes of one sequence's state in one linear-attention layer on one GPU (Gated DeltaNet: the
// recurrent state and the convolution state, models/model_spec.proto LinearAttention), in the
// model's dtype (vLLM's default); 0 for a model without such layers. Constant in the sequence's
// length.
int64_t LinearStateBytesPerLayer(const ModelSpec& spec, int tensor_parallel);

// Bytes of K and V for one token over all attention layers on one GPU (Llama-3-8B fp16:
// 131,072 B = 128 KiB at TP 1; linear-attention layers hold none).
int64_t KvBytesPerToken(const ModelSpec& spec, DType kv_dtype, int tensor_parallel = 1);

// Bytes for `tokens` tokens of each of `sequences` sequences (TP 1): every layer's K and V for
// each token, except that a sliding-window layer keeps only its window's last tokens.
double KvBytes(const ModelSpec& spec, DType kv_dtype, int64_t tokens, int64_t sequences);

// A paged KV cache as an engine lays it out on each GPU of a replica (every GPU of a
// tensor-parallel group holds the same number of blocks, of its own heads).
struct KvCacheLayout {
  DType dtype = DType::BF16;
  int block_size = 16;  // tokens per block
  int64_t bytes_per_token = 0;  // on one GPU, over the layers one block spans (one group's)
  int64_t num_blocks = 0;
  KvCacheGroups groups{};  // how a sequence's tokens take blocks (one group: every layer)
  // TensorRT-LLM with max_attention_window: a pool per window, the largest first (its blocks
  // are num_blocks); empty for one pool.
  std::vector<KvWindowPool> window_pools{};
  double BlockBytes() const { return static_cast<double>(block_size) * static_cast<double>(bytes_per_token); }
};

}  // namespace infergrid

#endif  // INFERGRID_MODELS_KV_CACHE_SIZE_H_
