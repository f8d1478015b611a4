// sim/core/metrics/iteration_stats.cc: each replica's share of the aggregates (iterations, busy
// time, batch sizes, peak KV, preemptions) adds up to the fleet's; a replica without iterations
// has none.
#include "gtest/gtest.h"
#include "sim/core/metrics/iteration_stats.h"

namespace infergrid {
namespace {

IterationRecord Step(int replica, double start_s, double end_s, int decode_seqs, int64_t kv_used, int preempted) {
  IterationRecord r;
  r.replica = replica;
  r.start_s = start_s;
  r.end_s = end_s;
  r.decode_seqs = decode_seqs;
  r.kv_blocks_used = kv_used;
  r.kv_blocks_total = 100;
  r.preempted = preempted;
  return r;
}

TEST(IterationStats, PerReplicaFiguresAddUpToTheFleets) {
  IterationStats stats;
  stats.KeepPerReplica(2);
  stats.OnIteration(Step(0, 0, 1, 4, 10, 0));
  stats.OnIteration(Step(2, 0, 0.5, 2, 40, 1));
  stats.OnIteration(Step(0, 1, 1.5, 6, 30, 2));
  ASSERT_EQ(stats.per_replica.size(), 3u);
  const ReplicaIterationStats& first = stats.per_replica[0];
  EXPECT_EQ(first.iterations, 2);
  EXPECT_DOUBLE_EQ(first.busy_s, 1.5);
  EXPECT_DOUBLE_EQ(first.batch_size_sum, 10);
  EXPECT_EQ(first.peak_kv_blocks, 30);
  EXPECT_DOUBLE_EQ(first.peak_kv_fraction, 0.3);
  EXPECT_EQ(first.preemptions, 2);
  const ReplicaIterationStats& idle = stats.per_replica[1];
  EXPECT_EQ(idle.iterations, 0);
  EXPECT_EQ(idle.busy_s, 0);
  EXPECT_EQ(idle.peak_kv_blocks, 0);
  int64_t iterations = 0, preemptions = 0;
  double busy = 0, batch = 0;
  for (const ReplicaIterationStats& r : stats.per_replica) {
    iterations += r.iterations;
    busy += r.busy_s;
    batch += r.batch_size_sum;
    preemptions += r.preemptions;
  }
  EXPECT_EQ(iterations, stats.iterations);
  EXPECT_DOUBLE_EQ(busy, stats.busy_s);
  EXPECT_DOUBLE_EQ(batch, stats.batch_size_sum);
  EXPECT_EQ(preemptions, stats.preemptions);
  EXPECT_EQ(stats.peak_kv_blocks, 40);
  EXPECT_DOUBLE_EQ(stats.per_replica[2].peak_kv_fraction, stats.peak_kv_fraction);
}

// Without KeepPerReplica (one replica) the per-replica share is not kept: the fleet's figures are
// the replica's.
TEST(IterationStats, OneReplicaKeepsNoPerReplicaShare) {
  IterationStats stats;
  stats.OnIteration(Step(0, 0, 1, 4, 10, 0));
  EXPECT_TRUE(stats.per_replica.empty());
  EXPECT_EQ(stats.iterations, 1);
}

}  // namespace
}  // namespace infergrid
