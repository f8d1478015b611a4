// `simulate`'s simple workloads as users give them: lengths from flags (fixed, vLLM's range
// ratio, a spec, a length table resampled), arrival processes (Poisson, gamma, constant, a rate
// that follows a schedule), a length table given as --trace taking the arrival process and
// naming it, and the flags that would change nothing refused (--cv without gamma, lengths beside
// a trace), and a request the engine refuses named with its reason.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ReadAll;
using testing::RunInfergrid;

// The requests.csv rows of a run (header dropped), split into fields.
std::vector<std::vector<std::string>> RequestRows(const fs::path& dir) {
  std::vector<std::vector<std::string>> rows;
  const std::vector<std::string> lines = absl::StrSplit(ReadAll(dir / "requests.csv"), '\n', absl::SkipEmpty());
  for (size_t i = 1; i < lines.size(); ++i) rows.push_back(absl::StrSplit(lines[i], ','));
  return rows;
}

TEST(SimulateWorkload, RejectedRequestsSayWhy) {
  // A prompt longer than --max-model-len is refused, and the reason is in the table,
  // summary.json's `rejections` and requests.csv's last column (empty for the served ones).
  const fs::path dir = testing::TestDir() / "rejected";
  const std::string trace = testing::WriteFile(
      testing::TestDir() / "too_long.csv", "arrival_s,input_tokens,output_tokens\n0,100,10\n0.1,3000,10\n0.2,200,10\n");
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("simulate --max-model-len=2048 --trace=", trace, " --out=", dir.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("completed (1 rejected, 0 truncated)"));
  EXPECT_THAT(r.out, HasSubstr("\nrejected     1 prompt longer than max_model_len (2,048 tokens)\n"));
  const nlohmann::json j = nlohmann::json::parse(ReadAll(dir / "summary.json"));
  EXPECT_EQ(j["rejected"], 1);
  EXPECT_EQ(j["rejections"], nlohmann::json::parse(R"([{"reason": "prompt_too_long", "requests": 1}])"));
  const std::vector<std::string> lines = absl::StrSplit(ReadAll(dir / "requests.csv"), '\n', absl::SkipEmpty());
  EXPECT_THAT(lines[0], ::testing::EndsWith(",e2e_s,reject_reason"));
  const std::vector<std::vector<std::string>> rows = RequestRows(dir);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][2], "rejected");
  EXPECT_EQ(rows[1].back(), "prompt_too_long");
  EXPECT_EQ(rows[0].back(), "");
  EXPECT_EQ(rows[2][2], "finished");
  EXPECT_EQ(rows[2].back(), "");
  // Without a rejection the table has no `rejected` line and the list is empty.
  const testing::CommandResult none = RunInfergrid("simulate --max-requests=5 --format=json --quiet");
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(nlohmann::json::parse(none.out)["rejections"], nlohmann::json::array());
}

