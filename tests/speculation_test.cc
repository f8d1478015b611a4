// sim/core/serving/speculation.h: speculative decoding's acceptance model (docs/speculative.md)
// against its closed form, per-request rates drawn from a Beta distribution reproducibly, the
// acceptance flag's spellings, and where speculation stops paying as the batch grows.

#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/core/cost/cost_model_factory.h"
#include "sim/core/serving/speculation.h"
#include "tests/speculative_request.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// Tokens per step T = 1 + J, J the leading accepted run of k draws: P(T = t) = a^(t-1) (1 - a)
// for t <= k, P(T = k + 1) = a^k. The mean of N draws has standard deviation sqrt(Var T / N);
// the test allows 5 of them (a false failure once in 1.7 million seeds; the seed is fixed).
TEST(Speculation, AcceptedTokensPerStepMatchTheFormulaOverManyDraws) {
  constexpr int kDraws = 200000;
  for (const auto& [a, k] : std::vector<std::pair<double, int>>{{0.8, 4}, {0.5, 3}, {0.95, 7}, {0.3, 1}}) {
    double mean = 0, second = 0;
    for (int t = 1; t <= k + 1; ++t) {
      const double p = t <= k ? std::pow(a, t - 1) * (1 - a) : std::pow(a, k);
      mean += p * t;
      second += p * t * t;
    }
    ASSERT_NEAR(mean, ExpectedTokensPerStep(a, k), 1e-12);
    const double tolerance = 5 * std::sqrt((second - mean * mean) / kDraws);
    uint64_t state = SpeculationStream::Seed(42, 7);
    double sum = 0;
    for (int i = 0; i < kDraws; ++i) sum += 1 + SpeculationStream::AcceptedDrafts(a, k, state);
    EXPECT_NEAR(sum / kDraws, mean, tolerance) << "a=" << a << " k=" << k;
  }
  EXPECT_DOUBLE_EQ(ExpectedTokensPerStep(0.8, 4), (1 - std::pow(0.8, 5)) / 0.2);  // 3.3616
  uint64_t state = 1;
  EXPECT_EQ(SpeculationStream::AcceptedDrafts(0, 4, state), 0);
  EXPECT_EQ(SpeculationStream::AcceptedDrafts(1, 4, state), 4);
}

// Per-request rates from Beta(alpha, beta): their mean within 5 standard errors of
// alpha / (alpha + beta); the same seed and index give the same rate.
TEST(Speculation, PerRequestRatesFollowTheBetaDistributionReproducibly) {
  const AcceptanceModel m = *ParseAcceptanceModel("speculative-acceptance", "beta:8,2");
  constexpr int kRequests = 20000;
  double sum = 0;
  for (int i = 0; i < kRequests; ++i) {
    uint64_t state = SpeculationStream::Seed(3, i);
    const double rate = SpeculationStream::DrawRate(m, state);
    ASSERT_GE(rate, 0);
    ASSERT_LE(rate, 1);
    sum += rate;
  }
  const double a = 8, b = 2;
  const double sd = std::sqrt(a * b / ((a + b) * (a + b) * (a + b + 1)) / kRequests);
  EXPECT_NEAR(sum / kRequests, 0.8, 5 * sd);
  uint64_t s1 = SpeculationStream::Seed(3, 11), s2 = SpeculationStream::Seed(3, 11),
           s3 = SpeculationStream::Seed(4, 11);
  const double r1 = SpeculationStream::DrawRate(m, s1);
  EXPECT_EQ(r1, SpeculationStream::DrawRate(m, s2));
  EXPECT_NE(r1, SpeculationStream::DrawRate(m, s3));
  EXPECT_FALSE(ParseAcceptanceModel("speculative-acceptance", "1.5").ok());
  EXPECT_FALSE(ParseAcceptanceModel("speculative-acceptance", "-0.1").ok());
  EXPECT_FALSE(ParseAcceptanceModel("speculative-acceptance", "beta:0,2").ok());
  EXPECT_DOUBLE_EQ(ParseAcceptanceModel("speculative-acceptance", "0.6")->rate, 0.6);
}

// TPOT of a decode batch: the step's time over the tokens a step yields (1 without speculation).
// Llama-3-70B drafted by Llama-3-8B on one H100 (roofline), contexts of 1,000 tokens, a = 0.8,
// k = 4 (3.36 tokens a step): at batch 1 the step is weight-bound, verifying 5 tokens costs what
// decoding 1 does, and speculation cuts TPOT 2.34x (2.13x at batch 64); as the batch grows the
// verification's 5x FLOPs turn compute-bound and speculation loses: 1.42x at 128, 0.94x at 256,
// 0.67x at 512. The crossover is at batch 231.
TEST(SpeculativeCost, SpeculationPaysAtBatchOneAndLosesAtLargeBatches) {
  const CostModelChoice plain = *MakeCostModel(RooflineRequest("llama-3-70b", ""));
  const CostModelChoice spec = *MakeCostModel(RooflineRequest("llama-3-70b", "llama-3-8b"));
  const double tokens = ExpectedTokensPerStep(0.8, 4);
  auto speedup = [&](int batch) {
    const double plain_tpot = plain.model->Cost(DecodeBatch(batch, 1000, 0)).duration_s;
    const double spec_tpot = spec.model->Cost(DecodeBatch(batch, 1000, 4)).duration_s / tokens;
    return plain_tpot / spec_tpot;
  };
  EXPECT_GT(speedup(1), 2.0);
  EXPECT_LT(speedup(512), 0.8);
  int crossover = 0;
  for (int batch = 1; batch <= 512; ++batch) {
    if (speedup(batch) < 1) {
      crossover = batch;
      break;
    }
  }
  EXPECT_GT(crossover, 128);
  EXPECT_LT(crossover, 384);
  ::testing::Test::RecordProperty("crossover_batch", crossover);
}

}  // namespace
}  // namespace infergrid
