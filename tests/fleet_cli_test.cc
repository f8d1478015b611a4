// `infergrid simulate` over several replicas as users run it: summary.json's per-replica figures
// (adding up to the fleet's, zero for a replica without requests, absent with one replica), the
// table's spread across replicas, fleet.csv (its arrivals adding up to the run's and following a
// --rate-schedule step) and the refusals of --fleet-window.
#include <algorithm>
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
using ::testing::Not;
using testing::RunInfergrid;

const char kFleet[] = "simulate --engine=vllm-v1@0.19 --record-wall-time=false --quiet";

TEST(FleetCli, PerReplicaFiguresAddUpToTheFleets) {
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat(kFleet, " --num-replicas=4 --max-requests=200 --rate=20 --format=json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& replicas = j["fleet"]["replicas"];
  ASSERT_EQ(replicas.size(), 4u);
  int completed = 0, requests = 0, iterations = 0;
  double input = 0, output = 0, busy = 0, peak_kv = 0;
  for (size_t i = 0; i < replicas.size(); ++i) {
    const nlohmann::json& rep = replicas[i];
    EXPECT_EQ(rep["replica"].get<int>(), static_cast<int>(i));
    EXPECT_EQ(rep["requests"].get<int>(), j["requests_per_replica"][i].get<int>());
    EXPECT_GT(rep["completed"].get<int>(), 0);
    completed += rep["completed"].get<int>();
    requests += rep["requests"].get<int>();
    iterations += rep["iterations"].get<int>();
    input += rep["input_tokens"].get<double>();
    output += rep["output_tokens"].get<double>();
    busy += rep["busy_s"].get<double>();
    peak_kv = std::max(peak_kv, rep["peak_kv_fraction"].get<double>());
    const double duration = j["simulated_duration_s"].get<double>();
    EXPECT_DOUBLE_EQ(rep["utilization"].get<double>(), rep["busy_s"].get<double>() / duration);
    EXPECT_DOUBLE_EQ(rep["output_tokens_per_s"].get<double>(), rep["output_tokens"].get<double>() / duration);
    EXPECT_GT(rep["ttft_p99_s"].get<double>(), 0);
    EXPECT_GE(rep["ttft_p99_s"].get<double>(), rep["ttft_mean_s"].get<double>() * 0.5);
    EXPECT_GT(rep["e2e_p99_s"].get<double>(), rep["ttft_p99_s"].get<double>());
    EXPECT_GT(rep["mean_batch_size"].get<double>(), 0);
  }
  EXPECT_EQ(completed, j["completed"].get<int>());
  EXPECT_EQ(requests, j["requests"].get<int>());
  EXPECT_EQ(iterations, j["iterations"]["iterations"].get<int>());
  EXPECT_DOUBLE_EQ(input, j["input_tokens"].get<double>());
  EXPECT_DOUBLE_EQ(output, j["output_tokens"].get<double>());
  EXPECT_NEAR(busy, j["iterations"]["busy_s"].get<double>(), 1e-9 * busy);
  EXPECT_DOUBLE_EQ(peak_kv, j["kv"]["peak_fraction"].get<double>());
}

TEST(FleetCli, AReplicaWithoutRequestsShowsZero) {
  // Round-robin sends two requests to replicas 0 and 1; 2 and 3 get none.
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat(kFleet, " --num-replicas=4 --max-requests=2 --format=json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& replicas = j["fleet"]["replicas"];
  ASSERT_EQ(replicas.size(), 4u);
  EXPECT_EQ(replicas[0]["completed"].get<int>(), 1);
  for (size_t i : {size_t{2}, size_t{3}}) {
    const nlohmann::json& idle = replicas[i];
    EXPECT_EQ(idle["replica"].get<int>(), static_cast<int>(i));
    for (const char* field : {"requests", "completed", "iterations"}) EXPECT_EQ(idle[field].get<int>(), 0) << field;
    for (const char* field : {"output_tokens", "busy_s", "utilization", "mean_batch_size", "peak_kv_blocks",
                              "ttft_mean_s", "ttft_p99_s", "e2e_mean_s", "e2e_p99_s"}) {
      EXPECT_EQ(idle[field].get<double>(), 0) << field;
    }
  }
}

TEST(FleetCli, OneReplicaHasNoPerReplicaSection) {
  const testing::CommandResult json = RunInfergrid(absl::StrCat(kFleet, " --max-requests=20 --format=json"));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_FALSE(nlohmann::json::parse(json.out).contains("fleet"));
  const testing::CommandResult table = RunInfergrid(absl::StrCat(kFleet, " --max-requests=20"));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, Not(HasSubstr("\nper replica")));
}

TEST(FleetCli, TableShowsTheSpreadAcrossReplicasInAFewLines) {
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat(kFleet, " --num-replicas=16 --max-requests=160 --rate=40"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\nper replica (16)"));
  for (const char* row :
       {"completed", "output tok/s", "engine busy", "mean batch", "KV peak", "TTFT p99 (ms)", "E2E p99 (ms)"}) {
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("\n", row, " "))) << row;
  }
  // As many lines at 16 replicas as at 2: one per figure.
  const testing::CommandResult two =
      RunInfergrid(absl::StrCat(kFleet, " --num-replicas=2 --max-requests=160 --rate=40"));
  ASSERT_EQ(two.exit_code, 0) << two.err;
  const auto lines = [](const std::string& text) { return std::count(text.begin(), text.end(), '\n'); };
  EXPECT_EQ(lines(r.out), lines(two.out));
}

