// What a run claims is what it did: the duration ends at the last response (so throughput is
// not overstated), compare honours a --seed of each side's own and replications draw noise of
// their own, and a flag either changes the run or is refused.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
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

const char kClaimRun[] = "--max-requests=40 --rate=8 --record-wall-time=false --quiet";

nlohmann::json ClaimJson(const testing::CommandResult& r) { return nlohmann::json::parse(r.out); }

// 1234567 as "1,234,567", as the tables print counts.
std::string Grouped(int64_t n) {
  std::string digits = absl::StrCat(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<size_t>(i), ",");
  return digits;
}

// The largest value of `column` in a CSV with a header row.
double ColumnMax(const std::string& csv, const std::string& column) {
  std::vector<std::string> lines = absl::StrSplit(csv, '\n', absl::SkipEmpty());
  const std::vector<std::string> header = absl::StrSplit(lines[0], ',');
  const size_t index = std::find(header.begin(), header.end(), column) - header.begin();
  double best = -1;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> fields = absl::StrSplit(lines[i], ',');
    double value = -1;
    if (index < fields.size() && absl::SimpleAtod(fields[index], &value)) best = std::max(best, value);
  }
  return best;
}

TEST(RunClaims, DurationEndsAtTheLastResponse) {
  const fs::path dir = testing::TestDir() / "run";
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("simulate ", kClaimRun, " --format=json --out=", dir.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json summary = ClaimJson(r);
  const double duration = summary["simulated_duration_s"].get<double>();
  // The front end delivers the last tokens after the engine's last step: the run ends there.
  const double last_response = ColumnMax(ReadAll(dir / "requests.csv"), "finish_s");
  const double last_step = ColumnMax(ReadAll(dir / "iterations.csv"), "end_s");
  ASSERT_GT(last_response, last_step);
  EXPECT_NEAR(duration, last_response, 1e-9 + 1e-9 * last_response);
  EXPECT_NEAR(summary["throughput"]["output_tokens_per_s"].get<double>(),
              summary["output_tokens"].get<double>() / duration, 1e-9);
}

TEST(RunClaims, CompareHonoursASeedOfEachSidesOwn) {
  const testing::CommandResult differ =
      RunInfergrid(absl::StrCat("compare ", kClaimRun, " --a=\"--seed=1\" --b=\"--seed=2\" --format=json"));
  ASSERT_EQ(differ.exit_code, 0) << differ.err;
  const nlohmann::json c = ClaimJson(differ);
  EXPECT_EQ(c["seeds"], nlohmann::json::array({"1"}));
  EXPECT_EQ(c["b_seeds"], nlohmann::json::array({"2"}));
  EXPECT_EQ(c["a_runs"][0]["config"]["seed"], "1");
  EXPECT_EQ(c["b_runs"][0]["config"]["seed"], "2");
  // Other workloads: other latencies (one seed for both printed 0.0% everywhere).
  EXPECT_NE(c["a_runs"][0]["ttft"]["mean"], c["b_runs"][0]["ttft"]["mean"]);
  const testing::CommandResult table =
      RunInfergrid(absl::StrCat("compare ", kClaimRun, " --a=\"--seed=1\" --b=\"--seed=2\""));
  EXPECT_THAT(table.out, HasSubstr("(seeds: A 1..1, B 2..2; not common random numbers)"));
  // One seed for both sides: common random numbers, no difference between equal configurations.
  const testing::CommandResult same =
      RunInfergrid(absl::StrCat("compare ", kClaimRun, " --a=\"--seed=3\" --b=\"--seed=3\" --format=json"));
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(ClaimJson(same)["b_seeds"], nlohmann::json::array());
  EXPECT_EQ(ClaimJson(same)["a_runs"][0]["ttft"], ClaimJson(same)["b_runs"][0]["ttft"]);
}

TEST(RunClaims, CompareTableInSimulatesUnitsNamingEachSide) {
  // Latencies in ms as simulate prints them (comparison.json keeps seconds), and each side's
  // model and GPU in the header.
  const std::string args = absl::StrCat("compare ", kClaimRun, " --a=\"--gpu=h100-sxm\" --b=\"--gpu=h200-sxm\"");
  const testing::CommandResult json = RunInfergrid(args + " --format=json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const testing::CommandResult table = RunInfergrid(args);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("\n  A: llama-3-8b on h100-sxm, 1 replica x TP 1, "));
  EXPECT_THAT(table.out, HasSubstr("\n  B: llama-3-8b on h200-sxm, 1 replica x TP 1, "));
  EXPECT_THAT(table.out, HasSubstr("latencies in ms"));
  const nlohmann::json d = ClaimJson(json)["differences"][0];
  ASSERT_EQ(d["metric"], "ttft.mean");
  std::vector<std::string> row;
  for (absl::string_view line : absl::StrSplit(table.out, '\n')) {
    if (absl::StartsWith(line, "ttft.mean ")) row = absl::StrSplit(line, ' ', absl::SkipEmpty());
  }
  ASSERT_GE(row.size(), 5u) << table.out;
  EXPECT_EQ(row[1], "ms");
  double a_ms = 0;
  ASSERT_TRUE(absl::SimpleAtod(row[2], &a_ms)) << row[2];
  EXPECT_NEAR(a_ms, d["a_mean"].get<double>() * 1e3, 0.006);
}

TEST(RunClaims, ReplicationsDrawNoiseOfTheirOwn) {
  // A trace: the workload is the same in every replication, so only the noise can differ.
  const fs::path trace = testing::TestDir() / "t.csv";
  std::string rows = "arrived_at,num_prefill_tokens,num_decode_tokens\n";
  for (int i = 0; i < 30; ++i) absl::StrAppend(&rows, 0.05 * i, ",", 200 + 10 * i, ",", 40 + i, "\n");
  std::ofstream(trace) << rows;
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("compare --trace=", trace.string(),
                                " --noise --replications=2 --record-wall-time=false --quiet "
                                "--a=\"--max-num-seqs=64\" --b=\"--max-num-seqs=32\" --format=json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json c = ClaimJson(r);
  EXPECT_EQ(c["a_runs"][0]["config"]["seed"], "0");
  EXPECT_EQ(c["a_runs"][1]["config"]["seed"], "1");
  EXPECT_NE(c["a_runs"][0]["e2e"]["mean"], c["a_runs"][1]["e2e"]["mean"]);
}

TEST(RunClaims, ANoiseSizeTurnsTheNoiseOn) {
  const nlohmann::json plain = ClaimJson(RunInfergrid(absl::StrCat("simulate ", kClaimRun, " --format=json")));
  const testing::CommandResult sized =
      RunInfergrid(absl::StrCat("simulate ", kClaimRun, " --iteration-noise=0.2 --format=json"));
  ASSERT_EQ(sized.exit_code, 0) << sized.err;
  EXPECT_NE(plain["e2e"]["mean"], ClaimJson(sized)["e2e"]["mean"]);
  // The same as asking for the noise and its size.
  const testing::CommandResult both =
      RunInfergrid(absl::StrCat("simulate ", kClaimRun, " --noise --iteration-noise=0.2 --format=json"));
  EXPECT_EQ(ClaimJson(both)["e2e"], ClaimJson(sized)["e2e"]);
  testing::ExpectOneLineError({absl::StrCat("simulate ", kClaimRun, " --noise=false --iteration-noise=0.2"), 2,
                               "--iteration-noise with --noise=false"});
}

TEST(RunClaims, AFrontEndFileWithoutAProcessIsRefused) {
  const fs::path empty = testing::TestDir() / "front_end.textproto";
  std::ofstream(empty) << "# nothing\n";
  testing::ExpectOneLineError({absl::StrCat("simulate ", kClaimRun, " --front-end-file=", empty.string()), 2,
                               absl::StrCat("--front-end-file=", empty.string(), ": no process (an empty front end)")});
}

// A flag about a file the run does not write would change nothing: refused.
TEST(RunClaims, FlagsForFilesNotWrittenAreRefused) {
  const std::string out = (testing::TestDir() / "never").string();
  const std::vector<testing::CliErrorCase> cases = {
      {absl::StrCat("simulate ", kClaimRun, " --timeline-max-iterations=10"), 2,
       "--timeline-max-iterations needs --out=DIR"},
      {absl::StrCat("simulate ", kClaimRun, " --out=", out, " --outputs=summary --compress=zstd"), 2,
       "--compress with --outputs=summary: the file it applies to is not written"},
      {absl::StrCat("simulate ", kClaimRun, " --out=", out, " --outputs=summary,requests --timeline-format=json"), 2,
       "--timeline-format with --outputs=summary,requests: the file it applies to is not written"},
      {absl::StrCat("simulate ", kClaimRun, " --out=", out, " --outputs=iterations --timeline-max-iterations=5"), 2,
       "--timeline-max-iterations with --outputs=iterations: the file it applies to is not written"},
  };
  for (const testing::CliErrorCase& c : cases) testing::ExpectOneLineError(c);
  EXPECT_FALSE(fs::exists(out));
  // Where the file is written, the flag is taken.
  const testing::CommandResult packed =
      RunInfergrid(absl::StrCat("simulate ", kClaimRun, " --out=", out, " --outputs=summary,requests --compress=zstd"));
  ASSERT_EQ(packed.exit_code, 0) << packed.err;
  EXPECT_TRUE(fs::exists(fs::path(out) / "requests.csv.zst"));
}

// One KV capacity per deployment: memory --engine and simulate print the same tokens, by one
// true equation, for models whose layers fall in several block groups (sliding windows).
TEST(RunClaims, OneKvCapacityPerDeploymentAcrossCommands) {
  for (const char* model : {"gemma-3-27b", "gpt-oss-20b", "llama-3.1-8b"}) {
    const std::string deployment = absl::StrCat("--engine=vllm-v1@0.19 --model=", model, " --gpu=h200");
    const testing::CommandResult memory = RunInfergrid(absl::StrCat("memory ", deployment, " --format=json"));
    ASSERT_EQ(memory.exit_code, 0) << memory.err;
    const nlohmann::json kv = ClaimJson(memory)["kv_cache"];
    const testing::CommandResult run =
        RunInfergrid(absl::StrCat("simulate ", deployment, " ", kClaimRun, " --format=json"));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const nlohmann::json plan = ClaimJson(run)["memory"];
    const int64_t blocks = kv["blocks"].get<int64_t>();
    const int64_t groups = kv["groups"].get<int64_t>();
    const int64_t tokens = blocks / groups * kv["block_size"].get<int64_t>();
    EXPECT_EQ(kv["tokens"].get<int64_t>(), tokens) << model;
    EXPECT_EQ(plan["kv_tokens"].get<int64_t>(), tokens) << model;
    EXPECT_EQ(plan["num_gpu_blocks"].get<int64_t>(), blocks) << model;
    EXPECT_EQ(plan["kv_block_groups"].get<int64_t>(), groups) << model;
    EXPECT_EQ(groups > 1, std::string(model) != "llama-3.1-8b") << model;
    // The equations printed hold.
    const std::string equation = absl::StrCat(groups > 1 ? absl::StrCat(" / ", groups, " groups") : "", " x 16 tokens");
    const testing::CommandResult memory_text = RunInfergrid(absl::StrCat("memory ", deployment));
    EXPECT_THAT(memory_text.out, HasSubstr(absl::StrCat("KV capacity: ", Grouped(tokens), " tokens per replica = ",
                                                        Grouped(blocks), " blocks", equation)));
    const testing::CommandResult run_text = RunInfergrid(absl::StrCat("simulate ", deployment, " ", kClaimRun));
    EXPECT_THAT(run_text.out, HasSubstr(absl::StrCat("KV cache     ", Grouped(blocks), " blocks", equation, " = ",
                                                     Grouped(tokens), " tokens per replica")));
  }
}

}  // namespace
}  // namespace infergrid
