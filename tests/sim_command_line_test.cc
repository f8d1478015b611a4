// Command-line parsing: values land in a FlagValues in Abseil's canonical text, the flag
// registry is never written (so one process can hold several command lines), a repeated flag
// and a number not spelled in decimal are refused, an overlay keeps the base's other values, and bad names or values are usage errors.
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/simulate_flags.h"

namespace infergrid::cli {
namespace {

using ::testing::HasSubstr;

FlagValues Parse(const std::vector<std::string>& args) {
  absl::StatusOr<ParsedCommandLine> parsed = ParseCommandLine(args, SimulateFlagNames());
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? parsed->flags : FlagValues();
}

TEST(CommandLine, ValuesAreTypedAndTheRegistryIsNeverWritten) {
  const FlagValues flags = Parse({"--model=llama-3-70b", "--tensor_parallel_size", "4",
                                  "--gpu-memory-utilization=0.80", "--enforce-eager", "--noenable-cuda-graphs"});
  EXPECT_EQ(flags.Get(FLAGS_model), "llama-3-70b");
  EXPECT_EQ(flags.Get(FLAGS_tensor_parallel_size), 4);
  EXPECT_DOUBLE_EQ(flags.Get(FLAGS_gpu_memory_utilization), 0.8);
  EXPECT_TRUE(flags.Get(FLAGS_enforce_eager));
  EXPECT_FALSE(flags.Get(FLAGS_enable_cuda_graphs));
  EXPECT_EQ(flags.Get(FLAGS_router), "round-robin");  // not given: the default
  EXPECT_EQ(flags.Text("gpu_memory_utilization"), "0.8");  // canonical, as Abseil unparses it
  EXPECT_EQ(flags.Text("enforce_eager"), "true");
  EXPECT_EQ(flags.Text("max_num_seqs"), "0");
  EXPECT_TRUE(flags.IsSet("model"));
  EXPECT_FALSE(flags.IsSet("gpu"));
  // The registry keeps its defaults.
  EXPECT_EQ(absl::GetFlag(FLAGS_model), "llama-3-8b");
  EXPECT_EQ(absl::GetFlag(FLAGS_tensor_parallel_size), 1);
  EXPECT_FALSE(absl::GetFlag(FLAGS_enforce_eager));
}

// A flag given twice is refused (the last value would silently win), in either spelling;
// an overlay (a sweep point, a compare variant) replaces the base's value on purpose.
TEST(CommandLine, ARepeatedFlagIsRefusedAndOverlaysKeepTheRest) {
  for (const std::vector<std::string>& twice : {std::vector<std::string>{"--rate=2", "--max-requests=10", "--rate=3"},
                                                std::vector<std::string>{"--max-num-seqs=8", "--max_num_seqs", "8"}}) {
    const absl::StatusOr<ParsedCommandLine> parsed = ParseCommandLine(twice, SimulateFlagNames());
    ASSERT_FALSE(parsed.ok());
    EXPECT_THAT(parsed.status().message(), HasSubstr("is given twice"));
    EXPECT_EQ(ExitCodeFor(parsed.status()), kExitUsage);
  }
  const FlagValues shared = Parse({"--max-requests=10", "--rate=3"});
  EXPECT_DOUBLE_EQ(shared.Get(FLAGS_rate), 3);
  const FlagValues merged = shared.With(Parse({"--rate=7", "--scheduler=sarathi"}));
  EXPECT_DOUBLE_EQ(merged.Get(FLAGS_rate), 7);
  EXPECT_EQ(merged.Get(FLAGS_max_requests), 10);
  EXPECT_EQ(merged.Get(FLAGS_scheduler), "sarathi");
  EXPECT_DOUBLE_EQ(shared.Get(FLAGS_rate), 3);  // the base is unchanged
  EXPECT_EQ(shared.Get(FLAGS_scheduler), "");
}

TEST(CommandLine, UnknownFlagsAndBadValuesAreUsageErrors) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--no-such-flag=1"}, "unknown flag --no-such-flag for this command"},
      {{"--phase=decode"}, "unknown flag --phase for this command"},  // roofline's, not simulate's
      {{"--tensor-parallel-size=two"}, "flag --tensor-parallel-size: Illegal value 'two' specified for flag 'tensor_parallel_size'"},
      {{"--enable-prefix-caching=maybe"}, "Illegal value 'maybe'"},
      {{"--max-requests"}, "flag --max-requests needs a value"},
      // One spelling of a number: decimal. Abseil alone reads 0x10 as 16 and takes inf and nan.
      {{"--rate=0x10"}, "Illegal value '0x10' specified for flag 'rate'; not a decimal number"},
      {{"--rate=inf"}, "not a decimal number"},
      {{"--rate=nan"}, "not a decimal number"},
      {{"--rate=1e"}, "not a decimal number"},
      {{"--max-requests=1e3"}, "Illegal value '1e3' specified for flag 'max_requests'; not a decimal integer"},
      {{"--max-requests=0x10"}, "not a decimal integer"},
  };
  for (const auto& [args, message] : cases) {
    absl::StatusOr<ParsedCommandLine> parsed = ParseCommandLine(args, SimulateFlagNames());
    ASSERT_FALSE(parsed.ok()) << args[0];
    EXPECT_EQ(ExitCodeFor(parsed.status()), kExitUsage) << args[0];
    EXPECT_THAT(parsed.status().message(), HasSubstr(message));
  }
}

