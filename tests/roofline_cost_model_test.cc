// sim/core/cost/roofline_cost_model.h: the peak-based roofline model against the accounting.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cost_model_helpers.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// ---------------------------------------------------------------- peak-based (roofline) model

// The uncalibrated model reproduces the lesson's decode step at B = 1, S = 8K: 20.29 GFLOP,
// 17.07 GB (+ the one-token write), HBM-bound at 5.10 ms on H100 peaks.
TEST(RooflineCostModel, DecodeStepMatchesTheAccounting) {
  ModelSpec llama;
  llama.set_num_layers(32);
  llama.set_num_attention_heads(32);
  llama.set_head_dim(128);
  absl::StatusOr<GpuSpec> h100 = ResolveGpu("h100-sxm");
  ASSERT_TRUE(h100.ok());
  RooflineCostOptions options;
  options.weight_bytes = 16e9;
  options.kv_bytes_per_token = 131072;
  options.active_parameters = 8e9;
  const RooflineCostModel model(llama, *h100, options);
  BatchShape batch;
  batch.decode_context_tokens = {8192};
  const IterationCost cost = model.Cost(batch);
  // 4*L*H_q*D per pair over 8,192 cached keys + the new token itself.
  EXPECT_NEAR(cost.flops / 1e9, 20.29, 0.01);
  EXPECT_DOUBLE_EQ(cost.hbm_bytes, 16e9 + 131072.0 * 8193);
  EXPECT_EQ(cost.binding, Resource::kHbm);
  EXPECT_NEAR(cost.duration_s * 1e3, 5.097, 0.001);
  EXPECT_NEAR(cost.hbm_fraction(), 1.0, 1e-12);

  // A 2,048-token prefill is compute-bound: causal pairs n(n+1)/2.
  BatchShape prefill;
  prefill.prefill = {{2048, 0}};
  const IterationCost p = model.Cost(prefill);
  EXPECT_DOUBLE_EQ(p.flops, 2 * 8e9 * 2048 + 4.0 * 32 * 32 * 128 * (2048.0 * 2049 / 2));
  EXPECT_EQ(p.binding, Resource::kCompute);
  // Under peaks, attention work is linear in each sequence's context, so two batches with the
  // same total context cost the same; the calibrated model (per-sequence kernels) need not.
  BatchShape a, b;
  a.decode_context_tokens = {1000, 3000};
  b.decode_context_tokens = {2000, 2000};
  EXPECT_DOUBLE_EQ(model.Cost(a).flops, model.Cost(b).flops);
  EXPECT_EQ(model.Cost(BatchShape()).duration_s, 0);
}

}  // namespace
}  // namespace infergrid
