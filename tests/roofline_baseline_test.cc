// calibration/roofline_baseline.h: the baseline's fit on synthetic rows.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cost_model_helpers.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// The baseline's three parameters come back from rows it generated itself, memory-bound
// (M = 1) to compute-bound (M = 4096).
TEST(RooflineBaseline, RecoversKnownParametersOnSyntheticRows) {
  const GpuSpec h100 = Gpu("h100-sxm");
  const RooflineBaseline truth{0.62, 0.83, 6e-6};
  std::vector<KernelSample> samples;
  for (int64_t n : {4096, 14336}) {
    for (int64_t k : {4096, 11008}) {
      for (int64_t m : {1, 4, 16, 64, 128, 256, 512, 1024, 4096}) {
        KernelSample s;
        s.op = "gemm";
        s.kernel = Gemm(m, n, k);
        s.measured_s = truth.Seconds(h100, s.kernel);
        samples.push_back(s);
      }
    }
  }
  // A non-GEMM row does not take part.
  KernelSample other;
  other.kernel.kind = KernelKind::kNorm;
  other.measured_s = 1;
  samples.push_back(other);
  absl::StatusOr<RooflineBaseline> fitted = FitRooflineBaseline(h100, samples);
  ASSERT_TRUE(fitted.ok()) << fitted.status();
  EXPECT_NEAR(fitted->compute_efficiency, 0.62, 1e-3);
  EXPECT_NEAR(fitted->memory_efficiency, 0.83, 1e-3);
  EXPECT_NEAR(fitted->fixed_s, 6e-6, 1e-8);
  // max(FLOPs / (e_c peak), bytes / (e_m HBM)) + t0, by hand for one compute-bound row.
  const Kernel big = Gemm(4096, 4096, 4096);
  EXPECT_DOUBLE_EQ(truth.Seconds(h100, big), 2.0 * 4096 * 4096 * 4096 / (0.62 * 989.4e12) + 6e-6);
  EXPECT_FALSE(FitRooflineBaseline(h100, {other}).ok());
}

}  // namespace
}  // namespace infergrid
