// The serving model and the SimGrid engine: block manager, schedulers, routers, metrics and
// whole runs with a linear test cost model whose iteration times are known in closed form.
// Every test that starts a SimGrid engine runs it in a forked child (one engine per process),
// so the binary also passes when run directly, not only one test per process under ctest.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <sstream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "hardware/topology.h"
#include "sim/core/engine/platform.h"
#include "sim/core/engine/simulation.h"
#include "sim/core/metrics/latency_stats.h"
#include "sim/core/metrics/log_histogram.h"
#include "sim/core/serving/admission.h"
#include "sim/core/serving/block_manager.h"
#include "sim/core/serving/front_end.h"
#include "sim/core/serving/iteration_pricer.h"
#include "sim/core/serving/replica.h"
#include "sim/core/serving/router.h"
#include "sim/core/serving/scheduler.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// duration = 1 ms + 10 us per new token + 10 ns per cached context token.
class LinearCostModel final : public IterationCostModel {
 public:
  IterationCost Cost(const BatchShape& batch) const override {
    IterationCost cost;
    double context = 0;
    for (const PrefillChunk& c : batch.prefill) context += static_cast<double>(c.context_tokens);
    for (int64_t c : batch.decode_context_tokens) context += static_cast<double>(c);
    cost.duration_s = Seconds(batch.TotalNewTokens(), context);
    cost.hbm_bytes = 1e9;
    cost.hbm_bound_s = cost.duration_s / 2;
    cost.binding = Resource::kHbm;
    return cost;
  }
  absl::string_view Description() const override { return "linear test model"; }
  static double Seconds(int64_t new_tokens, double context) {
    return 1e-3 + 1e-5 * static_cast<double>(new_tokens) + 1e-8 * context;
  }
};

class RecordingSink final : public IterationSink {
 public:
  void OnIteration(const IterationRecord& r) override { records.push_back(r); }
  std::vector<IterationRecord> records;
};

Sequence* NewSeq(int64_t record, int32_t prompt, int32_t output) {
  auto* seq = new Sequence;
  seq->record = record;
  seq->prompt_tokens = prompt;
  seq->output_tokens = output;
  return seq;
}

// A sequence owned by `pool`, for a replica (which gives it back when it finishes).
Sequence* PooledSeq(SequencePool& pool, int64_t record, int32_t prompt, int32_t output) {
  Sequence seq;
  seq.record = record;
  seq.prompt_tokens = prompt;
  seq.output_tokens = output;
  return pool.Acquire(std::move(seq));
}

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

// ---------------------------------------------------------------- schedulers

struct SchedulerFixture {
  explicit SchedulerFixture(const std::string& name, int64_t blocks = 1000,
                            SchedulerLimits limits = SchedulerLimits{}, int64_t cpu_blocks = 0, int block_size = 16)
      : manager({.num_gpu_blocks = blocks, .block_size = block_size, .watermark = 0.01, .num_cpu_blocks = cpu_blocks}),
        scheduler(MakeScheduler(*ParseEnumName(kSchedulerNames, name), limits)) {}
  ~SchedulerFixture() {
    for (auto* q : {&queues.waiting, &queues.swapped}) for (Sequence* s : *q) delete s;
    for (Sequence* s : queues.running) delete s;
  }
  // Plans, then applies the planned tokens as the replica does.
  BatchPlan Step() {
    BatchPlan plan;
    scheduler->Plan(queues, manager, plan);
    for (const ScheduledWork& w : plan.work) {
      w.seq->computed += w.new_tokens;
      if (w.seq->computed == w.seq->TotalTokens()) ++w.seq->generated;
    }
    std::vector<Sequence*> released;
    scheduler->Retire(queues, manager, released);
    for (Sequence* s : released) delete s;
    return plan;
  }
  BlockManager manager;
  std::unique_ptr<Scheduler> scheduler;
  ReplicaQueues queues;
};

TEST(VllmScheduler, PrefillsRunAloneAndFirst) {
  SchedulerFixture f("vllm", 1000, {.max_num_seqs = 8, .max_num_batched_tokens = 300});
  f.queues.waiting.push_back(NewSeq(0, 100, 3));
  f.Step();  // prefill of request 0
  f.queues.waiting.push_back(NewSeq(1, 150, 2));
  f.queues.waiting.push_back(NewSeq(2, 160, 2));
  const BatchPlan p1 = f.Step();
  // Request 1 fits the 300-token budget, request 2 does not: a prefill-only iteration.
  ASSERT_EQ(p1.work.size(), 1u);
  EXPECT_EQ(p1.work[0].seq->record, 1);
  EXPECT_EQ(p1.work[0].new_tokens, 150);
  const BatchPlan p2 = f.Step();
  ASSERT_EQ(p2.work.size(), 1u);
  EXPECT_EQ(p2.work[0].seq->record, 2);
  const BatchPlan p3 = f.Step();  // all three decode together
  EXPECT_EQ(p3.work.size(), 3u);
  for (const ScheduledWork& w : p3.work) EXPECT_TRUE(w.decode);
}

TEST(VllmScheduler, PreemptsTheLastAdmittedByRecompute) {
  // 10 blocks of 16 tokens; two 64-token prompts take 5 blocks each (prompt + first token).
  SchedulerFixture f("vllm", 10, {.max_num_seqs = 8, .max_num_batched_tokens = 1000});
  f.queues.waiting.push_back(NewSeq(0, 64, 100));
  f.queues.waiting.push_back(NewSeq(1, 63, 100));
  f.Step();
  ASSERT_EQ(f.queues.running.size(), 2u);
  EXPECT_EQ(f.manager.used_blocks(), 8);
  // Decode: request 0 needs a fifth block, request 1 crosses 64 tokens and needs one too.
  f.Step();
  f.Step();
  BatchPlan plan;
  int steps = 0;
  do {
    plan = f.Step();
    ++steps;
  } while (plan.preempted_recompute == 0 && steps < 100);
  ASSERT_EQ(plan.preempted_recompute, 1);
  ASSERT_EQ(f.queues.waiting.size(), 1u);
  EXPECT_EQ(f.queues.waiting.front()->record, 1);
  EXPECT_EQ(f.queues.waiting.front()->computed, 0);
  EXPECT_EQ(f.queues.waiting.front()->preemptions, 1);
  EXPECT_EQ(f.queues.waiting.front()->gpu_blocks, 0);
}

TEST(VllmScheduler, SwapModeMovesTheVictimToHostMemory) {
  SchedulerFixture f("vllm", 10, {.max_num_seqs = 8, .max_num_batched_tokens = 1000,
                                  .preemption = PreemptionMode::kSwap}, /*cpu_blocks=*/100);
  f.queues.waiting.push_back(NewSeq(0, 64, 100));
  f.queues.waiting.push_back(NewSeq(1, 63, 100));
  BatchPlan plan;
  int steps = 0;
  do {
    plan = f.Step();
    ++steps;
  } while (plan.preempted_swap == 0 && steps < 100);
  ASSERT_EQ(plan.preempted_swap, 1);
  EXPECT_GT(plan.swap_out_blocks, 0);
  ASSERT_EQ(f.queues.swapped.size(), 1u);
  EXPECT_EQ(f.queues.swapped.front()->record, 1);
  EXPECT_EQ(f.queues.swapped.front()->cpu_blocks, plan.swap_out_blocks);
}

