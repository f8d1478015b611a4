// hardware/lower_bounds.h: the peak-based lower bounds.

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "hardware/lower_bounds.h"
#include "hardware/topology.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// Lesson section 6.4: 989 TFLOP/s / 3.35 TB/s = 295 FLOP/byte; section 10 exercise 3.
TEST(LowerBounds, DecodeAt8KIsHbmBoundOnPeaks) {
  absl::StatusOr<GpuSpec> h100 = ResolveGpu("h100-sxm");
  ASSERT_TRUE(h100.ok());
  const LowerBounds b = ComputeLowerBounds(*h100, DType::BF16, 20.29e9, 17.07e9);
  EXPECT_NEAR(b.machine_balance, 295.0, 0.5);
  EXPECT_NEAR(b.hbm_s * 1e3, 5.096, 0.001);
  EXPECT_NEAR(b.compute_s * 1e6, 20.5, 0.05);
  EXPECT_EQ(b.larger(), "hbm");
  // Prefill at P = 2048: 33.87 TFLOP vs 16 GB: compute is the larger bound.
  const LowerBounds prefill = ComputeLowerBounds(*h100, DType::BF16, 33.87e12, 16.27e9);
  EXPECT_EQ(prefill.larger(), "compute");
  EXPECT_NEAR(prefill.compute_s * 1e3, 34.23, 0.01);
  // FP8 math uses the FP8 peak.
  EXPECT_DOUBLE_EQ(PeakTensorFlops(*h100, DType::FP8_E4M3), 1978.9e12);
  // A100 has no FP8 tensor cores.
  absl::StatusOr<GpuSpec> a100 = ResolveGpu("a100-80gb");
  EXPECT_DOUBLE_EQ(PeakTensorFlops(*a100, DType::FP8_E4M3), 0);
}

}  // namespace
}  // namespace infergrid
