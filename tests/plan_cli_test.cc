// `infergrid plan` as users run it: the command against a brute-force scan of `simulate`, the ranking
// by cost, the fewest replicas for a target rate, infeasible candidates and bad input.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;
using testing::CliErrorCase;
using testing::ExpectOneLineError;
using ::testing::HasSubstr;
using testing::RunInfergrid;

constexpr char kWorkload[] = "--cost-model=roofline --max-requests=60 --workload=azure-conv";
constexpr char kSlo[] = "'tpot_p99<=20ms,ttft_p99<=400ms'";  // quoted for the shell

nlohmann::json SimulateJson(const std::string& flags) {
  const testing::CommandResult r = RunInfergrid(absl::StrCat("simulate --quiet --format=json ", flags));
  EXPECT_EQ(r.exit_code, 0) << flags << "\n" << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

// The pass rule as docs/plan.md states it, computed from `simulate` alone.
bool PassesBySimulate(double rate) {
  constexpr char kWorkloadWithoutCount[] = "--cost-model=roofline --workload=azure-conv";
  const std::string flags = absl::StrFormat("%s --rate=%.6g", kWorkloadWithoutCount, rate);
  // A run long enough to show the rate: arrivals over 5 p99 end-to-end latencies, the requests
  // grown to what that needs (at least doubled), within 20,000.
  int requests = 60;
  nlohmann::json full;
  while (true) {
    full = SimulateJson(absl::StrCat(flags, " --max-requests=", requests));
    if (full.empty()) return false;
    const double p99 = full["e2e"]["p99"].get<double>();
    if ((full["requests"].get<int>() - 1) / rate >= 5 * p99) break;
    const double needed = 1 + rate * 5 * p99;
    if (needed > 20000) return false;
    requests = std::min(20000, std::max(2 * requests, static_cast<int>(std::ceil(1.25 * needed))));
  }
  const bool slo = full["tpot"]["p99"].get<double>() <= 0.020 && full["ttft"]["p99"].get<double>() <= 0.400 &&
                   full["rejected"].get<int>() == 0 && full["completed"].get<int>() > 0;
  if (!slo) return false;
  const nlohmann::json half = SimulateJson(absl::StrCat(flags, " --max-requests=", full["requests"].get<int>() / 2));
  return full["queueing"]["mean"].get<double>() <= 1.25 * half["queueing"]["mean"].get<double>() + 0.05;
}

TEST(PlanCli, FindsTheBoundaryABruteForceScanFinds) {
  const testing::CommandResult r = RunInfergrid(
      absl::StrCat("plan --quiet --format=json --verify-seeds=1 --tolerance=0.02 ", kWorkload, " --slo=", kSlo));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["candidates"].size(), 1u);
  const nlohmann::json& c = j["candidates"][0];
  ASSERT_EQ(c["status"], "ok") << c.dump();
  const double rate = c["rate"].get<double>();
  // The scan: rates 1.1^k from a third of plan's answer (where every rate passes, checked: the
  // scan must start with a pass); the boundary is the last rate of the first run of passes.
  ASSERT_TRUE(PassesBySimulate(rate / 3));
  double last_pass = 0;
  for (double x = rate / 3; x < 1000; x *= 1.1) {
    if (!PassesBySimulate(x)) break;
    last_pass = x;
  }
  ASSERT_GT(last_pass, 0);
  EXPECT_GE(rate, last_pass / 1.02) << "scan boundary " << last_pass;
  EXPECT_LE(rate, last_pass * 1.1 * 1.02) << "scan boundary " << last_pass;
  // The chosen point passes, and its command line reproduces it.
  EXPECT_TRUE(PassesBySimulate(rate));
  EXPECT_THAT(c["command_line"].get<std::string>(), HasSubstr("--cost-model=roofline"));
  EXPECT_EQ(j["best_command"], c["command_line"]);
  EXPECT_EQ(c["rank"], 1);
  EXPECT_GT(c["simulations"].get<int>(), 4);
  EXPECT_EQ(j["simulations"], c["simulations"]);
}