TEST(SarathiScheduler, ChunksPrefillsUnderTheBudgetAfterDecodes) {
  SchedulerFixture f("sarathi", 1000, {.max_num_seqs = 8, .max_num_batched_tokens = 8192, .chunk_size = 512});
  f.queues.waiting.push_back(NewSeq(0, 10, 50));
  f.Step();  // 10-token prompt
  f.queues.waiting.push_back(NewSeq(1, 1000, 5));
  const BatchPlan p1 = f.Step();
  ASSERT_EQ(p1.work.size(), 2u);
  EXPECT_TRUE(p1.work[0].decode);
  EXPECT_EQ(p1.work[1].new_tokens, 511);  // 512 - one decode token
  const BatchPlan p2 = f.Step();
  ASSERT_EQ(p2.work.size(), 2u);
  EXPECT_EQ(p2.work[1].new_tokens, 489);
  EXPECT_EQ(p2.work[1].seq->generated, 1);  // the last chunk samples the first token
}

TEST(SarathiScheduler, GuaranteedNoEvictAdmitsOnlyWhatCanRunToCompletion) {
  // 20 blocks of 16 tokens; two requests of 64 in and 100 out need 11 blocks each at full
  // length. Paged, both start and one is preempted later; with GUARANTEED_NO_EVICT the second
  // waits until the first is done, and nothing is preempted.
  for (const bool no_evict : {false, true}) {
    SchedulerFixture f("sarathi", 20, {.max_num_seqs = 8, .max_num_batched_tokens = 1000, .chunk_size = 1000,
                                       .guaranteed_no_evict = no_evict});
    f.queues.waiting.push_back(NewSeq(0, 64, 100));
    f.queues.waiting.push_back(NewSeq(1, 64, 100));
    const BatchPlan first = f.Step();
    EXPECT_EQ(first.work.size(), no_evict ? 1u : 2u);
    int preempted = 0, steps = 0;
    while ((!f.queues.running.empty() || !f.queues.waiting.empty()) && steps < 1000) {
      preempted += f.Step().preempted_recompute;
      ++steps;
    }
    EXPECT_EQ(preempted > 0, !no_evict) << (no_evict ? "no-evict" : "paged");
  }
}

TEST(OrcaScheduler, MixesNewPromptsWithDecodesAndReservesKv) {
  SchedulerFixture f("orca", 1000, {.max_num_seqs = 8, .max_num_batched_tokens = 4096});
  f.queues.waiting.push_back(NewSeq(0, 100, 60));
  f.Step();
  EXPECT_EQ(f.manager.used_blocks(), 10);  // ceil(160 / 16), reserved up front
  f.queues.waiting.push_back(NewSeq(1, 200, 8));
  const BatchPlan p = f.Step();
  ASSERT_EQ(p.work.size(), 2u);
  EXPECT_TRUE(p.work[0].decode);
  EXPECT_FALSE(p.work[1].decode);
  EXPECT_EQ(p.work[1].new_tokens, 200);
  EXPECT_EQ(f.manager.used_blocks(), 10 + 13);
}

TEST(SglangScheduler, CutsThePromptThatDoesNotFitAndRunsItsChunksBeforeAnyDecode) {
  SchedulerFixture f("sglang", 1000, {.max_num_seqs = 8, .max_num_batched_tokens = 8192, .chunk_size = 300});
  f.queues.waiting.push_back(NewSeq(0, 10, 50));
  f.Step();  // 10-token prompt: request 0 now decodes
  f.queues.waiting.push_back(NewSeq(1, 100, 5));
  f.queues.waiting.push_back(NewSeq(2, 450, 5));
  f.queues.waiting.push_back(NewSeq(3, 40, 5));
  // Request 1 whole, then request 2 cut to the 200 tokens left; request 3 waits behind it.
  const BatchPlan p1 = f.Step();
  ASSERT_EQ(p1.work.size(), 2u);
  EXPECT_EQ(p1.work[0].new_tokens, 100);
  EXPECT_EQ(p1.work[1].seq->record, 2);
  EXPECT_EQ(p1.work[1].new_tokens, 200);
  for (const ScheduledWork& w : p1.work) EXPECT_FALSE(w.decode);
  // Request 2's last 250 tokens first, then request 3 whole in the 50 left; no decode yet.
  const BatchPlan p2 = f.Step();
  ASSERT_EQ(p2.work.size(), 2u);
  EXPECT_EQ(p2.work[0].seq->record, 2);
  EXPECT_EQ(p2.work[0].new_tokens, 250);
  EXPECT_EQ(p2.work[0].seq->generated, 1);  // the last chunk samples the first token
  EXPECT_EQ(p2.work[1].seq->record, 3);
  EXPECT_EQ(p2.work[1].new_tokens, 40);
  const BatchPlan p3 = f.Step();  // nothing left to prefill: all four decode together
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
    const BatchPlan p = f.Step();
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
  SchedulerFixture f("sglang", 199, {.max_num_seqs = 8, .max_num_batched_tokens = 8192, .chunk_size = 8192},
                     0, /*block_size=*/1);
  struct Running { int32_t prompt, generated; };
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
  const BatchPlan p = f.Step();
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

TEST(StaticScheduler, LaterArrivalsWaitForTheWholeBatch) {
  SchedulerFixture f("static", 1000, {.max_num_seqs = 8, .max_num_batched_tokens = 4096});
  f.queues.waiting.push_back(NewSeq(0, 20, 2));
  f.queues.waiting.push_back(NewSeq(1, 20, 4));
  const BatchPlan prefill = f.Step();
  EXPECT_EQ(prefill.work.size(), 2u);
  f.queues.waiting.push_back(NewSeq(2, 20, 2));
  const BatchPlan d1 = f.Step();  // request 0 finishes here (its 2nd token)
  EXPECT_EQ(d1.work.size(), 2u);
  const BatchPlan d2 = f.Step();  // request 0 pads
  EXPECT_EQ(d2.work.size(), 1u);
  EXPECT_EQ(d2.padding_contexts.size(), 1u);
  EXPECT_EQ(f.queues.waiting.size(), 1u);
  f.Step();  // request 1's 4th token: the batch ends
  EXPECT_TRUE(f.queues.running.empty());
  const BatchPlan next = f.Step();
  ASSERT_EQ(next.work.size(), 1u);
  EXPECT_EQ(next.work[0].seq->record, 2);
}

TEST(Schedulers, NamesAreTheFlagValuesAndUnknownNamesParseToNothing) {
  EXPECT_EQ(ParseEnumName(kSchedulerNames, "sarathi"), SchedulerKind::kSarathi);
  EXPECT_EQ(NameOf(kSchedulerNames, SchedulerKind::kStatic), "static");
  EXPECT_EQ(NameList(kSchedulerNames), "vllm, sglang, sarathi, orca or static");
  EXPECT_EQ(ParseEnumName(kSchedulerNames, "fifo"), std::nullopt);
  EXPECT_EQ(ParseEnumName(kRouterNames, "least-kv"), RouterKind::kLeastKv);
  EXPECT_EQ(ParseEnumName(kRouterNames, "random"), std::nullopt);
  EXPECT_EQ(ParseEnumName(kPreemptionModeNames, "swap"), PreemptionMode::kSwap);
}

// ---------------------------------------------------------------- metrics

TEST(LatencyStats, InterpolatesLikeNumpy) {
  std::vector<double> samples = {4, 1, 3, 2, 5, 6, 7, 8, 9, 10};
  const LatencyStats s = ComputeLatencyStats(samples);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  EXPECT_DOUBLE_EQ(s.p50, 5.5);    // numpy.percentile(range(1, 11), 50)
  EXPECT_DOUBLE_EQ(s.p90, 9.1);
  EXPECT_DOUBLE_EQ(s.p99, 9.91);
  EXPECT_DOUBLE_EQ(s.max, 10);
}

TEST(LogHistogram, QuantilesWithinItsResolution) {
  LogHistogram h;
  std::vector<double> exact;
  for (int i = 1; i <= 10000; ++i) {
    const double v = 1e-3 * (1 + 0.37 * (i % 97)) * (1 + i / 5000.0);
    h.Add(v);
    exact.push_back(v);
  }
  std::sort(exact.begin(), exact.end());
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    EXPECT_NEAR(h.Quantile(q) / SortedQuantile(exact, q), 1.0, 1e-3) << q;
  }
  EXPECT_DOUBLE_EQ(h.max(), exact.back());
  EXPECT_EQ(h.count(), 10000);
  h.Add(0.5, 10);  // weighted
  EXPECT_EQ(h.count(), 10010);
}

