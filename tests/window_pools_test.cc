// TensorRT-LLM's pools per attention window (--max-attention-window): how the memory plan splits
// the KV budget among them (worked examples from the C++ KV cache manager's rule), what it
// refuses, and how the block manager and the guaranteed_no_evict scheduler hold a sequence in
// each pool.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "base/dtype.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/attention_layout.h"
#include "models/kv_cache_size.h"
#include "sim/core/memory_plan/memory_plan_detail.h"
#include "sim/core/serving/block_manager.h"
#include "sim/core/serving/scheduler.h"
#include "tests/memory_plan_request.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// gpt-oss-20b (MXFP4 experts) on one H100 as TensorRT-LLM's PyTorch backend at 8,192 tokens:
// 24 layers alternating a 128-token window (even layers) and full attention, 8 KV heads of 64
// in bf16, so 2 x 8 x 64 x 2 = 2,048 B a token and layer and 24,576 B for each half of the layers.
MemoryPlanRequest GptOssOnTrtllm(std::vector<int64_t> windows) {
  MemoryPlanRequest r = testing::Deployment("gpt-oss-20b", "h100-sxm", 1, 8192, "trtllm@pytorch");
  absl::StatusOr<WeightFormat> mxfp4 = ParseWeightFormat("mxfp4");
  EXPECT_TRUE(mxfp4.ok());
  if (mxfp4.ok()) r.weights = *mxfp4;
  r.weights.experts_only = true;
  r.max_attention_window = std::move(windows);
  return r;
}

