// sim/core/serving/replica.h: a replica decoding speculatively: requests finish at their output
// length, with their tokens in bursts, one inter-token gap per chunk.

#include <cstdint>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/core/cost/cost_model_factory.h"
#include "sim/core/metrics/request_log.h"
#include "sim/core/serving/replica.h"
#include "sim/core/serving/scheduler.h"
#include "tests/speculative_request.h"

namespace infergrid {
namespace {

class CountingSink final : public IterationSink {
 public:
  void OnIteration(const IterationRecord& r) override {
    emitted += r.emitted_tokens;
    steps += r.speculative_seqs;
    if (r.prefill_seqs > 0) ++prefills;
  }
  int64_t emitted = 0, steps = 0, prefills = 0;
};

TEST(SpeculativeReplica, RequestsFinishAtTheirOutputLengthWithTokensInBursts) {
  const CostModelChoice cost = *MakeCostModel(RooflineRequest("llama-3-70b", "llama-3-8b"));
  ExecutionPolicy policy;
  policy.speculation.num_speculative_tokens = 4;
  policy.speculation.acceptance.rate = 0.8;
  policy.speculation.seed = 5;
  SchedulerLimits limits;
  limits.lookahead_slots = 4;
  RequestLog log;
  log.KeepChunkTimes();
  CountingSink sink;
  SequencePool sequences;
  Replica replica(0, MakeScheduler(SchedulerKind::kSarathi, limits),
                  BlockManagerOptions{.num_gpu_blocks = 1000, .block_size = 16}, *cost.model, log, sink, sequences, 1,
                  &policy);
  const std::vector<int32_t> outputs = {1, 2, 5, 37, 100};
  for (size_t i = 0; i < outputs.size(); ++i) {
    log.Add({});
    Sequence seq;
    seq.record = static_cast<int64_t>(i);
    seq.prompt_tokens = 50;
    seq.output_tokens = outputs[i];
    replica.Enqueue(sequences.Acquire(std::move(seq)));
  }
  double t = 0;
  int iterations = 0;
  while (replica.HasWork() && iterations < 1000) {
    ASSERT_TRUE(replica.Schedule(t));
    const double end = t + replica.cost().duration_s;
    replica.Complete(t, end, 0);
    t = end;
    ++iterations;
  }
  int64_t total = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const RequestRecord& r = log.records()[i];
    EXPECT_EQ(r.outcome, RequestOutcome::kFinished) << i;
    total += outputs[i];
  }
  // Every output token was emitted once: the prefills' first tokens plus the steps' bursts.
  EXPECT_EQ(sink.emitted + static_cast<int64_t>(outputs.size()), total);
  // One inter-token gap per chunk the client receives (a step's accepted drafts ride with its
  // token), as the benchmark client counts them.
  int64_t gaps = 0;
  for (size_t i = 0; i < outputs.size(); ++i)
    gaps += static_cast<int64_t>(log.chunk_times(static_cast<int64_t>(i)).size()) - 1;
  EXPECT_EQ(log.itl().count(), gaps);
  EXPECT_LT(log.itl().count(), total - static_cast<int64_t>(outputs.size()));
  // The 100-token request got its tokens in fewer chunks than tokens (bursts of up to 5),
  // and no more than a quarter of its tokens' worth of steps at a = 0.8 (3.36 a step).
  const size_t chunks = log.chunk_times(4).size();
  EXPECT_LT(chunks, 45u);
  EXPECT_GT(chunks, 20u);  // 99 tokens at most 5 a step
  EXPECT_LT(iterations, 60);
}

}  // namespace
}  // namespace infergrid
