// Calibration profiles checked on load (calibration/calibration_checks.h): every bundled
// profile passes; a non-finite number, an implausible value and a kernel priced faster than the
// datasheet are each refused naming the file and the field. A bad --calibration=FILE given to a
// command: calibration_checks_cli_test.cc.
#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "calibration/calibration_checks.h"
#include "calibration/profile_catalog.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "tests/command_runner.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

GpuSpec H100() {
  absl::StatusOr<GpuSpec> gpu = ResolveGpu("h100-sxm");
  EXPECT_TRUE(gpu.ok()) << gpu.status();
  return *gpu;
}

Calibration H100Profile() {
  absl::StatusOr<Calibration> profile = ResolveCalibration(H100(), "");
  EXPECT_TRUE(profile.ok()) << profile.status();
  return *profile;
}

KernelClassCalibration* ClassNamed(Calibration* profile, const std::string& name) {
  for (KernelClassCalibration& c : *profile->mutable_kernel_classes()) {
    if (c.name() == name) return &c;
  }
  ADD_FAILURE() << "no class " << name;
  return profile->add_kernel_classes();
}

int ClassIndex(const Calibration& profile, const std::string& name) {
  for (int i = 0; i < profile.kernel_classes_size(); ++i) {
    if (profile.kernel_classes(i).name() == name) return i;
  }
  return -1;
}

std::string Refusal(const Calibration& profile) {
  const absl::Status s = ValidateCalibration(profile, H100(), "my.textproto");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  return std::string(s.message());
}

TEST(CalibrationChecks, EveryBundledProfilePassesAgainstItsGpu) {
  for (const std::string& name : BundledProfileNames()) {
    absl::StatusOr<GpuSpec> gpu = ResolveGpu(name);
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    absl::StatusOr<Calibration> profile = ResolveCalibration(*gpu, "");
    ASSERT_TRUE(profile.ok()) << name << ": " << profile.status();
    EXPECT_TRUE(ValidateCalibration(*profile, *gpu, name).ok()) << name;
  }
}

TEST(CalibrationChecks, NonFiniteNumbersAreRefusedByPath) {
  Calibration profile = H100Profile();
  const int norm = ClassIndex(profile, "norm");
  ClassNamed(&profile, "norm")->set_fixed_s(std::numeric_limits<double>::infinity());
  EXPECT_THAT(Refusal(profile),
              HasSubstr(absl::StrCat("my.textproto: kernel_classes[", norm, "].fixed_s is inf; expected a finite")));

  profile = H100Profile();
  profile.mutable_hbm()->mutable_points(3)->set_bytes_per_s(std::nan(""));
  EXPECT_THAT(Refusal(profile), HasSubstr("my.textproto: hbm.points[3].bytes_per_s is nan"));

  profile = H100Profile();
  profile.mutable_gemm()->set_peak_fraction(std::numeric_limits<double>::infinity());
  EXPECT_THAT(Refusal(profile), HasSubstr("my.textproto: gemm.peak_fraction is inf"));

  profile = H100Profile();
  profile.set_zero_input_tensor_gain(-0.3);  // signed, fitted in (-0.5, 1): allowed
  EXPECT_TRUE(ValidateCalibration(profile, H100(), "my.textproto").ok());
  profile.set_zero_input_tensor_gain(-std::numeric_limits<double>::infinity());
  EXPECT_THAT(Refusal(profile), HasSubstr("my.textproto: zero_input_tensor_gain = -inf is outside (-1, 1000]"));
}

// An efficiency so small that a kernel's time overflows reached the event engine as infinite
// work and aborted it; now it is refused with the field named.
TEST(CalibrationChecks, AbsurdlySmallEfficienciesAreRefused) {
  Calibration profile = H100Profile();
  const int add = ClassIndex(profile, "residual_add");
  ClassNamed(&profile, "residual_add")->set_bandwidth_fraction(1e-300);
  EXPECT_THAT(Refusal(profile), HasSubstr(absl::StrCat("my.textproto: kernel_classes[", add,
                                                       "] (residual_add).bandwidth_fraction = 1e-300 is below")));

  profile = H100Profile();
  profile.mutable_gemm()->set_peak_fraction(1e-300);
  EXPECT_THAT(Refusal(profile), HasSubstr("my.textproto: gemm.peak_fraction = 1e-300 prices the best tile"));

  profile = H100Profile();
  ClassNamed(&profile, "attention_prefill")->set_compute_fraction(1e-9);
  EXPECT_THAT(Refusal(profile), HasSubstr("(attention_prefill).compute_fraction = 1e-09 is outside {0} and"));
}

