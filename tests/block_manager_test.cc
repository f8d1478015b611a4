// sim/core/serving/block_manager.h: the admission watermark, the prefix cache, swapping to host, vLLM V1's
// hybrid KV-cache groups and TensorRT-LLM's window pools.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/kv_cache_groups.h"
#include "tests/catalog_model.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ---------------------------------------------------------------- block manager

TEST(BlockManager, WatermarkAppliesToAdmissionOnly) {
  BlockManager blocks({.num_gpu_blocks = 200, .block_size = 16, .watermark = 0.01});
  EXPECT_EQ(blocks.watermark_blocks(), 2);
  EXPECT_EQ(blocks.BlocksFor(33), 3);
  EXPECT_TRUE(blocks.CanAdmit(198));
  EXPECT_FALSE(blocks.CanAdmit(199));
  EXPECT_TRUE(blocks.CanGrow(200));
  Sequence seq;
  blocks.Grow(seq, 150);
  EXPECT_EQ(blocks.used_blocks(), 150);
  EXPECT_EQ(blocks.Needed(seq, 150 * 16 + 1), 1);
  blocks.Release(seq);
  EXPECT_EQ(blocks.free_blocks(), 200);
  EXPECT_EQ(seq.gpu_blocks, 0);
}

TEST(BlockManager, PrefixCacheSharesAndEvictsLeastRecentlyFreed) {
  BlockManager blocks({.num_gpu_blocks = 10, .block_size = 16, .watermark = 0, .prefix_caching = true});
  Sequence a;
  a.prefix_keys = {1, 2, 3};
  blocks.Grow(a, 4);
  a.computed = 40;  // two full blocks computed
  blocks.PublishComputed(a);
  EXPECT_EQ(a.linked_blocks, 2);
  Sequence b;
  b.prefix_keys = {1, 2, 9};
  const BlockManager::PrefixMatch live = blocks.MatchPrefix(b, 10);
  EXPECT_EQ(live.blocks, 2);
  EXPECT_EQ(live.evictable, 0);
  blocks.Release(a);  // the two cached blocks become evictable, still free
  EXPECT_EQ(blocks.free_blocks(), 10);
  EXPECT_EQ(blocks.cached_blocks(), 2);
  const BlockManager::PrefixMatch idle = blocks.MatchPrefix(b, 10);
  EXPECT_EQ(idle.evictable, 2);
  blocks.AcquirePrefix(b, 2);
  EXPECT_EQ(blocks.free_blocks(), 8);
  blocks.Release(b);
  // Taking all ten blocks evicts both cached prefixes.
  Sequence c;
  blocks.Grow(c, 10);
  EXPECT_EQ(blocks.cached_blocks(), 0);
  EXPECT_EQ(blocks.MatchPrefix(b, 10).blocks, 0);
}

TEST(BlockManager, SwapMovesBlocksToHostAndBack) {
  BlockManager blocks({.num_gpu_blocks = 100, .block_size = 16, .watermark = 0, .num_cpu_blocks = 5});
  Sequence seq;
  blocks.Grow(seq, 6);
  EXPECT_FALSE(blocks.CanSwapOut(seq));
  Sequence small;
  blocks.Grow(small, 4);
  ASSERT_TRUE(blocks.CanSwapOut(small));
  blocks.SwapOut(small);
  EXPECT_EQ(small.cpu_blocks, 4);
  EXPECT_EQ(blocks.free_cpu_blocks(), 1);
  EXPECT_EQ(blocks.used_blocks(), 6);
  blocks.SwapIn(small);
  EXPECT_EQ(small.gpu_blocks, 4);
  EXPECT_EQ(blocks.free_cpu_blocks(), 5);
}

TEST(KvCacheGroups, BlockManagerChargesEveryGroup) {
  BlockManagerOptions options;
  options.num_gpu_blocks = 100;
  options.block_size = 16;
  options.watermark = 0;
  options.groups = VllmHybridGroups(testing::CatalogModel("gpt-oss-20b"), 0, 24);
  BlockManager blocks(options);
  Sequence seq;
  EXPECT_EQ(blocks.Needed(seq, 100), 14);
  blocks.Grow(seq, blocks.Needed(seq, 100));
  // Growing to 1,000 tokens: the full group adds 63 - 7 blocks, the window group 9 - 7.
  EXPECT_EQ(blocks.Needed(seq, 1000), (63 - 7) + (9 - 7));
}

TEST(WindowPools, BlockManagerHoldsEachWindowCyclically) {
  BlockManager blocks(TwoPools());
  ASSERT_EQ(blocks.window_pool_count(), 1);
  Sequence a, b, c;
  ASSERT_TRUE(blocks.CanAdmit(8));
  blocks.Grow(a, 8);  // 8 of the first pool, 4 of the window's
  blocks.Grow(b, 8);
  EXPECT_EQ(blocks.PoolFree(0), 84);
  EXPECT_EQ(blocks.PoolFree(1), 2);
  EXPECT_EQ(blocks.PoolHeld(1, 8), 4);
  // The window pool binds admission while the first has room.
  EXPECT_TRUE(blocks.CanAdmit(2));
  EXPECT_FALSE(blocks.CanAdmit(3));
  // A sequence past its window grows in the first pool only.
  EXPECT_TRUE(blocks.CanGrow(a, 50));
  EXPECT_EQ(blocks.GrowthRoom(a), 84);
  blocks.Grow(a, 50);
  EXPECT_EQ(blocks.PoolFree(0), 34);
  EXPECT_EQ(blocks.PoolFree(1), 2);
  // One still inside its window needs a window block for each new block, up to the window.
  blocks.Grow(c, 2);
  EXPECT_EQ(blocks.PoolFree(1), 0);
  EXPECT_FALSE(blocks.CanGrow(c, 1));
  EXPECT_EQ(blocks.GrowthRoom(c), 0);
  const BlockManager::PoolUsage fullest = blocks.FullestPool();
  EXPECT_EQ(fullest.used, 10);
  EXPECT_EQ(fullest.total, 10);
  blocks.Release(a);
  EXPECT_EQ(blocks.PoolFree(0), 90);
  EXPECT_EQ(blocks.PoolFree(1), 4);
  EXPECT_TRUE(blocks.CanGrow(c, 2));
  EXPECT_EQ(blocks.GrowthRoom(c), 90);  // the 2 blocks c can still take there are free
}

}  // namespace
}  // namespace infergrid
