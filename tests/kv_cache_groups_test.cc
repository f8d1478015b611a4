// models/kv_cache_groups.h: vLLM V1's hybrid KV-cache groups (worked examples from its code) and
// the blocks a sequence takes in them.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/kv_cache_groups.h"
#include "tests/catalog_model.h"

namespace infergrid {
namespace {

// vLLM V1's _get_kv_cache_groups_uniform_page_size, by hand:
//   gpt-oss-20b: 12 sliding + 12 full; min = max = 12 -> group size 12, 1 full + 1 window group.
//   Gemma-3-27B: 52 sliding + 10 full; 52 >= 1.5 x 10 -> group size 10; full: 1 group; sliding:
//     ceil(52 / 10) = 6 groups, the last with 2 layers and 8 padded slots.
//   Mistral-7B v0.1: one kind -> one window group of all 32 layers.
TEST(KvCacheGroups, VllmHybridGroupsWorkedExamples) {
  const KvCacheGroups oss = VllmHybridGroups(testing::CatalogModel("gpt-oss-20b"), 0, 24);
  EXPECT_EQ(oss.layers_per_group, 12);
  EXPECT_EQ(oss.full_groups, 1);
  EXPECT_EQ(oss.window_groups, 1);
  EXPECT_EQ(oss.window_tokens, 128);
  EXPECT_EQ(oss.padded_slots, 0);
  const KvCacheGroups gemma = VllmHybridGroups(testing::CatalogModel("gemma-3-27b"), 0, 62);
  EXPECT_EQ(gemma.layers_per_group, 10);
  EXPECT_EQ(gemma.full_groups, 1);
  EXPECT_EQ(gemma.window_groups, 6);
  EXPECT_EQ(gemma.padded_slots, 8);
  const KvCacheGroups mistral = VllmHybridGroups(testing::CatalogModel("mistral-7b"), 0, 32);
  EXPECT_EQ(mistral.layers_per_group, 32);
  EXPECT_EQ(mistral.full_groups, 0);
  EXPECT_EQ(mistral.window_groups, 1);
  const KvCacheGroups llama = VllmHybridGroups(testing::CatalogModel("llama-3-8b"), 0, 32);
  EXPECT_EQ(llama.layers_per_group, 32);
  EXPECT_EQ(llama.full_groups, 1);
  EXPECT_FALSE(llama.hybrid());
}

// SlidingWindowManager frees the blocks before (L - W + 1) // B: a window of W tokens spans at
// most ceil((W - 1) / B) + 1 blocks. gpt-oss at B = 16: ceil(127 / 16) + 1 = 9.
TEST(KvCacheGroups, BlocksPerSequenceStopGrowingInWindowGroups) {
  const KvCacheGroups oss = VllmHybridGroups(testing::CatalogModel("gpt-oss-20b"), 0, 24);
  EXPECT_EQ(oss.WindowBlocks(16), 9);
  // 100 tokens: 7 blocks in each group, as a full-attention cache of 24 layers takes 7 blocks
  // of twice the size.
  EXPECT_EQ(oss.BlocksFor(100, 16), 7 + 7);
  // 131,072 tokens: 8,192 in the full group, 9 in the window group.
  EXPECT_EQ(oss.BlocksFor(131072, 16), 8192 + 9);
  // A state that does not grow past the window: Mistral's blocks at 4,096 and 1M tokens.
  const KvCacheGroups mistral = VllmHybridGroups(testing::CatalogModel("mistral-7b"), 0, 32);
  EXPECT_EQ(mistral.BlocksFor(1 << 20, 16), mistral.BlocksFor(8192, 16));
  EXPECT_EQ(mistral.BlocksFor(1 << 20, 16), (4095 + 15) / 16 + 1);
  // Transfer slots: 12 layers x (every token + the last 128).
  EXPECT_EQ(oss.TokenSlots(1000), 1000 + 128);
}

}  // namespace
}  // namespace infergrid
