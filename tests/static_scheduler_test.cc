// sim/core/serving/static_scheduler.cc: a whole batch at a time.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(StaticScheduler, LaterArrivalsWaitForTheWholeBatch) {
  SchedulerFixture f("static", 1000, {.max_num_seqs = 8, .max_num_batched_tokens = 4096});
  f.queues.waiting.push_back(NewSeq(0, 20, 2));
  f.queues.waiting.push_back(NewSeq(1, 20, 4));
  const ScheduledBatch prefill = f.Step();
  EXPECT_EQ(prefill.work.size(), 2u);
  f.queues.waiting.push_back(NewSeq(2, 20, 2));
  const ScheduledBatch d1 = f.Step();  // request 0 finishes here (its 2nd token)
  EXPECT_EQ(d1.work.size(), 2u);
  const ScheduledBatch d2 = f.Step();  // request 0 pads
  EXPECT_EQ(d2.work.size(), 1u);
  EXPECT_EQ(d2.padding_contexts.size(), 1u);
  EXPECT_EQ(f.queues.waiting.size(), 1u);
  f.Step();  // request 1's 4th token: the batch ends
  EXPECT_TRUE(f.queues.running.empty());
  const ScheduledBatch next = f.Step();
  ASSERT_EQ(next.work.size(), 1u);
  EXPECT_EQ(next.work[0].seq->record, 2);
}

}  // namespace
}  // namespace infergrid
