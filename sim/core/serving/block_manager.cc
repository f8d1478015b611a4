#include "sim/core/serving/block_manager.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace infergrid {

BlockManager::BlockManager(const BlockManagerOptions& options)
    : block_size_(options.block_size),
      block_shift_(options.block_size > 0 && std::has_single_bit(static_cast<unsigned>(options.block_size))
                       ? std::countr_zero(static_cast<unsigned>(options.block_size))
                       : -1),
      groups_(options.groups),
      hybrid_(options.groups.hybrid()),
      total_(options.num_gpu_blocks),
      watermark_blocks_(WatermarkBlocks(options)),
      prefix_caching_(options.prefix_caching),
      free_plain_(options.num_gpu_blocks),
      cpu_total_(options.num_cpu_blocks) {
  for (const KvWindowPool& pool : options.window_pools) {
    window_pools_.push_back({pool.WindowBlocks(block_size_), pool.num_blocks, pool.num_blocks,
                             static_cast<int64_t>(options.watermark * static_cast<double>(pool.num_blocks))});
  }
}

bool BlockManager::PoolsFit(int64_t held, int64_t blocks, bool watermark) const {
  if (free_blocks() - blocks < (watermark ? watermark_blocks_ : 0)) return false;
  for (const WindowPoolState& pool : window_pools_) {
    const int64_t taken = std::min(held + blocks, pool.window_blocks) - std::min(held, pool.window_blocks);
    if (pool.free - taken < (watermark ? pool.watermark : 0)) return false;
  }
  return true;
}

int64_t BlockManager::PoolsGrowthRoom(int64_t held) const {
  int64_t room = free_blocks();
  for (const WindowPoolState& pool : window_pools_) {
    // Growing by k takes min(k, window_blocks - held) of the pool: unbounded once that fits.
    if (pool.free < pool.window_blocks - held) room = std::min(room, pool.free);
  }
  return room;
}

BlockManager::PoolUsage BlockManager::PoolsFullest() const {
  PoolUsage fullest{used_blocks(), total_blocks()};
  for (const WindowPoolState& pool : window_pools_) {
    // used / total > fullest.used / fullest.total, without division.
    if ((pool.total - pool.free) * fullest.total > fullest.used * pool.total)
      fullest = {pool.total - pool.free, pool.total};
  }
  return fullest;
}

void BlockManager::MovePools(int64_t from, int64_t to) {
  for (WindowPoolState& pool : window_pools_) {
    pool.free -= std::min(to, pool.window_blocks) - std::min(from, pool.window_blocks);
  }
}

int64_t BlockManager::HybridBlocksFor(int64_t tokens) const { return groups_.BlocksFor(tokens, block_size_); }

void BlockManager::Grow(Sequence& seq, int64_t blocks) {
  const int64_t plain = std::min(blocks, free_plain_);
  free_plain_ -= plain;
  for (int64_t i = plain; i < blocks && !lru_.empty(); ++i) {
    cache_.erase(lru_.front());
    lru_.pop_front();
    --evictable_;
  }
  if (!window_pools_.empty()) [[unlikely]]
    MovePools(seq.gpu_blocks, seq.gpu_blocks + blocks);
  seq.gpu_blocks += blocks;
}

void BlockManager::Unhold(uint64_t key) {
  auto it = cache_.find(key);
  if (it == cache_.end()) return;
  if (--it->second.holders == 0) {
    it->second.lru = lru_.insert(lru_.end(), key);
    ++evictable_;
  }
}

void BlockManager::Release(Sequence& seq) {
  for (int64_t i = 0; i < seq.linked_blocks; ++i) Unhold(seq.prefix_keys[static_cast<size_t>(i)]);
  free_plain_ += seq.gpu_blocks - seq.linked_blocks;
  if (!window_pools_.empty()) [[unlikely]]
    MovePools(seq.gpu_blocks, 0);
  seq.gpu_blocks = 0;
  seq.linked_blocks = 0;
}

BlockManager::PrefixMatch BlockManager::MatchPrefix(const Sequence& seq, int64_t max_blocks) const {
  PrefixMatch match;
  if (!prefix_caching_) return match;
  for (uint64_t key : seq.prefix_keys) {
    if (match.blocks >= max_blocks) break;
    auto it = cache_.find(key);
    if (it == cache_.end()) break;
    ++match.blocks;
    if (it->second.holders == 0) ++match.evictable;
  }
  return match;
}

void BlockManager::AcquirePrefix(Sequence& seq, int64_t blocks) {
  for (int64_t i = 0; i < blocks; ++i) {
    CacheEntry& entry = cache_.at(seq.prefix_keys[static_cast<size_t>(i)]);
    if (entry.holders++ == 0) {
      lru_.erase(entry.lru);
      --evictable_;
    }
  }
  seq.gpu_blocks += blocks;
  seq.linked_blocks = blocks;
}

void BlockManager::PublishComputed(Sequence& seq) {
  if (!prefix_caching_) return;
  const int64_t full = std::min<int64_t>(seq.computed / block_size_, static_cast<int64_t>(seq.prefix_keys.size()));
  // Only a leading run can be linked: a block already published by another sequence (two
  // identical prompts prefilled at once) stays private, and so do the blocks after it.
  while (seq.linked_blocks < full) {
    const uint64_t key = seq.prefix_keys[static_cast<size_t>(seq.linked_blocks)];
    auto [it, inserted] = cache_.try_emplace(key);
    if (!inserted) break;
    it->second.holders = 1;
    ++seq.linked_blocks;
  }
}

void BlockManager::SwapOut(Sequence& seq) {
  const int64_t blocks = seq.gpu_blocks;
  Release(seq);
  seq.cpu_blocks = blocks;
  cpu_used_ += blocks;
}

void BlockManager::SwapIn(Sequence& seq) {
  const int64_t blocks = seq.cpu_blocks;
  cpu_used_ -= blocks;
  seq.cpu_blocks = 0;
  Grow(seq, blocks);
}

uint64_t PrefixBlockKey(uint64_t hash, int64_t offset_in_hash_block) {
  // splitmix64 finalizer over the pair: stable across platforms and library versions.
  uint64_t z = hash * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(offset_in_hash_block) + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace infergrid
