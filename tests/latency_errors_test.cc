// sim/app/validation/latency_errors.h: percentiles as NumPy interpolates them and the latency
// errors (MAPE, median, bias, quantiles).

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/app/validation/latency_errors.h"

namespace infergrid {
namespace {

TEST(LatencyErrors, PercentileInterpolatesLikeNumpy) {
  EXPECT_DOUBLE_EQ(Percentile({4, 1, 3, 2}, 50), 2.5);
  EXPECT_DOUBLE_EQ(Percentile({4, 1, 3, 2}, 90), 3.7);
  EXPECT_NEAR(Percentile({4, 1, 3, 2}, 99), 3.97, 1e-12);
  EXPECT_DOUBLE_EQ(Percentile({4, 1, 3, 2}, 0), 1);
  EXPECT_DOUBLE_EQ(Percentile({4, 1, 3, 2}, 100), 4);
  EXPECT_DOUBLE_EQ(Percentile({7}, 99), 7);
}

TEST(LatencyErrors, MapeMedianBiasAndQuantiles) {
  const double predicted[] = {1.1, 2.0, 3.3, 0.5};
  const double observed[] = {1.0, 2.0, 3.0, 0.0};
  const double percentiles[] = {50, 90};
  const LatencyErrors e = CompareLatencies(predicted, observed, percentiles);
  EXPECT_EQ(e.pairs, 4);
  EXPECT_EQ(e.mape_pairs, 3) << "the observed 0 is left out of MAPE";
  EXPECT_NEAR(e.mape, (0.1 + 0 + 0.1) / 3, 1e-12);
  EXPECT_NEAR(e.median_absolute_error, 0.2, 1e-12);  // |errors| 0.1, 0, 0.3, 0.5
  EXPECT_NEAR(e.mean_error, 0.9 / 4, 1e-12);
  ASSERT_EQ(e.quantiles.size(), 2u);
  EXPECT_DOUBLE_EQ(e.quantiles[0].observed, 1.5);
  EXPECT_DOUBLE_EQ(e.quantiles[0].predicted, 1.55);
  EXPECT_NEAR(e.quantiles[0].RelativeError(), 0.05 / 1.5, 1e-12);
  EXPECT_NEAR(e.quantiles[1].observed, 2.7, 1e-12);
  EXPECT_NEAR(e.quantiles[1].predicted, 2.91, 1e-12);
}

}  // namespace
}  // namespace infergrid