// 1,000 samples at exactly 1.0 (the bottom edge of their bucket, whose centre is 1.0005) and
// one larger: p99.9 falls between the last two ranks and never reads above the maximum; the
// smallest quantiles read the minimum, not a bucket centre below or above it.
TEST(LogHistogram, APercentileNeverPassesTheMaximumOrTheMinimum) {
  LogHistogram h;
  h.Add(1.0, 1000);
  EXPECT_EQ(h.Quantile(0.5), 1.0);
  EXPECT_EQ(h.Quantile(0.999), 1.0);
  EXPECT_EQ(h.Quantile(1.0), 1.0);
  h.Add(1.0001);
  EXPECT_LE(h.Quantile(0.999), h.max());
  EXPECT_LE(h.Quantile(0.9999), h.max());
  EXPECT_EQ(h.Quantile(0), 1.0);
  EXPECT_EQ(h.min(), 1.0);
}

// Runs of equal values added at once equal the same values added one by one, sum included
// (the request log adds a decode step's equal inter-token gaps as one run).
TEST(LogHistogram, RepeatedAddsEqualSingleAdds) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> gap(1e-4, 0.05);
  LogHistogram runs, singles;
  for (int i = 0; i < 2000; ++i) {
    const double v = gap(rng);
    const int64_t n = static_cast<int64_t>(rng() % 40);
    runs.AddRepeated(v, n);
    for (int64_t k = 0; k < n; ++k) singles.Add(v);
  }
  EXPECT_EQ(runs.count(), singles.count());
  EXPECT_EQ(runs.sum(), singles.sum());  // bit for bit: the same additions in the same order
  EXPECT_EQ(runs.min(), singles.min());
  EXPECT_EQ(runs.max(), singles.max());
  for (const double q : {0.0, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0}) EXPECT_EQ(runs.Quantile(q), singles.Quantile(q)) << q;
}

// The request log's inter-token gaps: a batch's tokens delivered together give equal gaps,
// which it keeps as runs; the histogram it shows is the one-by-one histogram.
TEST(RequestLog, InterTokenGapsAsRunsEqualOneByOne) {
  RequestLog log;
  LogHistogram expected;
  for (int r = 0; r < 5; ++r) log.Add(RequestRecord{});
  double t = 0.01;
  std::vector<double> last(5, -1);
  for (int step = 0; step < 50; ++step) {
    t += step % 7 == 0 ? 0.0125 : 0.01;  // some steps longer than others
    for (int r = 0; r < 5; ++r) {
      if ((step + r) % 11 == 0) continue;  // now and then a request sits a step out
      log.OnToken(r, t);
      if (last[static_cast<size_t>(r)] >= 0) expected.Add(t - last[static_cast<size_t>(r)]);
      last[static_cast<size_t>(r)] = t;
    }
    if (step == 20) {
      EXPECT_GT(log.itl().count(), 0);  // read mid-run: what came so far
    }
  }
  EXPECT_EQ(log.itl().count(), expected.count());
  EXPECT_EQ(log.itl().sum(), expected.sum());
  EXPECT_EQ(log.itl().Quantile(0.5), expected.Quantile(0.5));
  EXPECT_EQ(log.itl().max(), expected.max());
}

// Tokens reaching the client at one instant are one streamed chunk: the benchmark clients
// record one gap per chunk (a multi-token chunk is one ITL), not a zero gap per extra token.
TEST(RequestLog, TokensOfOneChunkAddOneGap) {
  RequestLog log;
  log.KeepChunkTimes();
  log.Add(RequestRecord{});
  for (int i = 0; i < 4; ++i) log.OnToken(0, 0.5);  // first chunk: 4 tokens
  for (int i = 0; i < 3; ++i) log.OnToken(0, 0.8);  // a chunk of 3, 0.3 s later
  log.OnToken(0, 0.9);                              // and one of 1
  EXPECT_EQ(log.itl().count(), 2);
  EXPECT_NEAR(log.itl().sum(), 0.4, 1e-12);
  EXPECT_EQ(log.at(0).first_token_s, 0.5);
  EXPECT_EQ(log.at(0).last_token_s, 0.9);
  EXPECT_EQ(log.chunk_times(0), (std::vector<double>{0.5, 0.8, 0.9}));
}

// ---------------------------------------------------------------- admission and routing

TEST(Admission, TruncatesRejectsAndKeysPrefixBlocks) {
  AdmissionPolicy policy{.max_model_len = 2048, .block_size = 16, .usable_blocks = 1000,
                         .prefix_caching = true};
  Request r;
  r.input_tokens = 1500;
  r.output_tokens = 1000;
  r.prefix_block_hashes = {11, 12};
  RequestRecord record;
  std::unique_ptr<Sequence> seq = AdmitRequest(r, policy, 7, &record);
  ASSERT_NE(seq, nullptr);
  EXPECT_TRUE(record.truncated);
  EXPECT_EQ(seq->output_tokens, 548);
  // Two hashes cover 1,024 tokens: 64 full blocks of 16.
  EXPECT_EQ(seq->prefix_keys.size(), 64u);
  EXPECT_EQ(seq->prefix_keys[0], PrefixBlockKey(11, 0));
  EXPECT_EQ(seq->prefix_keys[32], PrefixBlockKey(12, 0));
  r.input_tokens = 3000;
  RequestRecord too_long;
  EXPECT_EQ(AdmitRequest(r, policy, 8, &too_long), nullptr);
  EXPECT_EQ(too_long.outcome, RequestOutcome::kRejected);
  EXPECT_FALSE(too_long.truncated);  // rejected, not also counted as truncated
  EXPECT_EQ(too_long.reject_reason, RejectReason::kPromptTooLong);
  EXPECT_EQ(record.reject_reason, RejectReason::kNone);
  policy.reserve_output = true;
  policy.usable_blocks = 50;
  r.input_tokens = 700;
  r.output_tokens = 200;
  RequestRecord reserved;
  EXPECT_EQ(AdmitRequest(r, policy, 9, &reserved), nullptr);  // 57 blocks > 50
  EXPECT_EQ(reserved.reject_reason, RejectReason::kKvCacheTooSmall);
}

