// sim/core/serving/scheduler.h: the schedulers' names; a decode step reserving lookahead slots for the drafts
// it verifies.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Schedulers, NamesAreTheFlagValuesAndUnknownNamesParseToNothing) {
  EXPECT_EQ(ParseEnumName(kSchedulerNames, "sarathi"), SchedulerKind::kSarathi);
  EXPECT_EQ(NameOf(kSchedulerNames, SchedulerKind::kStatic), "static");
  EXPECT_EQ(NameList(kSchedulerNames), "vllm, sglang, sarathi, orca or static");
  EXPECT_EQ(ParseEnumName(kSchedulerNames, "fifo"), std::nullopt);
  EXPECT_EQ(ParseEnumName(kRouterNames, "least-kv"), RouterKind::kLeastKv);
  EXPECT_EQ(ParseEnumName(kRouterNames, "random"), std::nullopt);
  EXPECT_EQ(ParseEnumName(kPreemptionModeNames, "swap"), PreemptionMode::kSwap);
}

// A decode step reserves KV for its own token and the k drafts it verifies, and counts them
// against the token budget.
TEST(SpeculativeScheduling, DecodesReserveLookaheadSlots) {
  for (const int lookahead : {0, 4}) {
    BlockManager blocks(BlockManagerOptions{.num_gpu_blocks = 10, .block_size = 16});
    ReplicaQueues queues;
    Sequence seq;
    seq.prompt_tokens = 15;
    seq.output_tokens = 10;
    seq.generated = 1;
    seq.computed = 15;  // in decode: the sampled token is next
    seq.status = SequenceStatus::kRunning;
    blocks.Grow(seq, 1);
    queues.running.push_back(&seq);
    ScheduledBatch plan;
    const int64_t tokens =
        scheduling::ScheduleDecodes(queues, blocks, PreemptionMode::kRecompute, 100, plan, lookahead);
    EXPECT_EQ(tokens, 1 + lookahead);
    EXPECT_EQ(seq.gpu_blocks, lookahead == 0 ? 1 : 2) << lookahead;  // 16 or 20 tokens of 16-token blocks
    blocks.Release(seq);
  }
}

}  // namespace
}  // namespace infergrid
