// The paged KV cache of one replica: a fixed number of GPU blocks of `block_size` tokens (the
// capacity from the memory plan), a host-memory pool for swapped-out sequences, and an optional
// prefix cache. Counts only: no block ids are tracked except the cache keys of prefix blocks,
// so the common case (no prefix caching) is O(1) per call.
//
// Policies follow vLLM's block manager: new sequences are admitted only while
// free - needed >= watermark (1% of the blocks by default) so that running sequences keep room
// to grow; growth of running sequences may use every free block. With prefix caching, a full
// prompt block is published under its key once computed; blocks whose last holder leaves stay
// cached but evictable (they count as free) and are evicted least recently freed first.
#ifndef INFERGRID_SIM_CORE_SERVING_BLOCK_MANAGER_H_
#define INFERGRID_SIM_CORE_SERVING_BLOCK_MANAGER_H_

#include <algorithm>
#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

#include "models/kv_cache_groups.h"
#include "sim/core/serving/sequence.h"

namespace infergrid {

struct BlockManagerOptions {
  int64_t num_gpu_blocks = 0;
  int block_size = 16;
  double watermark = 0.01;  // fraction of the GPU blocks kept free at admission
  bool prefix_caching = false;
  int64_t num_cpu_blocks = 0;  // swap space in blocks
  // How a sequence's tokens take blocks: one group of every layer, or the engine's full and
  // sliding-window groups sharing the pool (a window group holds only the window's blocks).
  KvCacheGroups groups{};
  // TensorRT-LLM's pools per attention window beyond the first (models/kv_cache_groups.h
  // KvWindowPool): each has blocks of its own, and a sequence holding g blocks of the first pool
  // holds min(g, ceil(window / block_size)) of each. Empty: one pool.
  std::vector<KvWindowPool> window_pools{};
};

// Blocks admission keeps free: floor(watermark x GPU blocks).
inline int64_t WatermarkBlocks(const BlockManagerOptions& options) {
  return static_cast<int64_t>(options.watermark * static_cast<double>(options.num_gpu_blocks));
}

class BlockManager {
 public:
  explicit BlockManager(const BlockManagerOptions& options);

  int block_size() const { return block_size_; }
  int64_t total_blocks() const { return total_; }
  int64_t free_blocks() const { return free_plain_ + evictable_; }
  int64_t used_blocks() const { return total_ - free_blocks(); }
  int64_t free_cpu_blocks() const { return cpu_total_ - cpu_used_; }
  int64_t watermark_blocks() const { return watermark_blocks_; }
  int64_t BlocksFor(int64_t tokens) const {
    if (hybrid_) [[unlikely]]
      return HybridBlocksFor(tokens);
    // Asked for every sequence of every iteration: a shift for the usual power-of-two sizes.
    if (block_shift_ >= 0) [[likely]]
      return (tokens + block_size_ - 1) >> block_shift_;
    return (tokens + block_size_ - 1) / block_size_;
  }

  // Blocks `seq` must add to hold `tokens` tokens.
  int64_t Needed(const Sequence& seq, int64_t tokens) const {
    return std::max<int64_t>(0, BlocksFor(tokens) - seq.gpu_blocks);
  }
  // Admission of a waiting sequence (holding no blocks) needing `blocks` (the watermark applies).
  bool CanAdmit(int64_t blocks) const {
    if (!window_pools_.empty()) [[unlikely]]
      return PoolsFit(0, blocks, /*watermark=*/true);
    return free_blocks() - blocks >= watermark_blocks_;
  }
  // Growth of running sequences by `blocks` in all (no watermark). With window pools, growth
  // must be asked per sequence (the overload below); this one then assumes none is past its
  // window.
  bool CanGrow(int64_t blocks) const {
    if (!window_pools_.empty()) [[unlikely]]
      return PoolsFit(0, blocks, /*watermark=*/false);
    return free_blocks() >= blocks;
  }
  // Growth of `seq` by `blocks` (no watermark).
  bool CanGrow(const Sequence& seq, int64_t blocks) const {
    if (!window_pools_.empty()) [[unlikely]]
      return PoolsFit(seq.gpu_blocks, blocks, /*watermark=*/false);
    return free_blocks() >= blocks;
  }
  // The most blocks `seq` can add now (free_blocks() with one pool).
  int64_t GrowthRoom(const Sequence& seq) const {
    if (!window_pools_.empty()) [[unlikely]]
      return PoolsGrowthRoom(seq.gpu_blocks);
    return free_blocks();
  }

