// The `kernels` and `calibrate` commands, and the calibrated prediction `roofline` prints.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cost_model_helpers.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// ---------------------------------------------------------------- commands

// Runs the binary with `input` on stdin, in a fresh folder per call (files the test wrote
// in TestDir() stay).
testing::CommandResult RunWithInput(const std::string& args, const std::string& input) {
  static int calls = 0;
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    ("cost_model_run." + std::to_string(getpid()) + "." + std::to_string(++calls));
  std::filesystem::create_directories(dir);
  const std::string in = testing::WriteFile(dir / "stdin", input);
  const std::string command = std::string(INFERGRID_BIN) + " " + args + " <" + in + " >" + (dir / "out").string() +
                              " 2>" + (dir / "err").string();
  const int status = std::system(command.c_str());
  testing::CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = testing::ReadAll(dir / "out");
  r.err = testing::ReadAll(dir / "err");
  return r;
}

TEST(KernelsCommand, OneLinePerKernelWithTheInputFieldsFirst) {
  const testing::CommandResult r =
      RunWithInput("kernels --gpu=h100-sxm",
                   "gemm 1 4096 4096 bf16\n\n# a comment\ngemm  4096 22016 4096 bf16\ngemm 64 4096 4096 fp8\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = absl::StrSplit(r.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u) << r.out;
  const std::vector<std::string> f = absl::StrSplit(lines[0], ' ');
  ASSERT_EQ(f.size(), 9u) << lines[0];
  EXPECT_EQ(absl::StrJoin(std::vector<std::string>(f.begin(), f.begin() + 5), " "), "gemm 1 4096 4096 bf16");
  double us = 0, hbm = 0, compute = 0;
  ASSERT_TRUE(absl::SimpleAtod(f[5], &us));
  EXPECT_EQ(f[6], "hbm");
  ASSERT_TRUE(absl::SimpleAtod(f[7], &hbm));
  ASSERT_TRUE(absl::SimpleAtod(f[8], &compute));
  // 33.6 MB of weights: above the HBM lower bound (33.6 MB / 3.35 TB/s = 10.02 us), near the
  // measured 16 us; 33.6 MFLOP / 989.4 TFLOP/s = 0.03 us.
  EXPECT_EQ(f[7], "10.02");
  EXPECT_EQ(f[8], "0.03");
  EXPECT_GT(us, hbm);
  EXPECT_LT(us, 20.0);
  EXPECT_THAT(lines[1], ::testing::StartsWith("gemm 4096 22016 4096 bf16 "));  // fields as given, rejoined
  EXPECT_THAT(lines[1], HasSubstr(" compute "));
  EXPECT_THAT(lines[2], ::testing::StartsWith("gemm 64 4096 4096 fp8 "));
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(KernelsCommand, BadInputNamesTheLineAndPrintsNothing) {
  testing::CommandResult r = RunWithInput("kernels --gpu=h100-sxm", "gemm 1 2 3 bf16\nconv 1 2 3\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("stdin:2: unknown kernel kind 'conv'"));
  r = RunWithInput("kernels --gpu=h100-sxm", "gemm -4 4096 4096 bf16\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("stdin:1: M must be a positive integer, got '-4'"));
  r = RunWithInput("kernels --gpu=h100-sxm", "gemm 4 4096 bf16\n");
  EXPECT_THAT(r.err, HasSubstr("stdin:1: expected 'gemm M N K DTYPE'"));
  r = RunWithInput("kernels --gpu=h100-sxm", "gemm 4 4096 4096 int3\n");
  EXPECT_THAT(r.err, HasSubstr("stdin:1:"));
  r = RunWithInput("kernels --gpu=a100-80gb", "gemm 4 4096 4096 fp8\n");
  EXPECT_THAT(r.err, HasSubstr("has no fp8 tensor cores"));
}

TEST(KernelsCommand, MalformedProfileNamesFileAndLine) {
  const std::filesystem::path dir = testing::TestDir();
  const std::string bad =
      testing::WriteFile(dir / "bad.textproto", "gpu: \"h100-sxm\"\ngemm {\n  peak_fraction: oops\n}\n");
  testing::CommandResult r = RunWithInput("kernels --gpu=h100-sxm --calibration=" + bad, "gemm 1 2 3 bf16\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("bad.textproto:3:"));
  const std::string incomplete = testing::WriteFile(dir / "incomplete.textproto", "gpu: \"h100-sxm\"\n");
  r = RunWithInput("kernels --gpu=h100-sxm --calibration=" + incomplete, "gemm 1 2 3 bf16\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("incomplete.textproto: calibration 'h100-sxm': gemm needs"));
  const std::string other = testing::WriteFile(dir / "other.textproto", "gpu: \"a100-80gb\"\n");
  r = RunWithInput("kernels --gpu=h100-sxm --calibration=" + other, "gemm 1 2 3 bf16\n");
  EXPECT_THAT(r.err, HasSubstr("profile is for GPU 'a100-80gb', not 'h100-sxm'"));
}

TEST(KernelsCommand, ExtrapolatedProfileSaysSoOnStderr) {
  const testing::CommandResult r = RunWithInput("kernels --gpu=h200-sxm", "gemm 1 4096 4096 bf16\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("extrapolated from h100-sxm"));
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);
}

TEST(CalibrateCommand, UsageErrors) {
  testing::CommandResult r = testing::RunInfergrid("calibrate");
  EXPECT_EQ(r.exit_code, 2);
  r = testing::RunInfergrid("calibrate frobnicate");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown action 'frobnicate'"));
  r = testing::RunInfergrid("calibrate fit --gpu=h100-sxm");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("needs --in"));
}

TEST(CalibrateCommand, ExtrapolateThenReport) {
  const std::filesystem::path dir = testing::TestDir();
  const std::string out = (dir / "a100.textproto").string();
  testing::CommandResult r = testing::RunInfergrid(
      "calibrate extrapolate --profile=" + testing::SourcePath("calibration/profiles/h100-sxm.textproto") +
      " --gpu=a100-80gb --out=" + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("extrapolated profile for a100-80gb"));
  Calibration p;
  ASSERT_TRUE(ResolveCalibration(Gpu("a100-80gb"), out).ok());
  const std::string data = testing::SourcePath("../shared/data/measurements/a100/meta-llama-3-8b_mlp_ops.csv");
  if (!std::filesystem::exists(data)) GTEST_SKIP() << "no shared data at " << data;
  const std::string rows = (dir / "rows.csv").string();
  r = testing::RunInfergrid("calibrate report --profile=" + out + " --measured=" + data + " --rows=" + rows);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("extrapolated from h100-sxm"));
  EXPECT_THAT(r.out, HasSubstr("worst cases"));
  // --rows: one line per op timing the report counted, each with its prediction and error.
  int timings = 0;
  ASSERT_EQ(std::sscanf(r.out.substr(r.out.find(" rows, ") + 7).c_str(), "%d op timings", &timings), 1) << r.out;
  std::ifstream in(rows);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "op,row,tp,tokens,m,n,k,tile_m,tile_n,split_k,waves,measured_us,predicted_us,error_pct");
  int lines = 0, gemms = 0;
  while (std::getline(in, line)) {
    ++lines;
    const std::vector<std::string> f = absl::StrSplit(line, ',');
    ASSERT_EQ(f.size(), 14u) << line;
    const double measured = std::stod(f[11]), predicted = std::stod(f[12]);
    // The file rounds to 0.001 us and 0.01 points.
    EXPECT_NEAR(std::stod(f[13]), 100 * (predicted / measured - 1), 0.006 + 0.06 / measured) << line;
    if (f[0] == "attn_pre_proj") {
      ++gemms;
      EXPECT_GT(std::stoi(f[7]), 0) << line;  // the tile the model chose
      EXPECT_EQ(f[3], f[4]) << line;  // GEMM M is the row's tokens
    }
  }
  EXPECT_EQ(lines, timings);
  EXPECT_GT(gemms, 0);
}

TEST(RooflineCommand, ShowsTheCalibratedPredictionNextToTheBounds) {
  testing::CommandResult r = testing::RunInfergrid("roofline --context=136 --batch=1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("calibrated prediction "));
  EXPECT_THAT(r.out, HasSubstr("h100-sxm (measured"));
  r = testing::RunInfergrid("roofline --gpu=l40s --format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"extrapolated\": true"));
}

}  // namespace
}  // namespace infergrid
