// Tests of hardware/: the GPU catalog's capacities and the peak-based lower bounds.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "hardware/lower_bounds.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

TEST(GpuCatalog, CapacityIsWhatTheDeviceReportsNotTheLabel) {
  absl::StatusOr<GpuSpec> h100 = ResolveGpu("h100-sxm");
  ASSERT_TRUE(h100.ok()) << h100.status();
  EXPECT_EQ(h100->reported_total_mib(), 81559);
  const double bytes = ReportedTotalBytes(*h100);
  EXPECT_NEAR(bytes / 1073741824.0, 79.65, 0.005);  // GiB
  EXPECT_NEAR(bytes / 1e9, 85.52, 0.005);           // GB
  EXPECT_NEAR(80e9 / 1073741824.0, 74.51, 0.005);   // the "80 GB" label in GiB
  absl::StatusOr<GpuSpec> h200 = ResolveGpu("H200-SXM");
  ASSERT_TRUE(h200.ok());
  EXPECT_EQ(h200->reported_total_mib(), 143771);
  EXPECT_TRUE(ResolveGpu("a100-80gb").ok());
}

TEST(GpuCatalog, UnknownNameAndBadFiles) {
  absl::StatusOr<GpuSpec> unknown = ResolveGpu("h900");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown GPU 'h900'"));
  EXPECT_THAT(unknown.status().message(), HasSubstr("h100-sxm"));
  const std::string path = testing::WriteFile(testing::TestDir() / "g.textproto",
                                              "name: \"g\"\nreported_total_mib: 0\n");
  absl::StatusOr<GpuSpec> bad = ResolveGpu(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("reported_total_mib must be positive"));
}

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
