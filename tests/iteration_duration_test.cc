// sim/core/serving/iteration_duration.h: an iteration's duration decided in one function: the
// price varied by noise and front-end work, split into GPU time, collective latency and the ring's bytes.
#include <cstdint>

#include "gtest/gtest.h"
#include "sim/core/serving/iteration_duration.h"

namespace infergrid {
namespace {

IterationCost PricedCost() {
  IterationCost cost;
  cost.duration_s = 0.010;
  cost.network_s = 0.002;
  cost.host_s = 0.001;
  return cost;
}

CollectiveTiming FourWayRing() {
  CollectiveTiming c;
  c.tensor_parallel = 4;
  c.ring_bytes_per_s = 1e11;
  c.num_layers = 32;
  c.hidden_size = 4096;
  c.activation_bytes = 2;
  return c;
}

TEST(IterationDuration, RingBytesAreTwoAllReducesPerLayerPlusAllToAll) {
  // 2 x 32 layers x 2 (k - 1) / k (k = 4) x 100 tokens x 4096 x 2 bytes.
  EXPECT_DOUBLE_EQ(RingBytes(100, FourWayRing()), 96.0 * 819200);
  CollectiveTiming moe = FourWayRing();
  moe.all_to_all_bytes_per_token = 1000;
  EXPECT_DOUBLE_EQ(RingBytes(100, moe), 96.0 * 819200 + 100 * 1000);
  EXPECT_EQ(RingBytes(100, CollectiveTiming{}), 0);
}

TEST(IterationDuration, NoiseAndFrontEndWorkVaryThePriceAndTheRingIsSplitOff) {
  IterationCost cost = PricedCost();
  const IterationDuration d =
      DecideIterationDuration(cost, {.noise_factor = 1.1, .front_end_work_s = 0.0005}, 100, FourWayRing());
  EXPECT_DOUBLE_EQ(cost.duration_s, 0.0115);  // 0.010 x 1.1 + 0.0005
  EXPECT_DOUBLE_EQ(cost.network_s, 0.0022);
  EXPECT_DOUBLE_EQ(cost.host_s, 0.0016);  // 0.001 x 1.1 + 0.0005
  EXPECT_DOUBLE_EQ(d.step_s, 0.0115);
  EXPECT_DOUBLE_EQ(d.ring_bytes, 78643200);
  EXPECT_DOUBLE_EQ(d.ring_s, 7.86432e-4);
  // The measured collective time beyond the ring's bytes is fixed latency, on the GPUs' side.
  EXPECT_DOUBLE_EQ(d.latency_s, 0.0022 - 7.86432e-4);
  EXPECT_NEAR(d.compute_s, 0.0115 - 0.0022 + 0.0022 - 7.86432e-4, 1e-15);
  EXPECT_NEAR(d.uncontended_s(), 0.0115, 1e-15);
}

TEST(IterationDuration, AModelWithoutCollectivesPaysTheConfiguredLatencyPerAllReduce) {
  IterationCost cost = PricedCost();
  cost.network_s = 0;
  CollectiveTiming two = FourWayRing();
  two.tensor_parallel = 2;
  two.allreduce_latency_s = 5e-6;
  const IterationDuration d = DecideIterationDuration(cost, {}, 10, two);
  EXPECT_DOUBLE_EQ(cost.duration_s, 0.010);  // no variation
  EXPECT_DOUBLE_EQ(d.latency_s, 2 * 32 * 5e-6);
  EXPECT_DOUBLE_EQ(d.compute_s, 0.010 + 2 * 32 * 5e-6);
  EXPECT_DOUBLE_EQ(d.ring_bytes, 2.0 * 32 * 2.0 * 1 / 2 * (10 * 4096 * 2));
}

TEST(IterationDuration, OneGpuHasNoRing) {
  IterationCost cost = PricedCost();
  const IterationDuration d = DecideIterationDuration(cost, {}, 100, CollectiveTiming{});
  EXPECT_EQ(d.ring_bytes, 0);
  EXPECT_EQ(d.ring_s, 0);
  EXPECT_EQ(d.latency_s, 0.002);  // all of the measured network time
  EXPECT_DOUBLE_EQ(d.compute_s, 0.010);
}

}  // namespace
}  // namespace infergrid