TEST(PlanCli, RanksByCostWithCatalogOrGivenPrices) {
  const std::string base = absl::StrCat("plan --quiet --format=json --verify-seeds=1 --tolerance=0.1 ", kWorkload,
                                        " --slo=", kSlo, " --gpus=h100-sxm,a100-80gb");
  const testing::CommandResult r = RunInfergrid(base);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["candidates"].size(), 2u);
  for (const nlohmann::json& c : j["candidates"]) {
    ASSERT_EQ(c["status"], "ok") << c.dump();
    EXPECT_GT(c["price_usd_per_gpu_hour"].get<double>(), 0);
    EXPECT_NEAR(c["usd_per_million_output_tokens"].get<double>(),
                c["usd_per_hour"].get<double>() / (c["output_tokens_per_s"].get<double>() * 3600) * 1e6, 1e-9);
  }
  EXPECT_LE(j["candidates"][0]["usd_per_million_output_tokens"].get<double>(),
            j["candidates"][1]["usd_per_million_output_tokens"].get<double>());
  // Make the first one's GPU ten times dearer: the order flips, the capacities do not change.
  const std::string first = j["candidates"][0]["gpu"];
  const double first_price = j["candidates"][0]["price_usd_per_gpu_hour"];
  const testing::CommandResult flipped = RunInfergrid(absl::StrCat(base, " --price=", first, "=", 10 * first_price));
  ASSERT_EQ(flipped.exit_code, 0) << flipped.err;
  const nlohmann::json k = nlohmann::json::parse(flipped.out);
  EXPECT_NE(k["candidates"][0]["gpu"], first);
  EXPECT_EQ(k["candidates"][1]["rate"], j["candidates"][0]["rate"]);
}

// Capacity at steady state: a run of 100 requests and one of 1,000 state the same rate and a
// cost per token within a few percent (the short run grows until its arrivals last 5 p99
// latencies; tokens/s is the rate times the mean output, not tokens over a makespan with a drain).
TEST(PlanCli, TheCapacityDoesNotMoveWithTheRunLength) {
  std::vector<nlohmann::json> found;
  for (const int requests : {100, 1000}) {
    const testing::CommandResult r = RunInfergrid(absl::StrCat(
        "plan --quiet --format=json --verify-seeds=1 --tolerance=0.05 --cost-model=roofline --workload=azure-conv "
        "--max-requests=",
        requests, " --slo=", kSlo));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    found.push_back(nlohmann::json::parse(r.out)["candidates"][0]);
    ASSERT_EQ(found.back()["status"], "ok") << found.back().dump();
  }
  EXPECT_NEAR(found[0]["rate"].get<double>() / found[1]["rate"].get<double>(), 1, 0.06);
  EXPECT_NEAR(
      found[0]["usd_per_million_output_tokens"].get<double>() / found[1]["usd_per_million_output_tokens"].get<double>(),
      1, 0.08);
}