TEST(SimulateWorkload, TwoThousandInThreeHundredOutAtTwentyPerSecond) {
  const testing::CommandResult table = RunInfergrid("simulate --input-len=2000 --output-len=300 --rate=20");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(
      table.out,
      HasSubstr("workload     input fixed:2000, output fixed:300 tokens, poisson arrivals at 20.00 req/s, seed 0"));
  const testing::CommandResult r =
      RunInfergrid("simulate --input-len=2000 --output-len=300 --rate=20 --max-requests=50 --format=json --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["completed"], 50);
  EXPECT_EQ(j["input_tokens"].get<double>(), 50 * 2000);
  EXPECT_EQ(j["output_tokens"].get<double>(), 50 * 300);
  EXPECT_EQ(j["config"]["workload"], "lengths");
  EXPECT_EQ(j["config"]["input_lengths"], "fixed:2000");
  EXPECT_EQ(j["config"]["output_lengths"], "fixed:300");
  EXPECT_EQ(j["config"]["arrival"], "poisson");
}

TEST(SimulateWorkload, RangeRatioDrawsVllmsUniformBounds) {
  const fs::path dir = testing::TestDir() / "ratio";
  const testing::CommandResult r = RunInfergrid(absl::StrCat(
      "simulate --quiet --input-len=1000 --output-len=100 --range-ratio=0.25 --max-requests=400 --out=", dir.string(),
      " --outputs=requests"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int input_min = 1 << 30, input_max = 0, output_min = 1 << 30, output_max = 0;
  double input_sum = 0;
  for (const std::vector<std::string>& f : RequestRows(dir)) {
    const int input = std::stoi(f[7]), output = std::stoi(f[8]);
    input_min = std::min(input_min, input), input_max = std::max(input_max, input);
    output_min = std::min(output_min, output), output_max = std::max(output_max, output);
    input_sum += input;
  }
  // floor(L(1-r)) .. ceil(L(1+r)), each end reached in 400 draws.
  EXPECT_GE(input_min, 750);
  EXPECT_LE(input_max, 1250);
  EXPECT_LT(input_min, 760);
  EXPECT_GT(input_max, 1240);
  EXPECT_GE(output_min, 75);
  EXPECT_LE(output_max, 125);
  EXPECT_NEAR(input_sum / 400, 1000, 25);
}

TEST(SimulateWorkload, ConstantArrivalsAreEvenlySpacedAndCvImpliesGamma) {
  const fs::path dir = testing::TestDir() / "constant";
  const testing::CommandResult r = RunInfergrid(absl::StrCat(
      "simulate --quiet --input-len=100 --output-len=10 --arrival=constant --rate=4 --max-requests=9 --out=",
      dir.string(), " --outputs=requests"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::vector<std::string>> rows = RequestRows(dir);
  ASSERT_EQ(rows.size(), 9u);
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_NEAR(std::stod(rows[i][3]), 0.25 * static_cast<double>(i), 1e-9);
  // --cv other than 1 without --arrival is gamma: the run differs from Poisson's and says so.
  const std::string base = "simulate --quiet --format=json --input-len=100 --output-len=10 --max-requests=200 --rate=8";
  const testing::CommandResult gamma = RunInfergrid(absl::StrCat(base, " --cv=4"));
  ASSERT_EQ(gamma.exit_code, 0) << gamma.err;
  const nlohmann::json g = nlohmann::json::parse(gamma.out);
  EXPECT_EQ(g["config"]["arrival"], "gamma");
  EXPECT_EQ(g["config"]["cv"], 4);
  const testing::CommandResult explicit_gamma = RunInfergrid(absl::StrCat(base, " --cv=4 --arrival=gamma"));
  ASSERT_EQ(explicit_gamma.exit_code, 0) << explicit_gamma.err;
  const nlohmann::json e = nlohmann::json::parse(explicit_gamma.out);
  EXPECT_EQ(e["ttft"], g["ttft"]);
  EXPECT_EQ(e["simulated_duration_s"], g["simulated_duration_s"]);
  const testing::CommandResult poisson = RunInfergrid(base);
  ASSERT_EQ(poisson.exit_code, 0) << poisson.err;
  EXPECT_NE(nlohmann::json::parse(poisson.out)["simulated_duration_s"], g["simulated_duration_s"]);
}

TEST(SimulateWorkload, RateScheduleArrivalsFollowTheCurve) {
  // 100 s at 2 req/s, 100 s at 8, repeated: over the first two cycles (400 s) about 400 arrivals
  // in the slow segments and 1,600 in the fast ones (Poisson counts: 4 standard deviations).
  const auto counts = [](const fs::path& dir, double cycle_s) {
    int64_t slow = 0, fast = 0;
    double last = 0;
    for (const std::vector<std::string>& row : RequestRows(dir)) {
      const double t = std::stod(row[3]);
      last = std::max(last, t);
      if (t >= 2 * cycle_s) continue;
      (std::fmod(t, cycle_s) < cycle_s / 2 ? slow : fast) += 1;
    }
    EXPECT_GT(last, 2 * cycle_s) << "the run must cover two whole cycles";
    return std::pair{slow, fast};
  };
  const std::string base =
      "simulate --quiet --input-len=20 --output-len=2 --max-requests=2400 --outputs=requests --out=";
  const fs::path as_written = testing::TestDir() / "schedule";
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat(base, as_written.string(), " --rate-schedule=100:2,100:8"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto [slow, fast] = counts(as_written, 200);
  EXPECT_NEAR(slow, 400, 80);
  EXPECT_NEAR(fast, 1600, 160);
  // With --rate the schedule is the shape: a mean of 10 req/s makes 1:4 into 4 and 16 req/s.
  const fs::path scaled = testing::TestDir() / "schedule_scaled";
  const testing::CommandResult r2 =
      RunInfergrid(absl::StrCat(base, scaled.string(), " --rate-schedule=50:1,50:4 --rate=10"));
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  const auto [slow2, fast2] = counts(scaled, 100);  // 50 s at 4 req/s, 50 s at 16
  EXPECT_NEAR(slow2, 400, 80);
  EXPECT_NEAR(fast2, 1600, 160);
  const testing::CommandResult json =
      RunInfergrid("simulate --quiet --format=json --max-requests=50 --rate-schedule=10:1,10:3");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["config"]["arrival"], "piecewise");
  EXPECT_EQ(j["config"]["rate"], 2);  // the schedule's mean
  EXPECT_THAT(j["config"]["command_line"].get<std::string>(), HasSubstr("--rate-schedule=10:1,10:3"));
  // The schedule is the arrival process: another process beside it, or a trace with its own
  // times, is refused, as is a schedule that does not parse.
  const std::string trace = testing::WriteFile(testing::TestDir() / "timed.csv",
                                               "arrival_s,input_tokens,output_tokens\n0,100,10\n1,100,10\n");
  for (const auto& [flags, error] :
       {std::pair{"--rate-schedule=10:1 --arrival=gamma", "drop --arrival and --cv"},
        std::pair{"--rate-schedule=10:1 --cv=2", "drop --arrival and --cv"},
        std::pair{"--rate-schedule=10:x", "--rate-schedule=10:x: rate schedule: expected DURATION_S:RELATIVE_RATE"},
        std::pair{"--rate-schedule=10:0", "every rate is 0"}}) {
    const testing::CommandResult bad = RunInfergrid(absl::StrCat("simulate --quiet ", flags));
    EXPECT_EQ(bad.exit_code, 2) << flags;
    EXPECT_THAT(bad.err, HasSubstr(error)) << flags;
  }
  const testing::CommandResult timed =
      RunInfergrid(absl::StrCat("simulate --quiet --rate-schedule=10:1 --trace=", trace));
  EXPECT_EQ(timed.exit_code, 2);
  EXPECT_THAT(timed.err, HasSubstr("this --trace has its own times"));
}

TEST(SimulateWorkload, LengthTableAsTraceTakesTheArrivalProcessAndNamesIt) {
  const fs::path test_dir = testing::TestDir();
  const std::string table =
      testing::WriteFile(test_dir / "lengths.csv", "num_prefill_tokens,num_decode_tokens\n100,20\n2000,300\n500,50\n");
  const fs::path dir = test_dir / "table";
  const testing::CommandResult r = RunInfergrid(
      absl::StrCat("simulate --trace=", table, " --rate=2 --out=", dir.string(), " --outputs=summary,requests"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("workload     trace ", table,
                                            " (lengths only, no times): poisson arrivals at 2.00 req/s, seed 0")));
  EXPECT_THAT(r.out, HasSubstr("note: trace: no timestamps: its rows arrive as a poisson process at 2 req/s, seed 0"));
  const std::vector<std::vector<std::string>> rows = RequestRows(dir);
  ASSERT_EQ(rows.size(), 3u);
  // The rows in order, the first at 0, the others at Poisson gaps (not the constant 0.5 s spacing).
  EXPECT_EQ(rows[1][7], "2000");
  EXPECT_EQ(std::stod(rows[0][3]), 0);
  EXPECT_GT(std::stod(rows[2][3]), std::stod(rows[1][3]));
  EXPECT_NE(std::stod(rows[1][3]), 0.5);
  // --lengths resamples the same table's pairs, here at 1000 requests.
  const testing::CommandResult resampled =
      RunInfergrid(absl::StrCat("simulate --quiet --format=json --lengths=", table, " --max-requests=1000 --rate=50"));
  ASSERT_EQ(resampled.exit_code, 0) << resampled.err;
  const nlohmann::json j = nlohmann::json::parse(resampled.out);
  EXPECT_EQ(j["config"]["lengths"], table);
  EXPECT_NEAR(j["input_tokens"].get<double>() / 1000, (100 + 2000 + 500) / 3.0, 120);
  // trace stats advises the flags that exist.
  const testing::CommandResult stats = RunInfergrid(absl::StrCat("trace stats --trace=", table));
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_THAT(stats.out + stats.err, HasSubstr("simulate --lengths=FILE resamples them"));
}

TEST(SimulateWorkload, FlagsThatWouldChangeNothingAreRefused) {
  const std::string trace =
      testing::WriteFile(testing::TestDir() / "timed.csv", "arrival_s,input_tokens,output_tokens\n0,10,10\n1,10,10\n");
  struct Case {
    std::string args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"--cv=2 --arrival=poisson", "--cv=2 is the gamma process's burstiness; --arrival=poisson has none"},
           {"--cv=3 --arrival=constant", "--arrival=constant has none"},
           {absl::StrCat("--trace=", trace, " --cv=2"), "this --trace has its own times"},
           {absl::StrCat("--trace=", trace, " --arrival=constant"), "this --trace has its own times"},
           {absl::StrCat("--trace=", trace, " --input-len=10"), "--trace brings its own lengths"},
           {"--range-ratio=0.5", "--range-ratio needs --input-len or --output-len"},
           {"--input-len=100 --range-ratio=1", "--range-ratio"},
           {"--input-len=lognormal:6:1 --range-ratio=0.1", "--range-ratio applies to an integer --input-len"},
           {"--input-len=0", "--input-len=0: a length must be in [1, 16777216] tokens"},
           {"--output-len=gauss:3", "--output-len=gauss:3"},
           {"--workload=sharegpt --input-len=10 --output-len=10", "--workload=sharegpt gives lengths that"},
           {"--arrival=bursty", "--arrival: expected poisson, gamma or constant, got 'bursty'"},
       }) {
    const testing::CommandResult r = RunInfergrid(absl::StrCat("simulate --max-requests=5 ", c.args));
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_THAT(r.err, HasSubstr(c.message)) << c.args;
    EXPECT_EQ(r.out, "") << c.args;
  }
}

TEST(SimulateWorkload, OneLengthFlagReplacesOneOfThePresetsMarginals) {
  const testing::CommandResult r = RunInfergrid(
      "simulate --quiet --format=json --workload=azure-code --output-len=lognormal:3:0.5 --max-requests=300");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["config"]["workload"], "azure-code");
  EXPECT_EQ(j["config"]["output_lengths"], "lognormal:3:0.5");
  // exp(3 + 0.5^2 / 2) = 22.8 tokens on average.
  EXPECT_NEAR(j["output_tokens"].get<double>() / 300, std::exp(3 + 0.125), 2.5);
}

}  // namespace
}  // namespace infergrid
