// How a paged KV cache holds a sequence whose layers attend differently: layers are put in
// groups of the same attention kind, every group draws its blocks from one shared pool, and a
// block of the pool holds `block_size` tokens of every layer of one group (one KV tensor per
// layer slot of a group). A full-attention group holds blocks for every token of a sequence; a
// sliding-window group only for the tokens its window can still reach. A model of full
// attention only is one group of all its layers, which is the classic paged cache.
//
// VllmHybridGroups is vLLM V1's hybrid KV cache manager (vllm/v1/core/kv_cache_utils.py,
// _get_kv_cache_groups_uniform_page_size, and single_type_kv_cache_manager.py's
// SlidingWindowManager); an engine that allocates windows as full attention uses OneGroup.
#ifndef INFERGRID_MODELS_KV_CACHE_GROUPS_H_
#define INFERGRID_MODELS_KV_CACHE_GROUPS_H_

#include <algorithm>
#include <cstdint>
#include <string>

#include "models/model_spec.pb.h"

namespace infergrid {

struct KvCacheGroups {
  int layers_per_group = 1;  // layer slots one pool block spans (vLLM's group size)
  int full_groups = 1;  // groups keeping every token
  int window_groups = 0;  // groups keeping the last window_tokens tokens
  int64_t window_tokens = 0;
  int state_groups = 0;  // linear-attention groups: one block of state per sequence
  int padded_slots = 0;  // slots of partial groups that hold no layer (memory wasted)

  bool hybrid() const { return window_groups > 0 || state_groups > 0; }
  int groups() const { return full_groups + window_groups + state_groups; }
  // The tokens a pool of `blocks` blocks holds, as vLLM counts them ("GPU KV cache size: N
  // tokens"): a token takes a block slot in every group, so floor(blocks / groups) x B (blocks x B
  // with one group). Every command prints this one figure.
  int64_t CapacityTokens(int64_t blocks, int block_size) const { return blocks / std::max(1, groups()) * block_size; }
  // Blocks a window group holds at most: the window's tokens can straddle one more block than
  // they fill, so ceil((W - 1) / B) + 1.
  int64_t WindowBlocks(int block_size) const { return (window_tokens - 1 + block_size - 1) / block_size + 1; }
  // Pool blocks a sequence holds with `tokens` tokens cached: ceil(tokens / B) in every full
  // group, at most WindowBlocks in every window group (the blocks the window has left are
  // freed), one in every state group whatever the length. Monotone in `tokens`.
  int64_t BlocksFor(int64_t tokens, int block_size) const {
    const int64_t all = (tokens + block_size - 1) / block_size;
    const int64_t window = window_groups > 0 ? std::min(all, WindowBlocks(block_size)) : 0;
    return full_groups * all + window_groups * window + (tokens > 0 ? state_groups : 0);
  }
  // Tokens of K and V a sequence of `tokens` tokens keeps, in units of one group's layers:
  // what a transfer of its cache moves (exact, no block rounding; linear-attention states are
  // not counted).
  int64_t TokenSlots(int64_t tokens) const {
    return full_groups * tokens + window_groups * std::min(tokens, window_tokens);
  }
  std::string Describe() const;  // "1 full + 1 window (128 tokens) group of 12 layers"
};

// TensorRT-LLM's pools per attention window (kv_cache_config.max_attention_window, its
// "variable sliding window attention"): the layers of each distinct window get a pool of blocks
// of their own, and a sequence of n tokens holds ceil(min(n, window) / B) blocks of each (the
// blocks of a window are reused cyclically once the window is full). `window_tokens` is the
// window as configured; a window of max_model_len keeps every token.
// The most pools a cache with window pools has (distinct max_attention_window sizes).
inline constexpr int kMaxKvWindowPools = 8;

struct KvWindowPool {
  int64_t window_tokens = 0;
  int layers = 0;  // this GPU's layers with that window
  int64_t bytes_per_token = 0;  // K and V of those layers, one GPU
  double share = 0;  // of the KV budget
  int64_t num_blocks = 0;
  // Blocks a sequence holds at most: ceil(window / B).
  int64_t WindowBlocks(int block_size) const { return (window_tokens + block_size - 1) / block_size; }
  // K and V bytes its blocks hold, one GPU.
  double AllocatedBytes(int block_size) const {
    return static_cast<double>(num_blocks * block_size) * static_cast<double>(bytes_per_token);
  }
};

// Every one of `layers` layers in one group that keeps every token: the classic paged cache,
// and how an engine without a hybrid manager allocates windowed layers.
KvCacheGroups OneGroup(int layers);

// vLLM V1's grouping of layers [first, first + count): layers of each kind (full, sliding
// window, linear attention) are cut into groups
// of `group size` layers, where the group size is the smallest kind's layer count (the largest
// one's when it is less than 1.5x the smallest), the last group of a kind padded with empty
// slots; a model with one kind is one group. Chunked local layers (Llama-4) count as full: vLLM
// keeps every token of them by default. gpt-oss-20b (12 windowed, 12 full): 1 + 1 groups
// of 12; Gemma-3-27B (52 windowed, 10 full): 1 full + 6 window groups of 10, 8 slots padded.
KvCacheGroups VllmHybridGroups(const ModelSpec& spec, int first, int count);

}  // namespace infergrid

#endif  // INFERGRID_MODELS_KV_CACHE_GROUPS_H_
