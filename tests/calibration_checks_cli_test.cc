// A profile that fails calibration/calibration_checks.h given by --calibration=FILE stops
// `simulate`, `kernels`, `roofline` and `calibrate extrapolate` with one line and no output files.
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// The bundled h100-sxm profile's text with one line changed.
std::string ProfileFile(const std::filesystem::path& dir, const std::string& from, const std::string& to) {
  const std::string text = testing::ReadAll(testing::SourcePath("calibration/profiles/h100-sxm.textproto"));
  EXPECT_THAT(text, HasSubstr(from));
  return testing::WriteFile(dir / "myprofile.textproto", absl::StrReplaceAll(text, {{from, to}}));
}

TEST(CalibrationChecksCli, BadProfileByFlagStopsWithOneLineAndNoOutput) {
  const std::filesystem::path dir = testing::TestDir();
  const std::filesystem::path out = dir / "out";
  const std::string fast = ProfileFile(dir, "peak_fraction: 2.6156686714542974", "peak_fraction: 4");
  testing::ExpectOneLineError(
      {absl::StrCat("simulate --quiet --max-requests=3 --calibration=", fast, " --out=", out.string()), 1,
       "myprofile.textproto: gemm.peak_fraction = 4 prices the best tile"});
  EXPECT_FALSE(std::filesystem::exists(out));
  testing::ExpectOneLineError({absl::StrCat("kernels --gpu=h100-sxm --calibration=", fast), 1,
                               "a kernel cannot beat the GPU's datasheet peak"});

  const std::string slow = ProfileFile(dir, "bandwidth_fraction: 0.36566048805008572", "bandwidth_fraction: 1e-300");
  testing::ExpectOneLineError(
      {absl::StrCat("simulate --quiet --max-requests=3 --calibration=", slow, " --out=", out.string()), 1,
       "myprofile.textproto: kernel_classes[3] (norm).bandwidth_fraction = 1e-300 is below"});
  EXPECT_FALSE(std::filesystem::exists(out));

  const std::string endless = ProfileFile(dir, "eager_s: 1e-05", "eager_s: inf");
  testing::ExpectOneLineError(
      {absl::StrCat("roofline --calibration=", endless), 1, "myprofile.textproto: launch.eager_s is inf"});
  testing::ExpectOneLineError({absl::StrCat("calibrate extrapolate --profile=", endless,
                                            " --gpu=h200-sxm --out=", (dir / "h200.textproto").string()),
                               1, "myprofile.textproto: launch.eager_s is inf"});
  EXPECT_FALSE(std::filesystem::exists(dir / "h200.textproto"));
}

}  // namespace
}  // namespace infergrid
