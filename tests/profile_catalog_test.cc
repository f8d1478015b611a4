// calibration/profile_catalog.h: the bundled profiles against the catalog and the rows they were
// fitted on.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cost_model_helpers.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// ---------------------------------------------------------------- bundled profiles

TEST(BundledProfiles, EveryCatalogGpuHasOneAndUnmeasuredOnesSaySo) {
  for (const std::string& name : GpuCatalogNames()) {
    absl::StatusOr<Calibration> p = ResolveCalibration(Gpu(name), "");
    ASSERT_TRUE(p.ok()) << name << ": " << p.status();
    const bool measured = name == "h100-sxm" || name == "a100-80gb";
    EXPECT_EQ(p->extrapolated(), !measured) << name;
    if (!measured) {
      EXPECT_FALSE(p->extrapolated_from().empty());
      EXPECT_THAT(CalibrationLabel(*p), HasSubstr("extrapolated from"));
    }
  }
}

// The H100 profile predicts the measured rows it keeps (powers of two in M, every TP).
TEST(BundledProfiles, H100ReproducesItsHeldInGemmRows) {
  const GpuSpec h100 = Gpu("h100-sxm");
  absl::StatusOr<Calibration> p = ResolveCalibration(h100, "");
  ASSERT_TRUE(p.ok());
  ASSERT_GE(p->gemm_reference_size(), 100);
  const ResourceModel r = Resources(h100, *p);
  double ape = 0;
  for (const GemmReference& ref : p->gemm_reference()) {
    Kernel k = Gemm(ref.m(), ref.n(), ref.k());
    k.resident_input_bytes = 2.0 * ref.m() * ref.k();
    ape += std::abs(r.Time(k).seconds / ref.measured_s() - 1);
  }
  EXPECT_LT(ape / p->gemm_reference_size(), 0.12);
}

// A spec that keeps a catalog name but changes a number is another GPU: the bundled profile,
// measured on the catalog one, is not used for it (auto falls back to the roofline model, as
// simulate shows in its cost-model line); an unchanged copy keeps it.
TEST(BundledProfiles, AnEditedCatalogGpuIsNotPricedWithItsMeasuredProfile) {
  GpuSpec edited = Gpu("h100-sxm");
  EXPECT_TRUE(ResolveCalibration(edited, "").ok());
  edited.set_hbm_bytes_per_s(1e12);
  const absl::StatusOr<Calibration> p = ResolveCalibration(edited, "");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(
      p.status().message(),
      ::testing::HasSubstr("the GPU spec named 'h100-sxm' differs from the catalog's (modified: hbm_bytes_per_s"));
}

}  // namespace
}  // namespace infergrid