TEST(Routers, LeastOutstandingAndLeastKvUsePublishedLoads) {
  LinearCostModel cost;
  RequestLog log;
  RecordingSink sink;
  SequencePool sequences;
  std::vector<std::unique_ptr<Replica>> replicas;
  std::vector<Replica*> view;
  for (int i = 0; i < 3; ++i) {
    replicas.push_back(std::make_unique<Replica>(i, MakeScheduler(SchedulerKind::kVllm, {}),
                                                 BlockManagerOptions{.num_gpu_blocks = 100, .block_size = 16},
                                                 cost, log, sink, sequences));
    view.push_back(replicas.back().get());
  }
  auto rr = MakeRouter(RouterKind::kRoundRobin);
  EXPECT_EQ(rr->Route(view), 0);
  EXPECT_EQ(rr->Route(view), 1);
  EXPECT_EQ(rr->Route(view), 2);
  EXPECT_EQ(rr->Route(view), 0);
  auto least = MakeRouter(RouterKind::kLeastOutstanding);
  for (int i = 0; i < 2; ++i) log.Add({});
  replicas[0]->Enqueue(PooledSeq(sequences, 0, 10, 5));
  replicas[1]->Enqueue(PooledSeq(sequences, 1, 10, 5));
  EXPECT_EQ(least->Route(view), 2);
  // Replica 1 runs its prefill: 1 block in use, published; least-kv avoids it.
  ASSERT_TRUE(replicas[1]->Plan(0));
  replicas[1]->Publish();
  auto kv = MakeRouter(RouterKind::kLeastKv);
  EXPECT_EQ(kv->Route(view), 2);  // tie on KV between 0 and 2 (none used): fewer outstanding
}

// ---------------------------------------------------------------- topology

TEST(Topology, NvlinkWhereTheGpuHasItPcieOtherwise) {
  const GpuSpec h100 = *ResolveGpu("h100-sxm");
  const ClusterTopology t = BuildClusterTopology(h100, {8, 4}, 8);
  ASSERT_EQ(t.gpus.size(), 12u);
  const std::vector<RouteHop> nv = ShortestRoute(t, t.gpus[0], t.gpus[5]);
  ASSERT_EQ(nv.size(), 2u);
  EXPECT_DOUBLE_EQ(Bottleneck(t, nv), 450e9);
  EXPECT_THAT(t.graph[nv[0].edge].name, HasSubstr("nvswitch"));
  // Across nodes: PCIe switch, the fabric, PCIe switch.
  EXPECT_DOUBLE_EQ(Bottleneck(t, ShortestRoute(t, t.gpus[0], t.gpus[9])), 64e9);
  const GpuSpec l40s = *ResolveGpu("l40s");
  const ClusterTopology p = BuildClusterTopology(l40s, {4}, 8);
  const std::vector<RouteHop> pcie = ShortestRoute(p, p.gpus[0], p.gpus[1]);
  ASSERT_EQ(pcie.size(), 2u);  // through their shared PCIe switch
  EXPECT_DOUBLE_EQ(Bottleneck(p, pcie), l40s.pcie_bytes_per_s());
}

TEST(Topology, ReplicasPackIntoNodes) {
  EXPECT_THAT(GpusPerNode({.num_replicas = 3, .tensor_parallel = 4, .gpus_per_node = 8}), ElementsAre(8, 4));
  EXPECT_THAT(GpusPerNode({.num_replicas = 3, .tensor_parallel = 3, .gpus_per_node = 8}), ElementsAre(6, 3));
  // TP 16 on GB200 NVL72: four whole 4-GPU trays per replica, four replicas per 18-tray rack;
  // the fifth starts the next rack (two trays of the first stay empty).
  EXPECT_THAT(GpusPerNode({.num_replicas = 5, .tensor_parallel = 16, .gpus_per_node = 4, .nvlink_domain_gpus = 72}),
              ElementsAre(4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0, 4, 4, 4, 4));
}

// ---------------------------------------------------------------- whole runs (one engine per child)

// Runs `body` in a forked child and returns what it wrote, so each test gets its own engine.
std::string InChild(const std::function<std::string()>& body) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string text;
    try {
      text = body();
    } catch (const std::exception& e) {
      text = absl::StrCat("exception: ", e.what());
    }
    size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = write(fds[1], text.data() + written, text.size() - written);
      if (n <= 0) break;
      written += static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return out;
}

EngineConfig TestConfig() {
  EngineConfig config;
  config.scheduler = SchedulerKind::kVllm;
  config.limits = {.max_num_seqs = 64, .max_num_batched_tokens = 4096};
  config.blocks = {.num_gpu_blocks = 2000, .block_size = 16, .watermark = 0.01};
  config.max_model_len = 4096;
  config.num_layers = 32;
  config.hidden_size = 4096;
  config.kv_bytes_per_token = 131072;
  return config;
}

Request OneRequest(double arrival_s, int32_t prompt, int32_t output) {
  Request r;
  r.arrival_s = arrival_s;
  r.input_tokens = prompt;
  r.output_tokens = output;
  return r;
}

std::vector<Request> Requests(int n, double gap_s, int32_t prompt, int32_t output) {
  std::vector<Request> requests;
  for (int i = 0; i < n; ++i) {
    Request r;
    r.id = i;
    r.arrival_s = i * gap_s;
    r.input_tokens = prompt + (i % 5) * 7;
    r.output_tokens = output + (i % 3) * 5;
    requests.push_back(r);
  }
  return requests;
}

