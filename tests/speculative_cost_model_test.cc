// sim/core/cost/speculative_cost_model.h: the price of a speculative step (proposer passes + the
// target's verification of k + 1 tokens per sequence). Where speculation stops paying as the batch
// grows: speculation_test.cc.

#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/core/cost/cost_model_factory.h"
#include "sim/core/cost/speculative_cost_model.h"
#include "tests/speculative_request.h"

namespace infergrid {
namespace {

TEST(SpeculativeCost, StepIsKDraftPassesPlusTheVerificationOfKPlusOneTokens) {
  const CostModelChoice plain = *MakeCostModel(RooflineRequest("llama-3-70b", ""));
  const CostModelChoice draft_only = *MakeCostModel(RooflineRequest("llama-3-8b", ""));
  const CostModelChoice spec = *MakeCostModel(RooflineRequest("llama-3-70b", "llama-3-8b"));
  constexpr int kK = 3;
  const BatchShape batch = DecodeBatch(4, 1000, kK);
  // Verification: the target with every sequence as a chunk of k + 1 tokens after its context.
  BatchShape verify;
  for (int i = 0; i < 4; ++i) verify.prefill.push_back({kK + 1, 1000});
  const IterationCost v = plain.model->Cost(verify);
  // Draft: k passes at contexts c, c + 1, c + 2, without the roofline's fixed step overhead.
  double draft_s = 0;
  for (int i = 0; i < kK; ++i) {
    draft_s += draft_only.model->Cost(DecodeBatch(4, 1000 + i, 0)).duration_s - draft_only.overhead_s;
  }
  const IterationCost c = spec.model->Cost(batch);
  EXPECT_NEAR(c.draft_s, draft_s, 1e-12);
  EXPECT_NEAR(c.duration_s, draft_s + v.duration_s, 1e-12);
  EXPECT_GT(c.flops, v.flops);  // the draft's FLOPs are in the step's demands
  // k = 0 is the target's plain price.
  EXPECT_EQ(spec.model->Cost(DecodeBatch(4, 1000, 0)).duration_s,
            plain.model->Cost(DecodeBatch(4, 1000, 0)).duration_s);

  // n-gram lookup: no GPU work beyond the verification, 10 us of host per sequence.
  const CostModelChoice ngram = *MakeCostModel(RooflineRequest("llama-3-70b", "", /*ngram=*/true));
  const IterationCost n = ngram.model->Cost(batch);
  EXPECT_NEAR(n.draft_s, 4 * 10e-6, 1e-15);
  EXPECT_NEAR(n.duration_s, v.duration_s + 4 * 10e-6, 1e-12);
  EXPECT_EQ(n.flops, v.flops);
  EXPECT_EQ(n.hbm_bytes, v.hbm_bytes);
}

}  // namespace
}  // namespace infergrid
