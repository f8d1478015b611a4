// sim/core/serving/sglang_scheduler.cc: chunked prompts, reserved outputs, the decaying new-token
// ratio, retraction.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SglangScheduler, CutsThePromptThatDoesNotFitAndRunsItsChunksBeforeAnyDecode) {
  SchedulerFixture f("sglang", 1000, {.max_num_seqs = 8, .max_num_batched_tokens = 8192, .chunk_size = 300});
  f.queues.waiting.push_back(NewSeq(0, 10, 50));
  f.Step();  // 10-token prompt: request 0 now decodes
  f.queues.waiting.push_back(NewSeq(1, 100, 5));
  f.queues.waiting.push_back(NewSeq(2, 450, 5));
  f.queues.waiting.push_back(NewSeq(3, 40, 5));
  // Request 1 whole, then request 2 cut to the 200 tokens left; request 3 waits behind it.
  const ScheduledBatch p1 = f.Step();
  ASSERT_EQ(p1.work.size(), 2u);
  EXPECT_EQ(p1.work[0].new_tokens, 100);
  EXPECT_EQ(p1.work[1].seq->record, 2);
  EXPECT_EQ(p1.work[1].new_tokens, 200);
  for (const ScheduledWork& w : p1.work) EXPECT_FALSE(w.decode);
  // Request 2's last 250 tokens first, then request 3 whole in the 50 left; no decode yet.
  const ScheduledBatch p2 = f.Step();
  ASSERT_EQ(p2.work.size(), 2u);
  EXPECT_EQ(p2.work[0].seq->record, 2);
  EXPECT_EQ(p2.work[0].new_tokens, 250);
  EXPECT_EQ(p2.work[0].seq->generated, 1);  // the last chunk samples the first token
  EXPECT_EQ(p2.work[1].seq->record, 3);
  EXPECT_EQ(p2.work[1].new_tokens, 40);
  const ScheduledBatch p3 = f.Step();  // nothing left to prefill: all four decode together
  EXPECT_EQ(p3.work.size(), 4u);
  for (const ScheduledWork& w : p3.work) EXPECT_TRUE(w.decode);
}

TEST(SglangScheduler, ReservesKvForTheOutputsOfRunningRequests) {
  // 100 blocks of 16 tokens. Request 0 (100 in, 1000 out) holds 7 after its prefill: 1,488
  // tokens free, less 999 outputs to come x new_token_ratio 0.7 = 788.7 left for a prompt's
  // input + output. 600 + 300 does not fit (its 38 blocks would): request 0 decodes.
  // 600 + 150 does.
  for (const int64_t output : {300, 150}) {
    SchedulerFixture f("sglang", 100, {.max_num_seqs = 8, .max_num_batched_tokens = 8192, .chunk_size = 8192});
    f.queues.waiting.push_back(NewSeq(0, 100, 1000));
    f.Step();
    ASSERT_EQ(f.manager.used_blocks(), 7);
    f.queues.waiting.push_back(NewSeq(1, 600, output));
    const ScheduledBatch p = f.Step();
    ASSERT_EQ(p.work.size(), 1u);
    EXPECT_EQ(p.work[0].seq->record, output == 300 ? 0 : 1);
    EXPECT_EQ(p.work[0].decode, output == 300);
  }
}

TEST(SglangScheduler, ADecayingRatioAdmitsTheWaitingPromptBeforeTheRunningOneEnds) {
  // As above with 600 + 300: new_token_ratio falls by 0.001 a decode step, so the 900 tokens
  // fit after about 245 steps (at a fixed 0.7 they would wait for all 999).
  SchedulerFixture f("sglang", 100, {.max_num_seqs = 8, .max_num_batched_tokens = 8192, .chunk_size = 8192});
  f.queues.waiting.push_back(NewSeq(0, 100, 1000));
  f.Step();
  f.queues.waiting.push_back(NewSeq(1, 600, 300));
  int decode_steps = 0;
  while (!f.queues.waiting.empty() && decode_steps < 1000) {
    f.Step();
    ++decode_steps;
  }
  EXPECT_GT(decode_steps, 200);
  EXPECT_LT(decode_steps, 300);
}

TEST(SglangScheduler, RetractsTheFewestOutputsFirstUntilTwentyStepsFit) {
  // SGLang's token pool (blocks of 1), 199 tokens. Four requests decode, admitted in this
  // order, holding 49 + 34 + 44 + 69 = 196 tokens: the next step needs 4 and 3 are free.
  SchedulerFixture f("sglang", 199, {.max_num_seqs = 8, .max_num_batched_tokens = 8192, .chunk_size = 8192}, 0,
                     /*block_size=*/1);
  struct Running {
    int32_t prompt, generated;
  };
  const Running held[] = {{20, 30}, {30, 5}, {40, 5}, {10, 60}};
  for (int i = 0; i < 4; ++i) {
    Sequence* seq = NewSeq(i, held[i].prompt, 1000);
    seq->generated = held[i].generated;
    seq->computed = seq->TotalTokens() - 1;
    seq->status = SequenceStatus::kRunning;
    seq->scheduled = true;
    f.manager.Grow(*seq, seq->computed);
    f.queues.running.push_back(seq);
  }
  f.queues.waiting.push_back(NewSeq(9, 500, 10));  // does not fit: waits ahead of the retracted
  ASSERT_EQ(f.manager.free_blocks(), 3);
  const ScheduledBatch p = f.Step();
  // Fewest outputs first, the longer input of the two with 5: request 2 (3 + 44 = 47 free for
  // 3 requests, under 3 x 20), then request 1 (81 free, at least 2 x 20). vLLM's order would
  // have preempted request 3, the last admitted, alone.
  EXPECT_EQ(p.preempted_recompute, 2);
  ASSERT_EQ(f.queues.running.size(), 2u);
  EXPECT_EQ(f.queues.running[0]->record, 0);
  EXPECT_EQ(f.queues.running[1]->record, 3);
  ASSERT_EQ(f.queues.waiting.size(), 3u);
  EXPECT_EQ(f.queues.waiting[0]->record, 9);
  EXPECT_EQ(f.queues.waiting[1]->record, 2);
  EXPECT_EQ(f.queues.waiting[2]->record, 1);
  for (int i = 1; i < 3; ++i) {
    EXPECT_EQ(f.queues.waiting[i]->computed, 0);
    EXPECT_EQ(f.queues.waiting[i]->gpu_blocks, 0);
    EXPECT_EQ(f.queues.waiting[i]->preemptions, 1);
    EXPECT_EQ(f.queues.waiting[i]->generated, 5);  // prefilled again with its outputs so far
  }
  ASSERT_EQ(p.work.size(), 2u);
  for (const ScheduledWork& w : p.work) EXPECT_TRUE(w.decode);
  EXPECT_EQ(f.manager.free_blocks(), 81 - 2);
}

}  // namespace
}  // namespace infergrid
