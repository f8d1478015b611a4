// sim/core/serving/block_manager.h: the admission watermark, the prefix cache, swapping to host.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
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

}  // namespace
}  // namespace infergrid