// Runs and prints every request record and a few aggregates, one line each.
std::string RunAndDescribe(const EngineConfig& config, const std::vector<Request>& requests,
                           const std::string& gpu_name = "h100-sxm") {
  const GpuSpec gpu = *ResolveGpu(gpu_name);
  LinearCostModel cost;
  VectorRequestSource source(requests);
  RecordingSink sink;
  absl::StatusOr<SimulationResult> result = RunSimulation(config, gpu, cost, source, &sink);
  if (!result.ok()) return absl::StrCat("error: ", result.status().message());
  std::string out = absl::StrCat("iterations ", result->stats.iterations, " preemptions ",
                                 result->stats.preemptions, " swap_out ", result->stats.swap_out_blocks,
                                 " duration ", absl::StrFormat("%.12f", result->duration_s), "\n");
  for (const RequestRecord& r : result->log.records()) {
    absl::StrAppendFormat(&out, "%d %d %.12f %.12f %.12f %d\n", r.replica, static_cast<int>(r.outcome),
                          r.scheduled_s, r.first_token_s, r.finish_s, r.preemptions);
  }
  for (const RequestRecord& r : result->log.records()) {
    if (r.kv_transfer_s >= 0) absl::StrAppendFormat(&out, "transfer %d %.12f\n", r.replica, r.kv_transfer_s);
  }
  if (!sink.records.empty()) {
    const IterationRecord& first = sink.records.front();
    absl::StrAppendFormat(&out, "first_iteration %.12f %.12f %.12f\n", first.start_s, first.end_s,
                          first.communication_s);
  }
  return out;
}

TEST(Engine, OneRequestTakesThePricedIterations) {
  const std::string out = InChild([] {
    return RunAndDescribe(TestConfig(), {OneRequest(2.5, 100, 4)});
  });
  const std::vector<std::string> lines = absl::StrSplit(out, '\n');
  ASSERT_GE(lines.size(), 3u) << out;
  EXPECT_THAT(lines[0], HasSubstr("iterations 4 "));
  // Prefill of 100 tokens, then decodes at contexts 100, 101, 102.
  const double prefill = LinearCostModel::Seconds(100, 0);
  double finish = 2.5 + prefill;
  for (int c = 100; c < 103; ++c) finish += LinearCostModel::Seconds(1, c);
  double scheduled, first, end;
  int replica, outcome, preemptions;
  ASSERT_EQ(std::sscanf(lines[1].c_str(), "%d %d %lf %lf %lf %d", &replica, &outcome, &scheduled,
                        &first, &end, &preemptions), 6) << out;
  EXPECT_DOUBLE_EQ(scheduled, 2.5);
  EXPECT_NEAR(first, 2.5 + prefill, 1e-12);
  EXPECT_NEAR(end, finish, 1e-12);
}

// Both descriptions hold the same requests at the same times (1 ns).
void ExpectSameTimes(const std::string& a_text, const std::string& b_text) {
  ASSERT_THAT(a_text, HasSubstr("iterations")) << a_text;
  const std::vector<std::string> a = absl::StrSplit(a_text, '\n');
  const std::vector<std::string> b = absl::StrSplit(b_text, '\n');
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 1; i + 1 < a.size(); ++i) {
    double x[5], y[5];
    int n1 = std::sscanf(a[i].c_str(), "%lf %lf %lf %lf %lf", &x[0], &x[1], &x[2], &x[3], &x[4]);
    int n2 = std::sscanf(b[i].c_str(), "%lf %lf %lf %lf %lf", &y[0], &y[1], &y[2], &y[3], &y[4]);
    ASSERT_EQ(n1, n2);
    for (int k = 0; k < n1; ++k) EXPECT_NEAR(x[k], y[k], 1e-9) << "line " << i << ": " << a[i] << " vs " << b[i];
  }
}

TEST(Engine, RunningAheadGivesTheSameTimesAsIterationByIteration) {
  const std::vector<Request> requests = Requests(60, 0.031, 300, 40);
  EngineConfig config = TestConfig();
  const std::string ahead = InChild([&] { return RunAndDescribe(config, requests); });
  config.coalesce = false;
  const std::string single = InChild([&] { return RunAndDescribe(config, requests); });
  ExpectSameTimes(ahead, single);
  // A load-aware router sees the same loads either way, so it routes the same.
  config = TestConfig();
  config.layout.num_replicas = 3;
  config.router = RouterKind::kLeastKv;
  const std::vector<Request> busy = Requests(150, 0.004, 300, 40);
  const std::string routed_ahead = InChild([&] { return RunAndDescribe(config, busy); });
  config.coalesce = false;
  const std::string routed_single = InChild([&] { return RunAndDescribe(config, busy); });
  ExpectSameTimes(routed_ahead, routed_single);
}

// With one replica a worker running ahead sends the requests arriving meanwhile itself (inline
// arrivals) and goes on without the other actors: the same times as iteration by iteration,
// with a front end between the client and the engine and a schedule-ahead engine too.
TEST(Engine, InlineArrivalsGiveTheSameTimesAsIterationByIteration) {
  const std::vector<Request> requests = Requests(120, 0.011, 300, 40);
  for (const int variant : {0, 1, 2}) {
    SCOPED_TRACE(variant);
    EngineConfig config = TestConfig();
    if (variant != 1) config.front_end.processes = {{.name = "api", .request_s = 2e-3, .prompt_token_s = 1e-6, .output_token_s = 1e-4}};
    if (variant != 0) {
      config.execution = ExecutionPolicy{};
      config.execution->schedules_ahead = true;
    }
    const std::string ahead = InChild([&] { return RunAndDescribe(config, requests); });
    config.coalesce = false;
    const std::string single = InChild([&] { return RunAndDescribe(config, requests); });
    ExpectSameTimes(ahead, single);
  }
}

// A schedule-ahead engine (vLLM V1 async scheduling, SGLang's and TensorRT-LLM's overlap
// schedulers) forms the next batch when the running one starts. B arrives during A's first
// decode step: it misses the batch formed then (A's second decode) and is prefilled one
// iteration later than a synchronous engine would; an arrival at an idle engine runs at once.
TEST(Engine, ScheduleAheadEnginesAdmitAnArrivalOneIterationLater) {
  const std::vector<Request> requests = {OneRequest(0, 100, 50), OneRequest(2.5e-3, 100, 5), OneRequest(10, 100, 5)};
  const auto scheduled = [&](bool ahead) {
    EngineConfig config = TestConfig();
    config.execution = ExecutionPolicy{};
    config.execution->schedules_ahead = ahead;
    const std::string out = InChild([&] { return RunAndDescribe(config, requests); });
    const std::vector<std::string> lines = absl::StrSplit(out, '\n');
    std::vector<double> times;
    for (size_t i = 1; i <= 3 && i < lines.size(); ++i) {
      double s = 0, first = 0, end = 0;
      int replica = 0, outcome = 0, preemptions = 0;
      if (std::sscanf(lines[i].c_str(), "%d %d %lf %lf %lf %d", &replica, &outcome, &s, &first, &end, &preemptions) == 6) {
        times.push_back(s);
      }
    }
    return times;
  };
  const std::vector<double> sync = scheduled(false);
  const std::vector<double> ahead = scheduled(true);
  ASSERT_EQ(sync.size(), 3u);
  ASSERT_EQ(ahead.size(), 3u);
  const double prefill = LinearCostModel::Seconds(100, 0);
  const double first_decode = LinearCostModel::Seconds(1, 100);
  EXPECT_NEAR(sync[1], prefill + first_decode, 1e-12);
  EXPECT_NEAR(ahead[1], prefill + first_decode + LinearCostModel::Seconds(1, 101), 1e-12);
  EXPECT_DOUBLE_EQ(ahead[0], 0);
  EXPECT_DOUBLE_EQ(ahead[2], 10);
  EXPECT_DOUBLE_EQ(sync[2], 10);
}