// The windows repeat over the layers: [128, 8192] gives the 12 windowed layers a pool of 128
// tokens and the 12 full ones a pool of 8,192. Each pool's share of the budget is
//   window x layers x bytes per token of its layers, over the same summed for every pool:
//   8192 x 12 x 24,576 / (8192 x 12 x 24,576 + 128 x 12 x 24,576) = 8192 / 8320,
// and its blocks floor(budget x share / 24,576 B / 32 tokens).
TEST(WindowPools, TrtllmSplitsTheBudgetInProportionToTheWindows) {
  absl::StatusOr<MemoryPlanDetail> one = ExplainEngineMemory(GptOssOnTrtllm({}));
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_TRUE(one->plan.window_pools.empty());
  EXPECT_EQ(one->plan.num_blocks, 36'227);  // every layer in one pool: floor(budget / (32 x 49,152))
  absl::StatusOr<MemoryPlanDetail> split = ExplainEngineMemory(GptOssOnTrtllm({128, 8192}));
  ASSERT_TRUE(split.ok()) << split.status();
  const double budget = split->plan.kv_cache_bytes;
  EXPECT_DOUBLE_EQ(budget, one->plan.kv_cache_bytes);  // the pools split the same budget
  const std::vector<KvWindowPool>& pools = split->plan.window_pools;
  ASSERT_EQ(pools.size(), 2u);
  EXPECT_EQ(pools[0].window_tokens, 8192);
  EXPECT_EQ(pools[1].window_tokens, 128);
  for (const KvWindowPool& pool : pools) {
    EXPECT_EQ(pool.layers, 12);
    EXPECT_EQ(pool.bytes_per_token, 12 * 2048);
  }
  EXPECT_DOUBLE_EQ(pools[0].share, 8192.0 / 8320.0);
  EXPECT_DOUBLE_EQ(pools[1].share, 128.0 / 8320.0);
  EXPECT_EQ(pools[0].num_blocks, static_cast<int64_t>(budget * 8192.0 / 8320.0 / 24576.0 / 32.0));
  EXPECT_EQ(pools[0].num_blocks, 71'340);
  EXPECT_EQ(pools[1].num_blocks, static_cast<int64_t>(budget * 128.0 / 8320.0 / 24576.0 / 32.0));
  EXPECT_EQ(pools[1].num_blocks, 1'114);
  // The first pool stands for the cache; a max_model_len request holds 256 + 4 blocks, and each
  // pool holds about as many of those (71,340 / 256 = 278.7, 1,114 / 4 = 278.5): the window's
  // share is what one such request needs there.
  EXPECT_EQ(split->plan.num_blocks, 71'340);
  EXPECT_EQ(split->plan.kv_bytes_per_token, 24'576);
  EXPECT_EQ(split->plan.kv().window_pools.size(), 2u);
  EXPECT_THAT(absl::StrJoin(split->notes, "\n"), HasSubstr("max_attention_window: 2 pools"));
  EXPECT_THAT(absl::StrJoin(split->plan.log_lines, "\n"), HasSubstr("primary pool for windowSize 128: 1114"));
  // One window for every layer at max_model_len is one pool, the plan without the list.
  absl::StatusOr<MemoryPlanDetail> uniform = ExplainEngineMemory(GptOssOnTrtllm({8192}));
  ASSERT_TRUE(uniform.ok()) << uniform.status();
  EXPECT_TRUE(uniform->plan.window_pools.empty());
  EXPECT_EQ(uniform->plan.num_blocks, one->plan.num_blocks);
}

// Unequal layer counts: Gemma-3-27B's five windowed layers to one full one, the window list
// repeating [1024 x 5, max_model_len]. The share counts the layers twice over (once in the
// pool's bytes per token, once as the layer count), as the rule reads.
TEST(WindowPools, SharesWeighWindowLayersAndBytes) {
  MemoryPlanRequest r = testing::Deployment("gemma-3-27b", "h200-sxm", 2, 32768, "trtllm@pytorch");
  r.max_attention_window = {1024, 1024, 1024, 1024, 1024, 32768};
  absl::StatusOr<MemoryPlanDetail> plan = ExplainEngineMemory(r);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::vector<KvWindowPool>& pools = plan->plan.window_pools;
  ASSERT_EQ(pools.size(), 2u);
  const AttentionLayerCounts kinds = CountAttentionLayers(r.model);
  EXPECT_EQ(pools[0].layers, kinds.full);
  EXPECT_EQ(pools[1].layers, kinds.window);
  const double full = 32768.0 * kinds.full * pools[0].bytes_per_token;
  const double window = 1024.0 * kinds.window * pools[1].bytes_per_token;
  EXPECT_DOUBLE_EQ(pools[0].share, full / (full + window));
  EXPECT_DOUBLE_EQ(pools[1].share, window / (full + window));
  EXPECT_EQ(pools[0].bytes_per_token * kinds.window, pools[1].bytes_per_token * kinds.full);
}

TEST(WindowPools, ListsTheEngineOrTheModelCannotTakeAreRefused) {
  const auto refusal = [](const MemoryPlanRequest& r) {
    absl::StatusOr<MemoryPlanDetail> plan = ExplainEngineMemory(r);
    return plan.ok() ? std::string("accepted") : std::string(plan.status().message());
  };
  // Layer 1 is full attention: a 128-token window would make the engine attend only within it.
  EXPECT_THAT(refusal(GptOssOnTrtllm({8192, 128})),
              HasSubstr("gives layer 1 (a full-attention layer of gpt-oss-20b) a 128-token window"));
  EXPECT_THAT(refusal(GptOssOnTrtllm({64, 8192})),
              HasSubstr("(a sliding-window layer of gpt-oss-20b) a 64-token window"));
  EXPECT_THAT(refusal(GptOssOnTrtllm({128, 16384})), HasSubstr("every window must be in 1..max_model_len (8192)"));
  std::vector<int64_t> too_many(25, 8192);
  EXPECT_THAT(refusal(GptOssOnTrtllm(too_many)), HasSubstr("lists 25 windows for gpt-oss-20b's 24 layers"));
  MemoryPlanRequest vllm = GptOssOnTrtllm({128, 8192});
  vllm.engine = "vllm-v1";
  EXPECT_THAT(refusal(vllm), HasSubstr("has no such setting"));
  MemoryPlanRequest stages = GptOssOnTrtllm({128, 8192});
  stages.pipeline_parallel = 2;
  EXPECT_THAT(refusal(stages), HasSubstr("window pools across pipeline stages are not modelled"));
  MemoryPlanRequest capped = GptOssOnTrtllm({128, 8192});
  capped.num_gpu_blocks_override = 1000;
  EXPECT_THAT(refusal(capped), HasSubstr("block-count override"));
  // Mistral-7B v0.1 windows every layer: one cyclic pool below max_model_len is not modelled.
  MemoryPlanRequest mistral = testing::Deployment("mistral-7b", "h100-sxm", 1, 32768, "trtllm@pytorch");
  mistral.max_attention_window = {4096};
  EXPECT_THAT(refusal(mistral), HasSubstr("one cyclic pool, is not modelled"));
}

// A first pool of 100 blocks and a 128-token window pool of 10 blocks of 32 tokens: a sequence
// holding g blocks of the first pool holds min(g, 4) of the window pool.
BlockManagerOptions TwoPools() {
  BlockManagerOptions options{.num_gpu_blocks = 100, .block_size = 32, .watermark = 0};
  KvWindowPool window;
  window.window_tokens = 128;
  window.num_blocks = 10;
  options.window_pools.push_back(window);
  return options;
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

// guaranteed_no_evict reserves each admitted request's whole length in every pool: with 12
// window blocks and 4 per request (210 tokens: 7 blocks, min(7, 4) of the window's), three
// requests start although the first pool could hold a hundred more.
TEST(WindowPools, GuaranteedNoEvictReservesEveryPool) {
  const SchedulerLimits limits{
      .max_num_seqs = 100, .max_num_batched_tokens = 100000, .chunk_size = 100000, .guaranteed_no_evict = true};
  for (const int64_t window_blocks : {int64_t{12}, int64_t{0}}) {
    BlockManagerOptions options = TwoPools();
    options.num_gpu_blocks = 1000;
    if (window_blocks > 0) {
      options.window_pools[0].num_blocks = window_blocks;
    } else {
      options.window_pools.clear();
    }
    BlockManager blocks(options);
    std::unique_ptr<Scheduler> scheduler = MakeScheduler(SchedulerKind::kSarathi, limits);
    std::vector<std::unique_ptr<Sequence>> owned;
    ReplicaQueues queues;
    for (int i = 0; i < 10; ++i) {
      owned.push_back(std::make_unique<Sequence>());
      owned.back()->record = i;
      owned.back()->prompt_tokens = 200;
      owned.back()->output_tokens = 10;
      queues.waiting.push_back(owned.back().get());
    }
    ScheduledBatch scheduled;
    scheduler->Schedule(queues, blocks, scheduled);
    EXPECT_EQ(scheduled.work.size(), window_blocks > 0 ? 3u : 10u) << window_blocks;
  }
}

}  // namespace
}  // namespace infergrid
