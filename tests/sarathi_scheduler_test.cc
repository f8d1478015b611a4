// sim/core/serving/sarathi_scheduler.cc: chunked prefills under the budget, guaranteed no-evict (also across
// window pools).

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
    ScheduledBatch plan;
    scheduler->Schedule(queues, blocks, plan);
    EXPECT_EQ(plan.work.size(), window_blocks > 0 ? 3u : 10u) << window_blocks;
  }
}

}  // namespace
}  // namespace infergrid