TEST(Engine, CostStrideInterpolatesALinearModelExactly) {
  // The test model is linear in the contexts, so interpolating decode runs changes nothing.
  const std::vector<Request> requests = Requests(40, 0.05, 200, 60);
  EngineConfig config = TestConfig();
  const std::string exact = InChild([&] { return RunAndDescribe(config, requests); });
  config.cost_stride = 16;
  const std::string strided = InChild([&] { return RunAndDescribe(config, requests); });
  ExpectSameTimes(exact, strided);
}

TEST(IterationPricer, PricesAnchorsAndInterpolatesBetween) {
  class Counting final : public IterationCostModel {
   public:
    IterationCost Cost(const BatchShape& batch) const override {
      ++calls;
      IterationCost c;
      double context = 0;
      for (int64_t x : batch.decode_context_tokens) context += static_cast<double>(x);
      c.duration_s = 1e-3 + 1e-6 * context * context;  // not linear: interpolation shows
      return c;
    }
    absl::string_view Description() const override { return "counting"; }
    mutable int calls = 0;
  } model;
  IterationPricer pricer(model, 4);
  Sequence a, b;
  a.prompt_tokens = b.prompt_tokens = 10;
  a.output_tokens = b.output_tokens = 100;
  a.generated = b.generated = 1;
  std::vector<double> durations;
  for (int step = 0; step < 6; ++step) {
    a.computed = b.computed = 10 + step;
    a.generated = b.generated = 1 + step;
    BatchPlan plan;
    plan.Add(&a, 1);
    plan.Add(&b, 1);
    BatchShape shape;
    shape.decode_context_tokens = {a.computed, b.computed};
    durations.push_back(pricer.Price(plan, shape).duration_s);
  }
  // Anchors at steps 0 and 4 (contexts 20 and 28 in total), one call for step 4 ahead of time,
  // one for step 8 once step 5 needs it.
  EXPECT_EQ(model.calls, 3);
  auto exact = [](double total) { return 1e-3 + 1e-6 * total * total; };
  EXPECT_DOUBLE_EQ(durations[0], exact(20));
  EXPECT_DOUBLE_EQ(durations[4], exact(28));
  EXPECT_DOUBLE_EQ(durations[2], exact(20) + 0.5 * (exact(28) - exact(20)));
  // A new member starts a new run with an exact price.
  Sequence c = a;
  BatchPlan plan;
  plan.Add(&a, 1);
  plan.Add(&c, 1);
  BatchShape shape;
  shape.decode_context_tokens = {16, 16};
  EXPECT_DOUBLE_EQ(pricer.Price(plan, shape).duration_s, exact(32));
}

TEST(Engine, SameInputsSameResults) {
  const std::vector<Request> requests = Requests(80, 0.02, 500, 30);
  EngineConfig config = TestConfig();
  config.layout.num_replicas = 2;
  config.router = RouterKind::kLeastOutstanding;
  const std::string first = InChild([&] { return RunAndDescribe(config, requests); });
  const std::string second = InChild([&] { return RunAndDescribe(config, requests); });
  EXPECT_THAT(first, HasSubstr("iterations"));
  EXPECT_EQ(first, second);
}

TEST(Engine, TensorParallelAddsAllReducesOverNvlink) {
  EngineConfig config = TestConfig();
  config.layout.tensor_parallel = 2;
  config.allreduce_latency_s = 7e-6;
  const std::string out = InChild([&] {
    return RunAndDescribe(config, {OneRequest(0, 1000, 2)});
  });
  // Prefill of 1,000 tokens: 2 x 32 all-reduces of 1000 x 4096 x 2 B; a ring of two sends half
  // of each message both ways at 450 GB/s, plus 64 x 7 us latency.
  const double ring_bytes = 2.0 * 32 * 2.0 * 1 / 2 * 1000 * 4096 * 2;
  const double communication = 64 * 7e-6 + ring_bytes / 450e9;
  const std::string expected_end = absl::StrFormat(
      "first_iteration %.12f %.12f %.12f", 0.0, LinearCostModel::Seconds(1000, 0) + communication, communication);
  EXPECT_THAT(out, HasSubstr(expected_end)) << out;
}

// Sixteen-way TP across four GB200 trays of one NVL72 rack: the ring stays on NVLink at
// 900 GB/s per direction. HGX H100 cannot hold it (its NVLink domain is one 8-GPU board).
TEST(Engine, SixteenWayTensorParallelOnGb200StaysOnNvlink) {
  EngineConfig config = TestConfig();
  config.layout = {.num_replicas = 1, .tensor_parallel = 16, .gpus_per_node = 4, .nvlink_domain_gpus = 72};
  config.allreduce_latency_s = 7e-6;
  const std::string out = InChild([&] { return RunAndDescribe(config, {OneRequest(0, 1000, 2)}, "gb200"); });
  // Each GPU sends 2 x 15/16 of each 1000 x 4096 x 2 B message, 2 x 32 all-reduces.
  const double ring_bytes = 2.0 * 32 * 2.0 * 15 / 16 * 1000 * 4096 * 2;
  const double communication = 64 * 7e-6 + ring_bytes / 900e9;
  EXPECT_THAT(out, HasSubstr(absl::StrFormat("first_iteration %.12f %.12f %.12f", 0.0,
                                             LinearCostModel::Seconds(1000, 0) + communication, communication)))
      << out;
  config.layout = {.num_replicas = 1, .tensor_parallel = 16, .gpus_per_node = 8, .nvlink_domain_gpus = 8};
  const std::string h100 = InChild([&] { return RunAndDescribe(config, {OneRequest(0, 1000, 2)}); });
  EXPECT_THAT(h100, HasSubstr("--tensor-parallel-size=16 does not fit an NVLink domain of 8 GPUs"));
}

// The KV transfers of the disaggregation's tests, read back from RunAndDescribe's output.
std::vector<double> TransferTimes(const std::string& out) {
  std::vector<double> times;
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    int replica = 0;
    double seconds = 0;
    if (std::sscanf(std::string(line).c_str(), "transfer %d %lf", &replica, &seconds) == 2) times.push_back(seconds);
  }
  return times;
}

