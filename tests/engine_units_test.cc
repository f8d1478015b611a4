// The engine's units with behaviour of their own: the sequence pool (one owner for every
// sequence), the iteration's duration (decided in one function), the progress reports (a
// callback, throttled in the engine) and a run reporting through that callback.
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "sim/core/engine/run_progress.h"
#include "sim/core/engine/simulation.h"
#include "sim/core/serving/iteration_duration.h"
#include "sim/core/serving/sequence_pool.h"
#include "traces/request.h"

namespace infergrid {
namespace {

// ---------------------------------------------------------------- sequence pool

Sequence MakeSequence(int64_t record, int32_t prompt) {
  Sequence seq;
  seq.record = record;
  seq.prompt_tokens = prompt;
  seq.prefix_keys = {1, 2, 3};
  return seq;
}

TEST(SequencePool, ReusesReleasedSlotsAndCountsLiveOnes) {
  SequencePool pool;
  Sequence* a = pool.Acquire(MakeSequence(0, 10));
  Sequence* b = pool.Acquire(MakeSequence(1, 20));
  EXPECT_EQ(pool.live(), 2);
  EXPECT_EQ(a->record, 0);
  EXPECT_EQ(b->prompt_tokens, 20);
  pool.Release(a);
  EXPECT_EQ(pool.live(), 1);
  // The next admission takes the released slot, holding the new value only.
  Sequence fresh;
  fresh.record = 7;
  Sequence* c = pool.Acquire(std::move(fresh));
  EXPECT_EQ(c, a);
  EXPECT_EQ(c->record, 7);
  EXPECT_EQ(c->prompt_tokens, 0);
  EXPECT_TRUE(c->prefix_keys.empty());
  EXPECT_EQ(pool.live(), 2);
  EXPECT_EQ(pool.allocated(), 2);
}

TEST(SequencePool, KeepsAddressesWhileGrowingAndFreesWhatIsStillHeld) {
  // Sequences still held when the pool goes (a run that failed) are freed with it: under
  // AddressSanitizer (CI's sanitizer stage) a leak here fails the test.
  auto pool = std::make_unique<SequencePool>();
  std::vector<Sequence*> held;
  for (int i = 0; i < 1000; ++i) held.push_back(pool->Acquire(MakeSequence(i, i + 1)));
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(held[static_cast<size_t>(i)]->record, i);
  for (int i = 0; i < 1000; i += 2) pool->Release(held[static_cast<size_t>(i)]);
  EXPECT_EQ(pool->live(), 500);
  pool.reset();
}

// ---------------------------------------------------------------- iteration duration

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

// ---------------------------------------------------------------- progress

TEST(ProgressReporter, ReportsEvery256thUpdateAndTheFinish) {
  std::vector<RunProgress> reports;
  const ProgressCallback callback = [&reports](const RunProgress& p) { reports.push_back(p); };
  ProgressReporter reporter(callback);
  for (int i = 1; i <= 600; ++i) reporter.Update(i, 2 * i, 0.5 * i);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].arrived, 256);
  EXPECT_EQ(reports[0].iterations, 512);
  EXPECT_EQ(reports[0].simulated_s, 128);
  EXPECT_FALSE(reports[0].finished);
  EXPECT_EQ(reports[1].arrived, 512);
  reporter.Finish(600, 1200, 300);
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_TRUE(reports[2].finished);
  EXPECT_EQ(reports[2].arrived, 600);
}

TEST(ProgressReporter, WithoutACallbackReportsNothing) {
  const ProgressCallback none;
  ProgressReporter reporter(none);
  for (int i = 0; i < 1000; ++i) reporter.Update(i, i, i);
  reporter.Finish(1, 1, 1);  // nothing to call: must not crash
}

// ---------------------------------------------------------------- a run

class FlatCostModel final : public IterationCostModel {
 public:
  IterationCost Cost(const BatchShape& batch) const override {
    IterationCost cost;
    cost.duration_s = 1e-3 + 1e-6 * static_cast<double>(batch.TotalNewTokens());
    cost.hbm_bytes = 1e9;
    cost.binding = Resource::kHbm;
    return cost;
  }
  absl::string_view Description() const override { return "flat test model"; }
};

// One engine per process: ctest runs this test in its own.
TEST(EngineRun, ReportsProgressThroughTheCallbackAndFinishesOnce) {
  EngineConfig config;
  config.limits = {.max_num_seqs = 64, .max_num_batched_tokens = 4096};
  config.blocks = {.num_gpu_blocks = 2000, .block_size = 16, .watermark = 0.01};
  config.max_model_len = 4096;
  config.kv_bytes_per_token = 131072;
  std::vector<RunProgress> reports;
  config.on_progress = [&reports](const RunProgress& p) { reports.push_back(p); };
  std::vector<Request> requests;
  for (int i = 0; i < 600; ++i) {
    Request r;
    r.id = i;
    r.arrival_s = 0.01 * i;
    r.input_tokens = 50;
    r.output_tokens = 5;
    requests.push_back(r);
  }
  VectorRequestSource source(requests);
  FlatCostModel cost;
  absl::StatusOr<SimulationResult> result = RunSimulation(config, *ResolveGpu("h100-sxm"), cost, source, nullptr);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_GE(reports.size(), 2u);  // 600 arrivals alone make two reports, then the finish
  for (size_t i = 0; i + 1 < reports.size(); ++i) EXPECT_FALSE(reports[i].finished);
  const RunProgress& last = reports.back();
  EXPECT_TRUE(last.finished);
  EXPECT_EQ(last.arrived, 600);
  EXPECT_EQ(last.iterations, result->stats.iterations);
  EXPECT_EQ(result->log.records().size(), 600u);
}

}  // namespace
}  // namespace infergrid