TEST(CommandLine, DecimalSpellingsParse) {
  const FlagValues flags = Parse({"--rate=.5", "--time-scale=1.5e1", "--max-requests=+12", "--cv=2."});
  EXPECT_DOUBLE_EQ(flags.Get(FLAGS_rate), 0.5);
  EXPECT_DOUBLE_EQ(flags.Get(FLAGS_time_scale), 15);
  EXPECT_EQ(flags.Get(FLAGS_max_requests), 12);
  EXPECT_DOUBLE_EQ(flags.Get(FLAGS_cv), 2);
}

// Property: any finite double written in decimal (%.17g) reads back as itself; the same value
// written in hexadecimal (%a), and every infinity and NaN, is refused with the flag named.
TEST(CommandLine, EveryDecimalDoubleRoundTripsAndNoOtherSpellingIsRead) {
  std::mt19937_64 random(20261204);
  std::uniform_real_distribution<double> exponent(-300, 300);
  for (int i = 0; i < 2000; ++i) {
    const double value = std::pow(10.0, exponent(random)) * (i % 2 == 0 ? 1 : -1);
    char decimal[64], hexadecimal[64];
    std::snprintf(decimal, sizeof decimal, "%.17g", value);
    std::snprintf(hexadecimal, sizeof hexadecimal, "%a", value);
    const absl::StatusOr<ParsedCommandLine> read = ParseCommandLine({absl::StrCat("--time-scale=", decimal)},
                                                                   SimulateFlagNames());
    ASSERT_TRUE(read.ok()) << decimal << ": " << read.status();
    EXPECT_EQ(read->flags.Get(FLAGS_time_scale), value) << decimal;
    const absl::StatusOr<ParsedCommandLine> hex = ParseCommandLine({absl::StrCat("--time-scale=", hexadecimal)},
                                                                  SimulateFlagNames());
    ASSERT_FALSE(hex.ok()) << hexadecimal;
    EXPECT_THAT(hex.status().message(), HasSubstr("flag --time-scale: Illegal value"));
  }
  for (const char* special : {"inf", "-inf", "Infinity", "nan", "NaN", "-nan", "1e", "--1", "1..2", "0x1p3", ""}) {
    EXPECT_FALSE(ParseCommandLine({absl::StrCat("--time-scale=", special)}, SimulateFlagNames()).ok()) << special;
    EXPECT_FALSE(ParseCommandLine({absl::StrCat("--max-requests=", special)}, SimulateFlagNames()).ok()) << special;
  }
}

TEST(CommandLine, PositionalArgumentsAndHelp) {
  absl::StatusOr<ParsedCommandLine> parsed =
      ParseCommandLine({"stats", "--trace=x.csv", "--", "--not-a-flag"}, {"trace"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(parsed->positional, ::testing::ElementsAre("stats", "--not-a-flag"));
  EXPECT_THAT(parsed->positional_after_flag, ::testing::ElementsAre("", ""));
  EXPECT_TRUE(ParseCommandLine({"--help"}, {})->help);
}

// Arguments after a flag's separately given value are recorded with that flag, so a command can
// read them as a list (--batch-size 1 8 16); after "--name=value" or a boolean they follow none.
TEST(CommandLine, PositionalArgumentsRememberTheFlagTheyFollow) {
  absl::StatusOr<ParsedCommandLine> parsed = ParseCommandLine(
      {"one", "--trace", "a.csv", "b.csv", "c.csv", "--rate=2", "two", "--quiet", "three"}, {"trace", "rate", "quiet"});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(parsed->positional, ::testing::ElementsAre("one", "b.csv", "c.csv", "two", "three"));
  EXPECT_THAT(parsed->positional_after_flag, ::testing::ElementsAre("", "trace", "trace", "", ""));
  EXPECT_EQ(parsed->flags.Text("trace"), "a.csv");
}

}  // namespace
}  // namespace infergrid::cli
