// `infergrid simulate --autoscale` as users run it: the flags refused with their names where a
// combination is not modelled, summary.json's autoscale section (present only with the flag)
// and the table's lines.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/command_runner.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;
using testing::RunInfergrid;

const char kAutoscaledFleet[] =
    "simulate --engine=vllm-v1@0.19 --max-requests=200 --rate=20 --num-replicas=3 --record-wall-time=false --quiet";

TEST(AutoscaleCli, RefusesBadFlagsNamingThem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--autoscale=latency:2", "--autoscale=latency:2: unknown metric"},
      {"--autoscale=utilization:1.5", "--autoscale=utilization:1.5: target"},
      {"--autoscale=queue:4 --min-replicas=4", "--min-replicas=4 is above --num-replicas=3"},
      {"--min-replicas=2", "--min-replicas needs --autoscale"},
      {"--replica-startup=10", "--replica-startup needs --autoscale"},
      {"--autoscale=queue:4 --autoscale-interval=0", "--autoscale-interval"},
      {"--autoscale=queue:4 --scale-down-delay=-1", "--scale-down-delay"},
  };
  for (const auto& [flags, message] : cases) {
    const testing::CommandResult r = RunInfergrid(absl::StrCat(kAutoscaledFleet, " ", flags));
    EXPECT_EQ(r.exit_code, 2) << flags << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr(message)) << flags;
  }
  const testing::CommandResult pd =
      RunInfergrid("simulate --max-requests=10 --pd=1P2D --autoscale=queue:4 --quiet --record-wall-time=false");
  EXPECT_EQ(pd.exit_code, 2) << pd.err;
  EXPECT_THAT(pd.err, HasSubstr("--autoscale with --pd"));
}

TEST(AutoscaleCli, SummaryHasItsSectionOnlyWithTheFlag) {
  const testing::CommandResult fixed = RunInfergrid(absl::StrCat(kAutoscaledFleet, " --format=json"));
  ASSERT_EQ(fixed.exit_code, 0) << fixed.err;
  EXPECT_FALSE(nlohmann::json::parse(fixed.out).contains("autoscale"));
  const testing::CommandResult scaled = RunInfergrid(absl::StrCat(
      kAutoscaledFleet, " --format=json --autoscale=queue:4 --autoscale-interval=2 --replica-startup=1.5"));
  ASSERT_EQ(scaled.exit_code, 0) << scaled.err;
  const nlohmann::json a = nlohmann::json::parse(scaled.out).at("autoscale");
  EXPECT_EQ(a.at("metric"), "queue");
  EXPECT_EQ(a.at("target"), 4);
  EXPECT_EQ(a.at("min_replicas"), 1);
  EXPECT_EQ(a.at("max_replicas"), 3);
  EXPECT_EQ(a.at("replica_startup_s"), 1.5);
  EXPECT_GT(a.at("gpu_hours").get<double>(), 0);
  EXPECT_LE(a.at("gpu_hours").get<double>(), a.at("fixed_gpu_hours").get<double>());
  EXPECT_GE(a.at("peak_active_replicas").get<int>(), 1);
  const testing::CommandResult table =
      RunInfergrid(absl::StrCat(kAutoscaledFleet, " --autoscale=queue:4 --autoscale-interval=2 --replica-startup=1.5"));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("autoscale    queue 4.00, 1..3 replicas (start-up 1.5 s)"));
}

// Without --replica-startup the start-up is the weights per GPU at 2 GB/s plus 30 s: Llama-3-8B's
// 16.06 GB of bf16 weights on one GPU take 8.03 s to load.
TEST(AutoscaleCli, DefaultStartupComesFromTheWeights) {
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat(kAutoscaledFleet, " --format=json --autoscale=utilization:0.6"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const double weights = j.at("memory").at("weight_bytes_per_gpu").get<double>();
  EXPECT_NEAR(j.at("autoscale").at("replica_startup_s").get<double>(), weights / 2e9 + 30, 1e-9);
}

}  // namespace
}  // namespace infergrid
