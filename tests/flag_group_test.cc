// Flag declarations (sim/app/cli/flag_group.h): a flag binds a member of its group's struct or of
// a base of it, optional members stay unset until given, policy names bind enums through their
// name tables, ranges are declared with the flag and checked on given values only; and the
// simulation's settings take their defaults and ranges from those declarations alone
// (docs/development.md#adding-a-setting).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "base/usage_error.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/flag_group.h"
#include "sim/app/cli/simulate_flags.h"
#include "sim/app/cli/simulate_options.h"
#include "sim/core/serving/router.h"

namespace infergrid::cli {
namespace {

using ::testing::HasSubstr;

struct Settings {
  int32_t stride = 1;
  double speed = 1;
  RouterKind router = RouterKind::kLeastKv;
  std::optional<RouterKind> other_router;
  std::optional<bool> stream;
};
struct Flags : Settings {
  std::string raw = "x";
};

const FlagGroup<Flags>& Group() {
  static const auto* group = &(*new FlagGroup<Flags>())
                                  .Add("stride", &Settings::stride, "a stride")
                                  .Within(1, 64)
                                  .Add("speed", &Settings::speed, "a speed")
                                  .Within(0.5, 2)
                                  .AddEnum("router", &Settings::router, kRouterNames, "a router")
                                  .AddEnum("other_router", &Settings::other_router, kRouterNames, "maybe a router")
                                  .Add("stream", &Settings::stream, "maybe streaming")
                                  .Add("raw", &Flags::raw, "raw text");
  return *group;
}

FlagValues Values(const std::vector<std::pair<std::string, std::string>>& given) {
  FlagValues values;
  for (const auto& [name, text] : given) values.Set(name, text);
  return values;
}

TEST(FlagGroup, DefaultsAreTheBoundMembersInitializers) {
  const FlagGroup<Flags>& group = Group();
  EXPECT_EQ(group.Find("stride")->default_text, "1");
  EXPECT_EQ(group.Find("router")->default_text, "least-kv");
  EXPECT_EQ(group.Find("other_router")->default_text, "");  // unset: the engine's own
  EXPECT_EQ(group.Find("stream")->default_text, "");
  EXPECT_EQ(group.Find("stream")->kind, FlagKind::kBool);
  EXPECT_EQ(group.Find("raw")->default_text, "x");
  const Flags read = group.Read(FlagValues());
  EXPECT_EQ(read.stride, 1);
  EXPECT_EQ(read.router, RouterKind::kLeastKv);
  EXPECT_FALSE(read.other_router.has_value());
  EXPECT_FALSE(read.stream.has_value());
}

TEST(FlagGroup, GivenValuesWriteTheBaseMembers) {
  const Flags read = Group().Read(Values({{"stride", "8"},
                                          {"speed", "1.5"},
                                          {"router", "round-robin"},
                                          {"other_router", "least-outstanding"},
                                          {"stream", "false"},
                                          {"raw", "y"}}));
  const Settings& settings = read;
  EXPECT_EQ(settings.stride, 8);
  EXPECT_DOUBLE_EQ(settings.speed, 1.5);
  EXPECT_EQ(settings.router, RouterKind::kRoundRobin);
  EXPECT_EQ(settings.other_router, RouterKind::kLeastOutstanding);
  EXPECT_EQ(settings.stream, false);  // given false is not unset
  EXPECT_EQ(read.raw, "y");
}

TEST(FlagGroup, ChecksRefuseGivenValuesOutsideTheirRangeOrNames) {
  EXPECT_TRUE(Group().CheckGiven(Values({{"stride", "64"}, {"speed", "0.5"}, {"other_router", ""}})).ok());
  const struct {
    std::string flag, text, error;
  } cases[] = {
      {"stride", "0", "--stride=0 is out of range (1..64)"},
      {"stride", "65", "--stride=65 is out of range (1..64)"},
      {"speed", "2.5", "--speed=2.5 is out of range (0.5..2)"},
      {"router", "random", "--router: expected round-robin, least-outstanding or least-kv, got 'random'"},
      {"router", "", "--router: expected round-robin, least-outstanding or least-kv, got ''"},
      {"other_router", "nope", "--other-router: expected round-robin, least-outstanding or least-kv, got 'nope'"},
  };
  for (const auto& c : cases) {
    const absl::Status status = Group().CheckGiven(Values({{c.flag, c.text}}));
    EXPECT_TRUE(IsUsageError(status)) << c.flag << "=" << c.text << ": " << status;
    EXPECT_EQ(status.message(), c.error);
  }
}

// The simulation's settings: each bound flag's default is SimulationSettings' initializer (no
// second copy of a default anywhere), and ReadSimulateOptions refuses a value outside the
// declared range before it reaches the settings.
TEST(SimulationSettingFlags, DefaultsComeFromTheSettingsAndRangesFromTheDeclaration) {
  const SimulationSettings settings;
  const FlagGroup<SimulateFlags>& group = SimulateFlagGroup();
  EXPECT_EQ(group.Find("cost_stride")->default_text, absl::StrCat(settings.cost_stride));
  EXPECT_EQ(group.Find("num_replicas")->default_text, absl::StrCat(settings.num_replicas));
  EXPECT_EQ(group.Find("swap_space")->default_text, absl::StrCat(settings.swap_space_gib));
  EXPECT_EQ(group.Find("router")->default_text, NameOf(kRouterNames, settings.router));
  EXPECT_EQ(group.Find("decode_router")->default_text, NameOf(kRouterNames, settings.decode_router));
  EXPECT_EQ(group.Find("scheduler")->default_text, "");  // unset: the engine's batch policy
  EXPECT_EQ(group.Find("multi_step_stream_outputs")->default_text, "");

  absl::StatusOr<SimulateOptions> options =
      ReadSimulateOptions(Values({{"cost_stride", "16"}, {"router", "least-outstanding"}, {"num_replicas", "2"}}));
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->cost_stride, 16);
  EXPECT_EQ(options->router, RouterKind::kLeastOutstanding);
  EXPECT_EQ(options->num_replicas, 2);

  // An optional setting given is echoed even when it names what an engine may default to: the
  // rerun command line must set it too.
  absl::StatusOr<SimulateOptions> streamed = ReadSimulateOptions(Values({{"multi_step_stream_outputs", "true"}}));
  ASSERT_TRUE(streamed.ok()) << streamed.status();
  EXPECT_EQ(streamed->multi_step_stream_outputs, true);
  EXPECT_THAT(streamed->command_line, HasSubstr("--multi-step-stream-outputs=true"));

  for (const auto& [flag, text, error] :
       {std::tuple{"cost_stride", "0", "--cost-stride=0 is out of range (1..4096)"},
        std::tuple{"stream_interval", "0", "--stream-interval=0 is out of range (1..1048576)"},
        std::tuple{"fabric_bandwidth", "1", "--fabric-bandwidth=1 is out of range (1e+06..1e+15)"},
        std::tuple{"preemption_mode", "evict", "--preemption-mode: expected recompute or swap, got 'evict'"}}) {
    absl::StatusOr<SimulateOptions> refused = ReadSimulateOptions(Values({{flag, text}}));
    ASSERT_FALSE(refused.ok()) << flag;
    EXPECT_TRUE(IsUsageError(refused.status()));
    EXPECT_THAT(refused.status().message(), HasSubstr(error));
  }
}

}  // namespace
}  // namespace infergrid::cli
