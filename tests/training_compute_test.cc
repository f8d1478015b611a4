// models/training_compute.h: training compute (6 x N x D) with the figures of the memory-anatomy
// seed document, and where they do not follow from its own formulas.

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/model_catalog.h"
#include "models/training_compute.h"

namespace infergrid {
namespace {

TEST(TrainingCompute, SixFlopsPerParameterPerToken) {
  // The document's example: 70B parameters on 15T tokens.
  EXPECT_DOUBLE_EQ(TrainingFlops(70e9, 15e12), 6.3e24);
  // Chinchilla itself: 70B on 1.4T tokens (20 per parameter).
  EXPECT_DOUBLE_EQ(ComputeOptimalTokens(70e9, kChinchillaTokensPerParameter), 1.4e12);
  EXPECT_DOUBLE_EQ(TrainingFlops(70e9, 1.4e12), 5.88e23);
}

TEST(TrainingCompute, TheDocumentsExampleTakes178DaysNot45) {
  const double seconds = TrainingSeconds(TrainingFlops(70e9, 15e12), 1024, 400e12);
  EXPECT_NEAR(seconds, 1.5380859375e7, 1);
  EXPECT_NEAR(seconds / kSecondsPerDay, 178.02, 0.01);
  EXPECT_GT(seconds / kSecondsPerDay / 45, 3.9) << "the document is ~4x short";
}

TEST(TrainingCompute, WhatWouldTake45Days) {
  const TrainingTimeSolution s = SolveForTrainingSeconds(70e9, 15e12, 1024, 400e12, 45 * kSecondsPerDay);
  EXPECT_NEAR(s.num_gpus, 4050.93, 0.01);  // ~4,096 GPUs, not 1,024
  EXPECT_NEAR(s.flops_per_gpu / 1e12, 1582.39, 0.01);  // above the 989.4 bf16 dense peak
  EXPECT_NEAR(s.tokens / 1e12, 3.7917, 0.0001);  // ~3.8T tokens, not 15T
  EXPECT_NEAR(s.flops_per_parameter_token, 1.5167, 0.0001);  // less than a forward pass
  // Each solution really gives 45 days.
  EXPECT_NEAR(TrainingSeconds(TrainingFlops(70e9, 15e12), s.num_gpus, 400e12) / kSecondsPerDay, 45, 1e-9);
  EXPECT_NEAR(TrainingSeconds(TrainingFlops(70e9, s.tokens), 1024, 400e12) / kSecondsPerDay, 45, 1e-9);
  // 4,096 GPUs (4x the cluster) gives 44.5 days, the closest round cluster size.
  EXPECT_NEAR(TrainingSeconds(6.3e24, 4096, 400e12) / kSecondsPerDay, 44.50, 0.01);
}

TEST(TrainingCompute, ComputeOptimalSplitOfABudget) {
  const ParameterTokenSplit split = ComputeOptimalSplit(6.3e24, 20);
  EXPECT_NEAR(split.parameters / 1e9, 229.13, 0.01);
  EXPECT_NEAR(split.tokens / split.parameters, 20, 1e-12);
  EXPECT_NEAR(TrainingFlops(split.parameters, split.tokens), 6.3e24, 1e10);
}

TEST(TrainingCompute, AttentionAddOnForLlama3At8k) {
  const absl::StatusOr<ModelSpec> model = FindCatalogModel("llama-3-70b");
  ASSERT_TRUE(model.ok());
  const double per_token =
      AttentionTrainingFlopsPerToken(model->num_layers(), model->num_attention_heads(), model->head_dim(), 8192);
  EXPECT_DOUBLE_EQ(per_token, 64424509440.0);  // 12 x 80 x 64 x 128 x 8192
  EXPECT_NEAR(per_token / (6 * 70e9), 0.153, 0.001) << "+15% over 6N at 8k context";
}

}  // namespace
}  // namespace infergrid
