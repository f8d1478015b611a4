// sim/core/metrics/log_histogram.h: quantiles within the resolution, repeated adds.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(LogHistogram, QuantilesWithinItsResolution) {
  LogHistogram h;
  std::vector<double> exact;
  for (int i = 1; i <= 10000; ++i) {
    const double v = 1e-3 * (1 + 0.37 * (i % 97)) * (1 + i / 5000.0);
    h.Add(v);
    exact.push_back(v);
  }
  std::sort(exact.begin(), exact.end());
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    EXPECT_NEAR(h.Quantile(q) / SortedQuantile(exact, q), 1.0, 1e-3) << q;
  }
  EXPECT_DOUBLE_EQ(h.max(), exact.back());
  EXPECT_EQ(h.count(), 10000);
  h.Add(0.5, 10);  // weighted
  EXPECT_EQ(h.count(), 10010);
}

// 1,000 samples at exactly 1.0 (the bottom edge of their bucket, whose centre is 1.0005) and
// one larger: p99.9 falls between the last two ranks and never reads above the maximum; the
// smallest quantiles read the minimum, not a bucket centre below or above it.
TEST(LogHistogram, APercentileNeverPassesTheMaximumOrTheMinimum) {
  LogHistogram h;
  h.Add(1.0, 1000);
  EXPECT_EQ(h.Quantile(0.5), 1.0);
  EXPECT_EQ(h.Quantile(0.999), 1.0);
  EXPECT_EQ(h.Quantile(1.0), 1.0);
  h.Add(1.0001);
  EXPECT_LE(h.Quantile(0.999), h.max());
  EXPECT_LE(h.Quantile(0.9999), h.max());
  EXPECT_EQ(h.Quantile(0), 1.0);
  EXPECT_EQ(h.min(), 1.0);
}

// Runs of equal values added at once equal the same values added one by one, sum included
// (the request log adds a decode step's equal inter-token gaps as one run).
TEST(LogHistogram, RepeatedAddsEqualSingleAdds) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> gap(1e-4, 0.05);
  LogHistogram runs, singles;
  for (int i = 0; i < 2000; ++i) {
    const double v = gap(rng);
    const int64_t n = static_cast<int64_t>(rng() % 40);
    runs.AddRepeated(v, n);
    for (int64_t k = 0; k < n; ++k) singles.Add(v);
  }
  EXPECT_EQ(runs.count(), singles.count());
  EXPECT_EQ(runs.sum(), singles.sum());  // bit for bit: the same additions in the same order
  EXPECT_EQ(runs.min(), singles.min());
  EXPECT_EQ(runs.max(), singles.max());
  for (const double q : {0.0, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0}) EXPECT_EQ(runs.Quantile(q), singles.Quantile(q)) << q;
}

}  // namespace
}  // namespace infergrid