TEST(CalibrationChecks, ImplausibleValuesAreRefusedWithTheirRange) {
  Calibration profile = H100Profile();
  profile.mutable_gemm()->set_overlap_penalty(3);
  EXPECT_THAT(Refusal(profile), HasSubstr("my.textproto: gemm.overlap_penalty = 3 is outside [0, 1]"));

  profile = H100Profile();
  profile.mutable_launch()->set_eager_s(5);
  EXPECT_THAT(Refusal(profile), HasSubstr("my.textproto: launch.eager_s = 5 is outside [0, 1]"));

  profile = H100Profile();
  ClassNamed(&profile, "rope")->set_fixed_s(30);
  EXPECT_THAT(Refusal(profile), HasSubstr("(rope).fixed_s = 30 is outside [0, 1]"));

  profile = H100Profile();
  profile.mutable_gemm()->mutable_tiles(0)->set_bn(100000);
  EXPECT_THAT(Refusal(profile), HasSubstr("my.textproto: gemm.tiles[0].bn = 100000 is outside [1, 4096]"));

  profile = H100Profile();
  profile.mutable_collectives(0)->mutable_points(1)->set_seconds(1e7);
  EXPECT_THAT(Refusal(profile), HasSubstr("collectives[0].points[1].seconds = 1e+07 is outside [0, 3600]"));
}

// A profile could make a GEMM faster than the GPU's peak: a silent wrong answer, now refused.
TEST(CalibrationChecks, NoKernelFasterThanTheDatasheetPeak) {
  Calibration profile = H100Profile();
  profile.mutable_gemm()->set_peak_fraction(4);  // x the best tile's 0.31: 1.24 of the peak
  std::string message = Refusal(profile);
  EXPECT_THAT(message, HasSubstr("my.textproto: gemm.peak_fraction = 4 prices the best tile (256x128"));
  EXPECT_THAT(message, HasSubstr("a kernel cannot beat the GPU's datasheet peak"));

  profile = H100Profile();
  profile.mutable_gemm()->set_fp8_peak_fraction(3.5);
  EXPECT_THAT(Refusal(profile), HasSubstr("gemm.fp8_peak_fraction = 3.5 prices the best tile"));

  profile = H100Profile();
  profile.mutable_gemm()->set_tile_penalty(0);  // every tile at 100%: 2.6 of the peak
  EXPECT_THAT(Refusal(profile), HasSubstr("gemm.peak_fraction = 2.61567 prices the best tile"));

  profile = H100Profile();
  profile.mutable_hbm()->mutable_points(24)->set_bytes_per_s(4e12);  // H100: 3.35e12 B/s
  EXPECT_THAT(Refusal(profile), HasSubstr("my.textproto: hbm.points[24].bytes_per_s = 4e+12 is above the datasheet"));

  profile = H100Profile();
  ClassNamed(&profile, "norm")->set_bandwidth_fraction(1.5);
  message = Refusal(profile);
  EXPECT_THAT(message, HasSubstr("(norm).bandwidth_fraction = 1.5 times the HBM curve's highest point"));
  EXPECT_THAT(message, HasSubstr("a kernel cannot beat the GPU's datasheet peak"));

  profile = H100Profile();
  ClassNamed(&profile, "attention_prefill")->set_compute_fraction(1.2);
  EXPECT_THAT(Refusal(profile), HasSubstr("(attention_prefill).compute_fraction = 1.2 is above 1"));
}

// The fuzzer's seed profile (fuzz/corpus/textproto/) is one the checks pass, so that the fuzzer
// starts from inputs that reach the resource model.
TEST(CalibrationChecks, FuzzSeedProfileValidates) {
  const std::string path = testing::SourcePath("fuzz/corpus/textproto/calibration-h100-small.textproto");
  absl::StatusOr<Calibration> profile = ResolveCalibration(H100(), path);
  EXPECT_TRUE(profile.ok()) << profile.status();
}

}  // namespace
}  // namespace infergrid
