// calibration/extrapolate.h: a profile for an unmeasured GPU.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cost_model_helpers.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

TEST(Extrapolation, ScalesRatesByDatasheetRatiosAndMarksTheSource) {
  const GpuSpec h100 = Gpu("h100-sxm"), h200 = Gpu("h200-sxm");
  absl::StatusOr<Calibration> source = ResolveCalibration(h100, "");
  ASSERT_TRUE(source.ok());
  absl::StatusOr<Calibration> x = ExtrapolateProfile(*source, h100, h200, "test");
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_TRUE(x->extrapolated());
  EXPECT_EQ(x->extrapolated_from(), "h100-sxm");
  EXPECT_NEAR(x->hbm().points(10).bytes_per_s() / source->hbm().points(10).bytes_per_s(), 4.8 / 3.35, 1e-12);
  EXPECT_EQ(x->gemm().peak_fraction(), source->gemm().peak_fraction());
  EXPECT_FALSE(ExtrapolateProfile(*x, h200, h100, "test").ok());  // not from an extrapolation
}

}  // namespace
}  // namespace infergrid
