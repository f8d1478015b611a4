// sim/core/memory_plan/speculative_memory.h: a draft model's weights leave the KV budget and its KV
// per token joins every block's.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/core/memory_plan/memory_plan.h"
#include "sim/core/memory_plan/speculative_memory.h"

namespace infergrid {
namespace {

// The draft's weights leave the KV budget and its KV per token joins every block's.
TEST(SpeculativeMemory, DraftWeightsLeaveTheBudgetAndItsKvJoinsEveryBlock) {
  MemoryPlan plan;
  plan.block_size = 16;
  plan.kv_bytes_per_token = 131072;
  plan.kv_cache_bytes = 10.0 * (1 << 30);
  plan.weight_bytes = 16e9;
  const DraftMemory draft{
      .weight_bytes = 1.0 * (1 << 30), .pass_weight_bytes = 1.0 * (1 << 30), .kv_bytes_per_token = 32768};
  const MemoryPlanRequest request;
  ASSERT_TRUE(AddDraftToPlan(draft, request, plan).ok());
  EXPECT_EQ(plan.kv_cache_bytes, 9.0 * (1 << 30));
  EXPECT_EQ(plan.weight_bytes, 16e9 + (1 << 30));
  EXPECT_EQ(plan.num_blocks, static_cast<int64_t>(9.0 * (1 << 30) / (16 * (131072 + 32768))));  // 3,686
  EXPECT_EQ(plan.kv_tokens, plan.num_blocks * 16);
  MemoryPlan tiny = plan;
  tiny.kv_cache_bytes = 1e6;
  EXPECT_EQ(AddDraftToPlan(draft, request, tiny).code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace infergrid