// One prefill and one decode replica on one H100 node: the prefill ends, the prompt's KV
// (1,000 x 131,072 B) crosses NVLink at 450 GB/s each way, the first token reaches the client
// when it has arrived, and the decode replica makes the other two.
TEST(Engine, DisaggregatedPrefillHandsItsKvToADecodeReplica) {
  EngineConfig config = TestConfig();
  config.layout.num_replicas = 2;
  config.prefill_replicas = 1;
  const std::string out = InChild([&] { return RunAndDescribe(config, {OneRequest(0, 1000, 3)}); });
  const std::vector<std::string> lines = absl::StrSplit(out, '\n');
  ASSERT_GE(lines.size(), 3u) << out;
  int replica = 0, outcome = 0, preemptions = 0;
  double scheduled = 0, first = 0, finish = 0;
  ASSERT_EQ(std::sscanf(lines[1].c_str(), "%d %d %lf %lf %lf %d", &replica, &outcome, &scheduled, &first,
                        &finish, &preemptions), 6) << out;
  const double transfer = 1000.0 * 131072 / (ResolveGpu("h100-sxm")->nvlink_bytes_per_s() / 2);
  const double prefill = LinearCostModel::Seconds(1000, 0);
  EXPECT_EQ(replica, 1);
  EXPECT_EQ(outcome, 1);
  EXPECT_NEAR(first, prefill + transfer, 1e-9);
  EXPECT_NEAR(finish, prefill + transfer + LinearCostModel::Seconds(1, 1000) + LinearCostModel::Seconds(1, 1001), 1e-9);
  ASSERT_EQ(TransferTimes(out).size(), 1u) << out;
  EXPECT_NEAR(TransferTimes(out)[0], transfer, 1e-9);
  // Three iterations: the prefill, then two decode steps for tokens 2 and 3.
  EXPECT_THAT(lines[0], HasSubstr("iterations 3 "));

  // Across nodes (one TP8 replica per node): over PCIe and the fabric, 50 GB/s per GPU.
  config.layout = {.num_replicas = 2, .tensor_parallel = 8, .gpus_per_node = 8};
  const std::string nodes = InChild([&] { return RunAndDescribe(config, {OneRequest(0, 1000, 3)}); });
  ASSERT_EQ(TransferTimes(nodes).size(), 1u) << nodes;
  EXPECT_NEAR(TransferTimes(nodes)[0], kFabricLatencyS + 1000.0 * 131072 / kNicBytesPerS, 1e-9);
  // A slower fabric (200 Gb/s per GPU, 20 us) and a fixed 1 ms per transfer.
  config.layout.fabric_bytes_per_s = 25e9;
  config.layout.fabric_latency_s = 20e-6;
  config.kv_transfer_latency_s = 1e-3;
  const std::string slow = InChild([&] { return RunAndDescribe(config, {OneRequest(0, 1000, 3)}); });
  ASSERT_EQ(TransferTimes(slow).size(), 1u) << slow;
  EXPECT_NEAR(TransferTimes(slow)[0], 1e-3 + 20e-6 + 1000.0 * 131072 / 25e9, 1e-9);
  // Inside one NVLink domain the fabric's latency does not apply: two TP4 replicas of one node.
  config.layout = {.num_replicas = 2, .tensor_parallel = 4, .gpus_per_node = 8, .fabric_latency_s = 1.0};
  config.kv_transfer_latency_s = 0;
  const std::string node = InChild([&] { return RunAndDescribe(config, {OneRequest(0, 1000, 3)}); });
  ASSERT_EQ(TransferTimes(node).size(), 1u) << node;
  EXPECT_LT(TransferTimes(node)[0], 1e-2);
}

// The decode router under --pd: a long request holds one decode replica's KV for about a
// second; two short ones arriving while it decodes go, with least-kv, both to the other decode
// replica (the one with the most free KV), and with round-robin the second of them back to the
// busy one.
TEST(Engine, DecodeRouterSendsKvToTheReplicaWithTheMostFreeBlocks) {
  const auto decode_replicas = [](RouterKind router) {
    EngineConfig config = TestConfig();
    config.layout.num_replicas = 3;
    config.prefill_replicas = 1;
    config.decode_router = router;
    const std::string out = InChild([&] {
      return RunAndDescribe(config, {OneRequest(0, 1000, 1000), OneRequest(0.1, 10, 2), OneRequest(0.3, 10, 2)});
    });
    std::vector<int> replicas;
    const std::vector<std::string> lines = absl::StrSplit(out, '\n');
    for (size_t i = 1; i < lines.size() && i <= 3; ++i) {
      int replica = -1;
      EXPECT_EQ(std::sscanf(lines[i].c_str(), "%d", &replica), 1) << out;
      replicas.push_back(replica);
    }
    EXPECT_EQ(replicas.size(), 3u) << out;
    return replicas;
  };
  const std::vector<int> kv = decode_replicas(RouterKind::kLeastKv);
  ASSERT_EQ(kv.size(), 3u);
  EXPECT_GE(kv[0], 1);  // decode replicas are 1 and 2
  EXPECT_NE(kv[1], kv[0]);
  EXPECT_EQ(kv[2], kv[1]);
  const std::vector<int> rr = decode_replicas(RouterKind::kRoundRobin);
  ASSERT_EQ(rr.size(), 3u);
  EXPECT_NE(rr[1], rr[0]);
  EXPECT_EQ(rr[2], rr[0]);
}

// Two prefill replicas finish at the same instant and both send to the one decode replica:
// the two transfers share its NVLink port and each takes twice as long.
TEST(Engine, KvTransfersSharingALinkShareItsBandwidth) {
  EngineConfig config = TestConfig();
  config.layout.num_replicas = 3;
  config.prefill_replicas = 2;
  const std::string out = InChild([&] {
    return RunAndDescribe(config, {OneRequest(0, 1000, 2), OneRequest(0, 1000, 2)});
  });
  const std::vector<double> times = TransferTimes(out);
  ASSERT_EQ(times.size(), 2u) << out;
  const double alone = 1000.0 * 131072 / (ResolveGpu("h100-sxm")->nvlink_bytes_per_s() / 2);
  EXPECT_NEAR(times[0], 2 * alone, 1e-9);
  EXPECT_NEAR(times[1], 2 * alone, 1e-9);
}

TEST(Engine, SwapPreemptionMovesKvOverPcie) {
  EngineConfig config = TestConfig();
  config.blocks = {.num_gpu_blocks = 40, .block_size = 16, .watermark = 0.01, .num_cpu_blocks = 400};
  config.limits.preemption = PreemptionMode::kSwap;
  config.max_model_len = 600;
  const std::string out = InChild([&] { return RunAndDescribe(config, Requests(6, 0.001, 150, 150)); });
  ASSERT_THAT(out, HasSubstr("iterations")) << out;
  int iterations = 0, preemptions = 0, swap_out = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "iterations %d preemptions %d swap_out %d", &iterations,
                        &preemptions, &swap_out), 3);
  EXPECT_GT(preemptions, 0);
  EXPECT_GT(swap_out, 0);
  // Every request finishes (outcome 1) despite the preemptions.
  const std::vector<std::string> lines = absl::StrSplit(out, '\n');
  for (size_t i = 1; i <= 6; ++i) EXPECT_THAT(lines[i], HasSubstr(" 1 ")) << lines[i];
}

TEST(Engine, OneEnginePerProcess) {
  const std::string out = InChild([] {
    EngineConfig config = TestConfig();
    const std::string first = RunAndDescribe(config, Requests(2, 0.1, 10, 2));
    return RunAndDescribe(config, Requests(2, 0.1, 10, 2));
  });
  EXPECT_THAT(out, HasSubstr("one simulation per process"));
}

