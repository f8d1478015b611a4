// sim/core/serving/router.h: least outstanding requests and least KV use.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Routers, LeastOutstandingAndLeastKvUsePublishedLoads) {
  LinearCostModel cost;
  RequestLog log;
  RecordingSink sink;
  SequencePool sequences;
  std::vector<std::unique_ptr<Replica>> replicas;
  std::vector<Replica*> view;
  for (int i = 0; i < 3; ++i) {
    replicas.push_back(std::make_unique<Replica>(i, MakeScheduler(SchedulerKind::kVllm, {}),
                                                 BlockManagerOptions{.num_gpu_blocks = 100, .block_size = 16}, cost,
                                                 log, sink, sequences));
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
  ASSERT_TRUE(replicas[1]->Schedule(0));
  replicas[1]->Publish();
  auto kv = MakeRouter(RouterKind::kLeastKv);
  EXPECT_EQ(kv->Route(view), 2);  // tie on KV between 0 and 2 (none used): fewer outstanding
}

}  // namespace
}  // namespace infergrid
