// sim/core/serving/sarathi_scheduler.cc: chunked prefills under the budget, guaranteed no-evict.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SarathiScheduler, ChunksPrefillsUnderTheBudgetAfterDecodes) {
  SchedulerFixture f("sarathi", 1000, {.max_num_seqs = 8, .max_num_batched_tokens = 8192, .chunk_size = 512});
  f.queues.waiting.push_back(NewSeq(0, 10, 50));
  f.Step();  // 10-token prompt
  f.queues.waiting.push_back(NewSeq(1, 1000, 5));
  const ScheduledBatch p1 = f.Step();
  ASSERT_EQ(p1.work.size(), 2u);
  EXPECT_TRUE(p1.work[0].decode);
  EXPECT_EQ(p1.work[1].new_tokens, 511);  // 512 - one decode token
  const ScheduledBatch p2 = f.Step();
  ASSERT_EQ(p2.work.size(), 2u);
  EXPECT_EQ(p2.work[1].new_tokens, 489);
  EXPECT_EQ(p2.work[1].seq->generated, 1);  // the last chunk samples the first token
}

TEST(SarathiScheduler, GuaranteedNoEvictAdmitsOnlyWhatCanRunToCompletion) {
  // 20 blocks of 16 tokens; two requests of 64 in and 100 out need 11 blocks each at full
  // length. Paged, both start and one is preempted later; with GUARANTEED_NO_EVICT the second
  // waits until the first is done, and nothing is preempted.
  for (const bool no_evict : {false, true}) {
    SchedulerFixture f(
        "sarathi", 20,
        {.max_num_seqs = 8, .max_num_batched_tokens = 1000, .chunk_size = 1000, .guaranteed_no_evict = no_evict});
    f.queues.waiting.push_back(NewSeq(0, 64, 100));
    f.queues.waiting.push_back(NewSeq(1, 64, 100));
    const ScheduledBatch first = f.Step();
    EXPECT_EQ(first.work.size(), no_evict ? 1u : 2u);
    int preempted = 0, steps = 0;
    while ((!f.queues.running.empty() || !f.queues.waiting.empty()) && steps < 1000) {
      preempted += f.Step().preempted_recompute;
      ++steps;
    }
    EXPECT_EQ(preempted > 0, !no_evict) << (no_evict ? "no-evict" : "paged");
  }
}

}  // namespace
}  // namespace infergrid