TEST(Engine, BadArrivalOrderIsAnError) {
  std::vector<Request> requests = Requests(3, 1.0, 10, 2);
  requests[2].arrival_s = 0.5;
  const std::string out = InChild([&] { return RunAndDescribe(TestConfig(), requests); });
  EXPECT_THAT(out, HasSubstr("request 2: arrival time 0.5"));
}


// ---------------------------------------------------------------- serving front end, noise

// The records of a run as (scheduled, first token, finish) triples, in request order.
struct Times {
  double scheduled = 0, first = 0, finish = 0;
};
std::vector<Times> ParseTimes(const std::string& out) {
  std::vector<Times> times;
  const std::vector<std::string> lines = absl::StrSplit(out, '\n');
  for (size_t i = 1; i < lines.size(); ++i) {
    Times t;
    int replica = 0, outcome = 0, preemptions = 0;
    if (std::sscanf(lines[i].c_str(), "%d %d %lf %lf %lf %d", &replica, &outcome, &t.scheduled, &t.first, &t.finish,
                    &preemptions) == 6) {
      times.push_back(t);
    }
  }
  return times;
}

TEST(FrontEnd, OneCpuServesInOrderAndAStepsTokensAsOneJob) {
  FrontEndSpec spec;
  spec.processes = {{.name = "api", .servers = 1, .request_s = 2e-3, .prompt_token_s = 1e-6},
                    {.name = "detok", .servers = 1, .step_s = 1e-4, .output_token_s = 1e-5}};
  FrontEnd front_end(spec);
  // Two requests at once: the second waits for the first (2 ms + 100 tokens x 1 us each).
  EXPECT_NEAR(front_end.Inbound(1.0, 100), 1.0021, 1e-12);
  EXPECT_NEAR(front_end.Inbound(1.0, 100), 1.0042, 1e-12);
  // A step's 8 tokens pass the detokenizer, then the API process (no outbound cost: skipped).
  EXPECT_NEAR(front_end.Outbound(2.0, 8), 2.0 + 1e-4 + 8e-5, 1e-12);
  EXPECT_NEAR(front_end.busy_s(), 2 * 2.1e-3 + 1.8e-4, 1e-12);
  EXPECT_EQ(front_end.TakeEngineWork(), 0);  // not in the engine's process
  // Several servers take jobs side by side.
  spec.processes[0].servers = 2;
  FrontEnd two(spec);
  EXPECT_NEAR(two.Inbound(1.0, 0), 1.002, 1e-12);
  EXPECT_NEAR(two.Inbound(1.0, 0), 1.002, 1e-12);
  EXPECT_NEAR(two.Inbound(1.0, 0), 1.004, 1e-12);
}

// A request at an idle engine: the front end's inbound cost before its prefill, the outbound
// cost of its first step after it.
TEST(Engine, FrontEndCostAppearsInTheFirstTokenAtLowLoad) {
  EngineConfig config = TestConfig();
  config.front_end.processes = {{.name = "api", .request_s = 3e-3, .prompt_token_s = 1e-6, .output_token_s = 2e-4}};
  const std::string out = InChild([&] { return RunAndDescribe(config, {OneRequest(1.0, 100, 4)}); });
  const std::vector<Times> t = ParseTimes(out);
  ASSERT_EQ(t.size(), 1u) << out;
  const double reaches_engine = 1.0 + 3e-3 + 100 * 1e-6;
  EXPECT_NEAR(t[0].scheduled, reaches_engine, 1e-9);
  EXPECT_NEAR(t[0].first, reaches_engine + LinearCostModel::Seconds(100, 0) + 2e-4, 1e-9);
  // Off: the engine sees the request when it is sent.
  const std::vector<Times> off = ParseTimes(InChild([&] { return RunAndDescribe(TestConfig(), {OneRequest(1.0, 100, 4)}); }));
  ASSERT_EQ(off.size(), 1u);
  EXPECT_NEAR(t[0].first - off[0].first, 3e-3 + 100 * 1e-6 + 2e-4, 1e-9);
}

// One Python process costing 10 ms a request serves at most 100 requests a second: below that
// the time to the first token stays flat; above it the queue in front of the engine grows with
// every request and so does the time to the first token.
TEST(Engine, ASingleProcessFrontEndSaturatesAtTheRateItsCostsImply) {
  EngineConfig config = TestConfig();
  config.front_end.processes = {{.name = "api", .request_s = 10e-3}};
  const auto ttfts = [&](double rate) {
    const std::vector<Request> requests = Requests(200, 1.0 / rate, 10, 2);
    const std::vector<Times> t = ParseTimes(InChild([&] { return RunAndDescribe(config, requests); }));
    std::vector<double> out;
    for (size_t i = 0; i < t.size(); ++i) out.push_back(t[i].first - requests[i].arrival_s);
    return out;
  };
  const std::vector<double> below = ttfts(80);
  const std::vector<double> above = ttfts(125);
  ASSERT_EQ(below.size(), 200u);
  ASSERT_EQ(above.size(), 200u);
  EXPECT_LT(below.back(), 0.013);
  EXPECT_LT(below.back() - below.front(), 1e-3);
  // 125 req/s against 100: each request waits 2 ms more than the one before.
  EXPECT_NEAR(above.back() - above.front(), 199 * (10e-3 - 8e-3), 2e-3);
  EXPECT_GT(above[150], above[50]);
}

// Identical requests in a closed loop start and finish together for the whole run without
// noise; the client's send jitter spreads them over iterations, as on hardware, and a
// chunked-prefill engine keeps them apart. The same seed gives the same times.
TEST(Engine, NoiseDesynchronisesAClosedLoopOfIdenticalRequestsAndIsSeeded) {
  std::vector<Request> requests;
  for (int i = 0; i < 96; ++i) requests.push_back(OneRequest(0, 200, 30));
  EngineConfig config = TestConfig();
  config.scheduler = SchedulerKind::kSarathi;  // decodes first, prompts chunked (vLLM V1)
  config.limits.max_num_batched_tokens = 4096;
  config.limits.chunk_size = 4096;
  config.max_concurrency = 8;
  const auto distinct_finishes = [](const std::string& out) {
    std::vector<double> finishes;
    for (const Times& t : ParseTimes(out)) finishes.push_back(std::round(t.finish * 1e9));
    std::sort(finishes.begin(), finishes.end());
    return std::unique(finishes.begin(), finishes.end()) - finishes.begin();
  };
  const std::string lockstep = InChild([&] { return RunAndDescribe(config, requests); });
  const auto together = distinct_finishes(lockstep);
  EXPECT_EQ(together, 96 / 8) << lockstep;
  config.noise = {.iteration_sigma = 0.01, .send_jitter_s = 1e-3, .seed = 7};
  const std::string noisy = InChild([&] { return RunAndDescribe(config, requests); });
  EXPECT_GE(2 * distinct_finishes(noisy), 3 * together) << noisy;
  EXPECT_EQ(InChild([&] { return RunAndDescribe(config, requests); }), noisy);
  config.noise.seed = 8;
  EXPECT_NE(InChild([&] { return RunAndDescribe(config, requests); }), noisy);
}

}  // namespace
}  // namespace infergrid
