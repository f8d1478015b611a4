// sim/core/metrics/latency_stats.h: percentiles as numpy computes them.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ---------------------------------------------------------------- metrics

TEST(LatencyStats, InterpolatesLikeNumpy) {
  std::vector<double> samples = {4, 1, 3, 2, 5, 6, 7, 8, 9, 10};
  const LatencyStats s = ComputeLatencyStats(samples);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  EXPECT_DOUBLE_EQ(s.p50, 5.5);  // numpy.percentile(range(1, 11), 50)
  EXPECT_DOUBLE_EQ(s.p90, 9.1);
  EXPECT_DOUBLE_EQ(s.p99, 9.91);
  EXPECT_DOUBLE_EQ(s.max, 10);
}

}  // namespace
}  // namespace infergrid