// A target no run can show (1e9 req/s: the burst is over before it starts) is not met.
TEST(PlanCli, ATargetTheRunsNeverReachIsNotMet) {
  const testing::CommandResult r = RunInfergrid(absl::StrCat("plan --quiet --format=json --verify-seeds=1 ", kWorkload,
                                                             " --slo=", kSlo, " --target-rate=1e9 --max-replicas=4"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json c = nlohmann::json::parse(r.out)["candidates"][0];
  EXPECT_EQ(c["status"], "infeasible") << c.dump();
  EXPECT_THAT(c["error"].get<std::string>(),
              HasSubstr("does not reach 1e+09 req/s even with --max-replicas=4: its runs "
                        "at that rate end before they can show it"));
}

TEST(PlanCli, TargetRateGivesTheFewestReplicasAndATableAndPlanJson) {
  const fs::path dir = testing::TestDir() / "plan-out";
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("plan --quiet --verify-seeds=1 --tolerance=0.1 ", kWorkload, " --slo=", kSlo,
                                " --target-rate=12 --out=", dir.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("InferGrid plan: 1 candidate, SLO tpot_p99<=20ms, ttft_p99<=400ms, target 12.00 req/s"));
  EXPECT_THAT(r.out, HasSubstr("best: infergrid simulate"));
  const nlohmann::json j = nlohmann::json::parse(testing::ReadAll(dir / "plan.json"));
  const nlohmann::json& c = j["candidates"][0];
  ASSERT_EQ(c["status"], "ok") << c.dump();
  const int replicas = c["replicas"];
  EXPECT_GE(replicas, 1);
  EXPECT_EQ(c["gpus"], replicas);
  EXPECT_DOUBLE_EQ(c["rate"].get<double>(), 12);
  EXPECT_THAT(c["command_line"].get<std::string>(), HasSubstr("--rate=12"));
  if (replicas > 1) {
    EXPECT_THAT(c["command_line"].get<std::string>(), HasSubstr(absl::StrCat("--num-replicas=", replicas)));
  }
}

TEST(PlanCli, AModelThatDoesNotFitIsInfeasibleNotAnError) {
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("plan --quiet --format=json --verify-seeds=1 --tolerance=0.2 --model=llama-3-70b ",
                                kWorkload, " --slo=", kSlo, " --tp-sizes=1,4"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["candidates"].size(), 2u);
  EXPECT_EQ(j["candidates"][0]["label"], "tp4");
  EXPECT_EQ(j["candidates"][0]["rank"], 1);
  EXPECT_EQ(j["candidates"][1]["label"], "tp1");
  EXPECT_EQ(j["candidates"][1]["status"], "infeasible");
  EXPECT_EQ(j["candidates"][1]["rank"], 0);
  EXPECT_FALSE(j["candidates"][1]["error"].get<std::string>().empty());
}

// The same search on h100-sxm (a measured profile) and h200-sxm (extrapolated from it): the
// table's profile column and note, plan.json's per-candidate fields and the workload assumed;
// then `report` draws the folder. Capped at 4 req/s to keep the calibrated runs few.
TEST(PlanCli, MarksExtrapolatedProfilesAndNamesTheWorkload) {
  const fs::path root = testing::TestDir();
  const fs::path dir = root / "plan-profiles";
  const testing::CommandResult r = RunInfergrid(absl::StrCat(
      "plan --quiet --verify-seeds=1 --tolerance=0.25 --max-rate=4 --max-requests=40 --workload=azure-conv --seed=7 "
      "--slo='ttft_p99<=2s,tpot_p99<=100ms' --gpus=h100-sxm,h200-sxm --out=",
      dir.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  workload: synthetic preset azure-conv (its fitted lengths), poisson arrivals at "
                               "each rate searched, 40 requests a run at first, seed 7\n  flags: "));
  std::string header, h100_row, h200_row;
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    if (absl::StartsWith(line, "rank ")) header = std::string(line);
    if (line.empty() || !(absl::ascii_isdigit(line[0]) || line[0] == '-')) continue;  // a candidate's row
    if (absl::StrContains(line, " h100-sxm ")) h100_row = std::string(line);
    if (absl::StrContains(line, " h200-sxm ")) h200_row = std::string(line);
  }
  EXPECT_THAT(header, HasSubstr("profile")) << r.out;
  EXPECT_THAT(h100_row, HasSubstr(" measured")) << r.out;
  EXPECT_THAT(h200_row, HasSubstr(" extrapolated")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("note: the GPU profiles of h200-sxm from h100-sxm are extrapolated by datasheet "
                               "ratios, not measured on those GPUs"));
  const nlohmann::json j = nlohmann::json::parse(testing::ReadAll(dir / "plan.json"));
  ASSERT_EQ(j["candidates"].size(), 2u);
  for (const nlohmann::json& c : j["candidates"]) {
    ASSERT_EQ(c["status"], "ok") << c.dump();
    EXPECT_EQ(c["cost_model"], "calibrated") << c.dump();
    const bool h200 = c["gpu"] == "h200-sxm";
    EXPECT_EQ(c["profile_extrapolated"], h200) << c.dump();
    EXPECT_EQ(c["profile_extrapolated_from"], h200 ? "h100-sxm" : "") << c.dump();
    EXPECT_EQ(c["profile"], h200 ? "h200-sxm (extrapolated from h100-sxm by datasheet ratios)" : "h100-sxm (measured)");
  }
  const nlohmann::json& w = j["assumed_workload"];
  EXPECT_EQ(w["source"], "azure-conv");
  EXPECT_EQ(w["arrival"], "poisson");
  EXPECT_EQ(w["max_requests"], 40);
  EXPECT_EQ(w["seed"].is_string() ? w["seed"].get<std::string>() : w["seed"].dump(), "7");
  EXPECT_EQ(w["trace"], "");
  EXPECT_THAT(w["text"].get<std::string>(), HasSubstr("synthetic preset azure-conv"));

  // The folder as a report page: the candidates' capacities and costs in the charts' data.
  const fs::path page = root / "plan.html";
  const testing::CommandResult drawn = RunInfergrid(absl::StrCat("report ", dir.string(), " --out=", page.string()));
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  const std::string html = testing::ReadAll(page);
  const std::string open = "id=\"chart-specs\">";
  const size_t start = html.find(open) + open.size();
  const nlohmann::json specs = nlohmann::json::parse(html.substr(start, html.find("</script>", start) - start));
  ASSERT_EQ(specs.size(), 3u);
  for (size_t k = 0; k < 2; ++k) {
    const nlohmann::json& c = j["candidates"][k];
    const nlohmann::json& capacity = specs[0]["layer"][0]["data"]["values"][k];
    EXPECT_EQ(capacity["candidate"], c["label"]);
    EXPECT_EQ(capacity["profile"], c["gpu"] == "h200-sxm" ? "extrapolated" : "measured");
    EXPECT_NEAR(capacity["value"].get<double>(), c["rate"].get<double>(), 1e-3 * c["rate"].get<double>());
    const nlohmann::json& cost = specs[1]["layer"][0]["data"]["values"][k];
    EXPECT_NEAR(cost["value"].get<double>(), c["usd_per_million_output_tokens"].get<double>(),
                1e-3 * c["usd_per_million_output_tokens"].get<double>());
  }
}

TEST(PlanCli, BadInputIsOneLineAndNoFiles) {
  const fs::path dir = testing::TestDir() / "never";
  const std::string out = absl::StrCat(" --out=", dir.string());
  for (const CliErrorCase& c : std::vector<CliErrorCase>{
           {"plan" + out, 2, "--slo is required"},
           {"plan --slo='ttft_p99<=2' " + out, 2, "needs a positive number and a unit"},
           {"plan --slo=ttft_p99\\<=2s --rate=3" + out, 2, "--rate: plan searches the arrival rate"},
           {"plan --slo=ttft_p99\\<=2s --gpus=h100-sxm --gpu=a100-80gb" + out, 2, "--gpu is also a candidate axis"},
           {"plan --slo=ttft_p99\\<=2s --gpus=h100-sxm,b999" + out, 2, "b999: --gpu: unknown GPU 'b999'"},
           {"plan --slo=ttft_p99\\<=2s --price=l40s=1" + out, 2, "--price: no candidate runs on 'l40s'"},
           {"plan --slo=ttft_p99\\<=2s --price=h100-sxm" + out, 2, "expected GPU=USD_PER_GPU_HOUR"},
           // Numbers in decimal only, here too: hexadecimal and NaN are refused.
           {"plan --slo=ttft_p99\\<=0x10s" + out, 2, "needs a positive number and a unit"},
           {"plan --slo=ttft_p99\\<=2s --price=h100-sxm=0x10" + out, 2, "expected GPU=USD_PER_GPU_HOUR"},
           {"plan --slo=ttft_p99\\<=2s --price=h100-sxm=nan" + out, 2, "expected GPU=USD_PER_GPU_HOUR"},
           {"plan --slo=ttft_p99\\<=2s --target-rate=5 --replica-counts=1,2" + out, 2, "--replica-counts"},
           {"plan --slo=ttft_p99\\<=2s --min-rate=5 --max-rate=2" + out, 2, "--min-rate and --max-rate"},
           {"plan --slo=ttft_p99\\<=2s --tp-sizes=1,x" + out, 2, "'x' is not a positive integer"}}) {
    ExpectOneLineError(c);
  }
  EXPECT_FALSE(fs::exists(dir));
}

}  // namespace
}  // namespace infergrid
