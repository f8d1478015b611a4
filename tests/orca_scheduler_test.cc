// sim/core/serving/orca_scheduler.cc: new prompts mixed with decodes, KV reserved.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(OrcaScheduler, MixesNewPromptsWithDecodesAndReservesKv) {
  SchedulerFixture f("orca", 1000, {.max_num_seqs = 8, .max_num_batched_tokens = 4096});
  f.queues.waiting.push_back(NewSeq(0, 100, 60));
  f.Step();
  EXPECT_EQ(f.manager.used_blocks(), 10);  // ceil(160 / 16), reserved up front
  f.queues.waiting.push_back(NewSeq(1, 200, 8));
  const ScheduledBatch p = f.Step();
  ASSERT_EQ(p.work.size(), 2u);
  EXPECT_TRUE(p.work[0].decode);
  EXPECT_FALSE(p.work[1].decode);
  EXPECT_EQ(p.work[1].new_tokens, 200);
  EXPECT_EQ(f.manager.used_blocks(), 10 + 13);
}

}  // namespace
}  // namespace infergrid