  // The used and total blocks of the pool with the largest used share: the only pool without
  // window pools. What KV usage reports and the least-kv router compare.
  struct PoolUsage {
    int64_t used = 0;
    int64_t total = 0;
  };
  PoolUsage FullestPool() const {
    if (!window_pools_.empty()) [[unlikely]]
      return PoolsFullest();
    return {used_blocks(), total_blocks()};
  }

  // Window pools: how many there are beyond the first, and per pool p (0: the first) its free
  // blocks and the blocks a sequence holding `blocks` of the first pool holds in it.
  int window_pool_count() const { return static_cast<int>(window_pools_.size()); }
  int64_t PoolFree(int p) const { return p == 0 ? free_blocks() : window_pools_[static_cast<size_t>(p - 1)].free; }
  int64_t PoolHeld(int p, int64_t blocks) const {
    return p == 0 ? blocks : std::min(blocks, window_pools_[static_cast<size_t>(p - 1)].window_blocks);
  }
  // Takes `blocks` free blocks for `seq`: never-cached ones first, then the least recently
  // freed cached ones (evicting them). The caller has checked CanAdmit/CanGrow.
  void Grow(Sequence& seq, int64_t blocks);
  // Returns every GPU block of `seq`; cache-linked ones become evictable when unheld.
  void Release(Sequence& seq);

  // Prefix cache: the number of leading prefix blocks of `seq` (at most `max_blocks`) present in
  // the cache, and how many of those are evictable (held by nobody, so taking them consumes free blocks).
  struct PrefixMatch {
    int64_t blocks = 0;
    int64_t evictable = 0;
  };
  PrefixMatch MatchPrefix(const Sequence& seq, int64_t max_blocks) const;
  // Links `seq` (holding no blocks) to the first `blocks` blocks of a match.
  void AcquirePrefix(Sequence& seq, int64_t blocks);
  // Publishes the full prompt blocks `seq` has computed beyond those already linked.
  void PublishComputed(Sequence& seq);
  int64_t cached_blocks() const { return static_cast<int64_t>(cache_.size()); }

  // Swap: moves all GPU blocks of `seq` to host memory (CanSwapOut first) and back.
  bool CanSwapOut(const Sequence& seq) const { return free_cpu_blocks() >= seq.gpu_blocks; }
  void SwapOut(Sequence& seq);
  bool CanSwapIn(const Sequence& seq) const { return CanAdmit(seq.cpu_blocks); }
  void SwapIn(Sequence& seq);

 private:
  int64_t HybridBlocksFor(int64_t tokens) const;  // out of line: the rare case
  struct WindowPoolState {
    int64_t window_blocks = 0;  // the most one sequence holds
    int64_t total = 0;
    int64_t free = 0;
    int64_t watermark = 0;
  };
  // Whether a sequence holding `held` blocks of the first pool can take `blocks` more in every
  // pool (keeping each pool's watermark free when `watermark`).
  bool PoolsFit(int64_t held, int64_t blocks, bool watermark) const;
  int64_t PoolsGrowthRoom(int64_t held) const;
  PoolUsage PoolsFullest() const;
  // Moves the window pools' free counts for a sequence going from `from` to `to` blocks.
  void MovePools(int64_t from, int64_t to);
  struct CacheEntry {
    int32_t holders = 0;
    std::list<uint64_t>::iterator lru;  // valid while holders == 0
  };
  void Unhold(uint64_t key);

  int block_size_;
  int block_shift_;  // log2(block_size_), or -1 when it is not a power of two
  KvCacheGroups groups_;
  bool hybrid_;  // window groups: BlocksFor goes through groups_
  int64_t total_;
  int64_t watermark_blocks_;
  bool prefix_caching_;
  int64_t free_plain_;  // free blocks not holding any cached prefix
  int64_t evictable_ = 0;  // cached blocks held by nobody (free, reusable on a hit)
  int64_t cpu_total_;
  int64_t cpu_used_ = 0;
  std::unordered_map<uint64_t, CacheEntry> cache_;
  std::list<uint64_t> lru_;  // evictable keys, least recently freed first
  std::vector<WindowPoolState> window_pools_;
};

// The cache key of prompt block `index` (tokens [index*block_size, (index+1)*block_size)) of a
// request whose prefix is identified by `hashes`, one per `hash_block_tokens` tokens (Mooncake:
// 512), each naming the whole prefix up to its block. The key chains the hash of the block
// holding the block's last token with the block's offset inside it.
uint64_t PrefixBlockKey(uint64_t hash, int64_t offset_in_hash_block);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SERVING_BLOCK_MANAGER_H_
