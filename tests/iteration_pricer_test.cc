// sim/core/serving/iteration_pricer.h: exact anchors and interpolation between them.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(IterationPricer, PricesAnchorsAndInterpolatesBetween) {
  class Counting final : public IterationCostModel {
   public:
    IterationCost Cost(const BatchShape& batch) const override {
      ++calls;
      IterationCost c;
      double context = 0;
      for (int64_t x : batch.decode_context_tokens) context += static_cast<double>(x);
      c.duration_s = 1e-3 + 1e-6 * context * context;  // not linear: interpolation shows
      return c;
    }
    absl::string_view Description() const override { return "counting"; }
    mutable int calls = 0;
  } model;
  IterationPricer pricer(model, 4);
  Sequence a, b;
  a.prompt_tokens = b.prompt_tokens = 10;
  a.output_tokens = b.output_tokens = 100;
  a.generated = b.generated = 1;
  std::vector<double> durations;
  for (int step = 0; step < 6; ++step) {
    a.computed = b.computed = 10 + step;
    a.generated = b.generated = 1 + step;
    ScheduledBatch scheduled;
    scheduled.Add(&a, 1);
    scheduled.Add(&b, 1);
    BatchShape shape;
    shape.decode_context_tokens = {a.computed, b.computed};
    durations.push_back(pricer.Price(scheduled, shape).duration_s);
  }
  // Anchors at steps 0 and 4 (contexts 20 and 28 in total), one call for step 4 ahead of time,
  // one for step 8 once step 5 needs it.
  EXPECT_EQ(model.calls, 3);
  auto exact = [](double total) { return 1e-3 + 1e-6 * total * total; };
  EXPECT_DOUBLE_EQ(durations[0], exact(20));
  EXPECT_DOUBLE_EQ(durations[4], exact(28));
  EXPECT_DOUBLE_EQ(durations[2], exact(20) + 0.5 * (exact(28) - exact(20)));
  // A new member starts a new run with an exact price.
  Sequence c = a;
  ScheduledBatch scheduled;
  scheduled.Add(&a, 1);
  scheduled.Add(&c, 1);
  BatchShape shape;
  shape.decode_context_tokens = {16, 16};
  EXPECT_DOUBLE_EQ(pricer.Price(scheduled, shape).duration_s, exact(32));
}

}  // namespace
}  // namespace infergrid