// fleet.csv's rows as numbers by column name (an empty field as -1).
std::vector<std::vector<double>> ReadRows(const fs::path& path, std::vector<std::string>* header) {
  const std::vector<std::string> lines = absl::StrSplit(testing::ReadAll(path), '\n', absl::SkipEmpty());
  *header = absl::StrSplit(lines.at(0), ',');
  std::vector<std::vector<double>> rows;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<double> row;
    for (absl::string_view field : absl::StrSplit(lines[i], ','))
      row.push_back(field.empty() ? -1 : std::stod(std::string(field)));
    rows.push_back(row);
  }
  return rows;
}

TEST(FleetCli, FleetCsvArrivalsAddUpAndFollowARateScheduleStep) {
  const fs::path out = testing::TestDir() / "fleet";
  // Two minutes: 2 req/s, then 20 req/s; one row per minute.
  const testing::CommandResult r = RunInfergrid(
      absl::StrCat(kFleet, " --num-replicas=2 --rate-schedule=60:2,60:20 --max-requests=700 --seed=3 --format=json",
                   " --outputs=summary,fleet --fleet-window=60 --out=", out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  std::vector<std::string> header;
  const std::vector<std::vector<double>> rows = ReadRows(out / "fleet.csv", &header);
  ASSERT_EQ(header,
            (std::vector<std::string>{"start_s", "end_s", "arrivals", "completions", "in_flight", "busy_replicas",
                                      "utilization", "kv_fraction_mean", "kv_fraction_max", "ttft_p99_s"}));
  const double duration = j["simulated_duration_s"].get<double>();
  ASSERT_EQ(rows.size(), static_cast<size_t>(std::ceil(duration / 60)));
  double arrivals = 0, completions = 0, busy_s = 0;
  for (const std::vector<double>& row : rows) {
    arrivals += row[2];
    completions += row[3];
    busy_s += row[5] * (row[1] - row[0]);
    EXPECT_NEAR(row[6], row[5] / 2, 1e-6);
    EXPECT_LE(row[7], row[8] + 1e-6);
  }
  EXPECT_EQ(arrivals, j["requests"].get<int>());
  EXPECT_EQ(completions, j["completed"].get<int>());
  EXPECT_NEAR(busy_s, j["iterations"]["busy_s"].get<double>(), 1e-3);
  EXPECT_NEAR(rows.back()[1], duration, 1e-9);  // the last window ends with the run
  // About 120 arrivals in the first minute, about 1,200 asked of the second (cut at 700 requests).
  EXPECT_GT(rows[0][2], 90);
  EXPECT_LT(rows[0][2], 150);
  EXPECT_GT(rows[1][2], 4 * rows[0][2]);
  EXPECT_GT(rows[1][4], rows[0][4]);  // more in flight after the step
  EXPECT_GT(rows[0][9], 0);
}

TEST(FleetCli, FleetCsvIsOptInAndRemovedByARunWithoutIt) {
  const fs::path out = testing::TestDir() / "optin";
  const std::string run = absl::StrCat(kFleet, " --num-replicas=2 --max-requests=20 --out=", out.string());
  ASSERT_EQ(RunInfergrid(run).exit_code, 0);
  EXPECT_FALSE(fs::exists(out / "fleet.csv"));
  ASSERT_EQ(RunInfergrid(run + " --outputs=summary,fleet").exit_code, 0);
  EXPECT_TRUE(fs::exists(out / "fleet.csv"));
  ASSERT_EQ(RunInfergrid(run).exit_code, 0);
  EXPECT_FALSE(fs::exists(out / "fleet.csv"));  // the folder holds one run's files
}

TEST(FleetCli, BadFleetWindowIsRefusedByNameAndWritesNothing) {
  const fs::path out = testing::TestDir() / "bad";
  const std::vector<testing::CliErrorCase> cases = {
      {absl::StrCat("--out=", out.string(), " --outputs=summary,fleet --fleet-window=0"), 2,
       "--fleet-window=0 is out of range (0.1..1e+06)"},
      {absl::StrCat("--out=", out.string(), " --outputs=summary,fleet --fleet-window=-5"), 2, "--fleet-window"},
      {absl::StrCat("--out=", out.string(), " --outputs=summary,fleet --fleet-window=2e6"), 2, "--fleet-window"},
      {absl::StrCat("--out=", out.string(), " --outputs=summary,fleet --fleet-window=abc"), 2, "--fleet-window"},
      {absl::StrCat("--out=", out.string(), " --fleet-window=30"), 2,
       "--fleet-window with --outputs=summary,requests,iterations,timeline: the file it applies to is not written"},
      {"--fleet-window=30", 2, "--fleet-window needs --out=DIR"},
      {absl::StrCat("--out=", out.string(), " --outputs=summary,fleet,fleet"), 2, "'fleet' is listed twice"},
  };
  for (const testing::CliErrorCase& c : cases) {
    testing::ExpectOneLineError(
        {absl::StrCat(kFleet, " --num-replicas=2 --max-requests=5 ", c.args), c.exit_code, c.message});
    EXPECT_FALSE(fs::exists(out)) << c.args << " left " << out;
  }
}

}  // namespace
}  // namespace infergrid
