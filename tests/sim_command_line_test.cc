// Command-line parsing: each command declares its flags as typed groups (flag_group.h); a parse
// holds values as canonical text and nothing global, commands read them as their structs, a
// repeated flag and a number not spelled in decimal are refused, an overlay keeps the base's
// other values, aliases and lists are declared, and bad names or values are usage errors.
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/bench_flags.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/simulate_flags.h"
#include "sim/app/commands/command.h"

namespace infergrid::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

FlagValues Parse(const std::vector<std::string>& args) {
  absl::StatusOr<ParsedCommandLine> parsed = ParseCommandLine(args, SimulationFlags());
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? parsed->flags : FlagValues();
}

SimulateFlags Simulate(const FlagValues& flags) { return SimulateFlagGroup().Read(flags); }

TEST(CommandLine, GroupsReadTypedValuesOverTheirStructsDefaults) {
  const FlagValues flags = Parse({"--model=llama-3-70b", "--tensor_parallel_size", "4", "--gpu-memory-utilization=0.80",
                                  "--enforce-eager", "--noenable-cuda-graphs"});
  const EngineFlags engine = EngineFlagGroup().Read(flags);
  EXPECT_EQ(AccountingFlagGroup().Read(flags).model, "llama-3-70b");
  EXPECT_EQ(engine.tensor_parallel_size, 4);
  EXPECT_DOUBLE_EQ(engine.gpu_memory_utilization, 0.8);
  EXPECT_TRUE(engine.enforce_eager);
  EXPECT_FALSE(Simulate(flags).cuda_graphs);
  EXPECT_EQ(Simulate(flags).router, RouterKind::kRoundRobin);  // not given: the struct's default
  EXPECT_EQ(flags.Text("gpu_memory_utilization"), "0.8");  // canonical, as Abseil unparses it
  EXPECT_EQ(flags.Text("enforce_eager"), "true");
  EXPECT_EQ(flags.Text("max_num_seqs"), "0");  // the declared default
  EXPECT_TRUE(flags.IsSet("model"));
  EXPECT_FALSE(flags.IsSet("gpu"));
  // Nothing global: a second parse starts from the defaults again.
  EXPECT_EQ(AccountingFlagGroup().Read(Parse({})).model, "llama-3-8b");
  EXPECT_EQ(EngineFlagGroup().Read(Parse({})).tensor_parallel_size, 1);
}

// A flag given twice is refused (the last value would silently win), in either spelling;
// an overlay (a sweep point, a compare variant) replaces the base's value on purpose.
TEST(CommandLine, ARepeatedFlagIsRefusedAndOverlaysKeepTheRest) {
  for (const std::vector<std::string>& twice : {std::vector<std::string>{"--rate=2", "--max-requests=10", "--rate=3"},
                                                std::vector<std::string>{"--max-num-seqs=8", "--max_num_seqs", "8"}}) {
    const absl::StatusOr<ParsedCommandLine> parsed = ParseCommandLine(twice, SimulationFlags());
    ASSERT_FALSE(parsed.ok());
    EXPECT_THAT(parsed.status().message(), HasSubstr("is given twice"));
    EXPECT_EQ(ExitCodeFor(parsed.status()), kExitUsage);
  }
  const FlagValues shared = Parse({"--max-requests=10", "--rate=3"});
  EXPECT_DOUBLE_EQ(Simulate(shared).rate, 3);
  const FlagValues merged = shared.With(Parse({"--rate=7", "--scheduler=sarathi"}));
  EXPECT_DOUBLE_EQ(Simulate(merged).rate, 7);
  EXPECT_EQ(Simulate(merged).max_requests, 10);
  EXPECT_EQ(Simulate(merged).scheduler, SchedulerKind::kSarathi);
  EXPECT_DOUBLE_EQ(Simulate(shared).rate, 3);  // the base is unchanged
  EXPECT_FALSE(Simulate(shared).scheduler.has_value());
}

TEST(CommandLine, UnknownFlagsAndBadValuesAreUsageErrors) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--no-such-flag=1"}, "unknown flag --no-such-flag for this command"},
      {{"--phase=decode"}, "unknown flag --phase for this command"},  // roofline's, not simulate's
      {{"--report=x.html"}, "unknown flag --report for this command"},  // simulate's alone
      {{"--tensor-parallel-size=two"}, "flag --tensor-parallel-size: Illegal value 'two'; not a decimal integer"},
      {{"--enable-prefix-caching=maybe"}, "Illegal value 'maybe'"},
      {{"--max-requests"}, "flag --max-requests needs a value"},
      // One spelling of a number: decimal. Abseil alone reads 0x10 as 16 and takes inf and nan.
      {{"--rate=0x10"}, "flag --rate: Illegal value '0x10'; not a decimal number"},
      {{"--rate=inf"}, "not a decimal number"},
      {{"--rate=nan"}, "not a decimal number"},
      {{"--rate=1e"}, "not a decimal number"},
      {{"--max-requests=1e3"}, "flag --max-requests: Illegal value '1e3'; not a decimal integer"},
      {{"--max-requests=0x10"}, "not a decimal integer"},
  };
  for (const auto& [args, message] : cases) {
    absl::StatusOr<ParsedCommandLine> parsed = ParseCommandLine(args, SimulationFlags());
    ASSERT_FALSE(parsed.ok()) << args[0];
    EXPECT_EQ(ExitCodeFor(parsed.status()), kExitUsage) << args[0];
    EXPECT_THAT(parsed.status().message(), HasSubstr(message));
  }
}

TEST(CommandLine, DecimalSpellingsParse) {
  const SimulateFlags flags = Simulate(Parse({"--rate=.5", "--time-scale=1.5e1", "--max-requests=+12", "--cv=2."}));
  EXPECT_DOUBLE_EQ(flags.rate, 0.5);
  EXPECT_DOUBLE_EQ(flags.time_scale, 15);
  EXPECT_EQ(flags.max_requests, 12);
  EXPECT_DOUBLE_EQ(flags.cv, 2);
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
    const absl::StatusOr<ParsedCommandLine> read =
        ParseCommandLine({absl::StrCat("--time-scale=", decimal)}, SimulationFlags());
    ASSERT_TRUE(read.ok()) << decimal << ": " << read.status();
    EXPECT_EQ(Simulate(read->flags).time_scale, value) << decimal;
    const absl::StatusOr<ParsedCommandLine> hex =
        ParseCommandLine({absl::StrCat("--time-scale=", hexadecimal)}, SimulationFlags());
    ASSERT_FALSE(hex.ok()) << hexadecimal;
    EXPECT_THAT(hex.status().message(), HasSubstr("flag --time-scale: Illegal value"));
  }
  for (const char* special : {"inf", "-inf", "Infinity", "nan", "NaN", "-nan", "1e", "--1", "1..2", "0x1p3", ""}) {
    EXPECT_FALSE(ParseCommandLine({absl::StrCat("--time-scale=", special)}, SimulationFlags()).ok()) << special;
    EXPECT_FALSE(ParseCommandLine({absl::StrCat("--max-requests=", special)}, SimulationFlags()).ok()) << special;
  }
}

// Property: a decimal whose value a double cannot hold, too large or too small and not zero, is
// refused naming the flag (1e309 was read as inf, which no flag takes, so the flag silently kept
// its default; 1e-400 as 0). Zero written with any exponent is zero; an integer past its type's
// range is refused the same way.
TEST(CommandLine, DecimalsOutOfADoublesRangeAreRefusedNamingTheFlag) {
  std::mt19937_64 random(49);
  for (int i = 0; i < 500; ++i) {
    const int64_t digits = static_cast<int64_t>(random() % 1000000) + 1;
    const bool large = i % 2 == 0;
    const std::string value = absl::StrCat(i % 4 < 2 ? "" : "-", digits, large ? "e" : "e-",
                                           large ? 309 + random() % 100000 : 331 + random() % 100000);
    const absl::StatusOr<ParsedCommandLine> read =
        ParseCommandLine({absl::StrCat("--time-scale=", value)}, SimulationFlags());
    ASSERT_FALSE(read.ok()) << value;
    EXPECT_THAT(read.status().message(),
                HasSubstr(absl::StrCat("flag --time-scale: Illegal value '", value, "'; out of range")));
    EXPECT_EQ(ExitCodeFor(read.status()), kExitUsage);
  }
  for (const char* zero : {"0e99999", "-0.000e-99999", "0.0"}) {
    const absl::StatusOr<ParsedCommandLine> read = ParseCommandLine({absl::StrCat("--rate=", zero)}, SimulationFlags());
    ASSERT_TRUE(read.ok()) << zero;
    EXPECT_EQ(Simulate(read->flags).rate, 0) << zero;
  }
  for (const char* edge : {"1.7976931348623157e308", "4.9e-324", "-2.2250738585072014e-308"}) {
    EXPECT_TRUE(ParseCommandLine({absl::StrCat("--time-scale=", edge)}, SimulationFlags()).ok()) << edge;
  }
  for (const auto& [arg, message] :
       {std::pair<std::string, std::string>{"--num-replicas=3000000000", "out of range for a 32-bit integer"},
        {"--max-requests=99999999999999999999", "out of range for a 64-bit integer"},
        {"--seed=-1", "out of range for an unsigned 64-bit integer"}}) {
    const absl::StatusOr<ParsedCommandLine> read = ParseCommandLine({arg}, SimulationFlags());
    ASSERT_FALSE(read.ok()) << arg;
    EXPECT_THAT(read.status().message(), HasSubstr(message)) << arg;
  }
}

TEST(CommandLine, PositionalArgumentsAndHelp) {
  absl::StatusOr<ParsedCommandLine> parsed =
      ParseCommandLine({"stats", "--trace=x.csv", "--", "--not-a-flag"}, TraceCommand().flags);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(parsed->positional, ElementsAre("stats", "--not-a-flag"));
  EXPECT_TRUE(ParseCommandLine({"--help"}, CommandFlags())->help);
}

// A group of every kind of flag, declared as a command declares its own.
struct ExampleFlags {
  bool verbose = false;
  int32_t count = 3;
  double rate = 0.5;
  std::string name = "x";
  std::vector<int64_t> sizes = {8};
};

const FlagGroup<ExampleFlags>& ExampleFlagGroup() {
  static const FlagGroup<ExampleFlags>* group = &(*new FlagGroup<ExampleFlags>())
                                                     .Add("verbose", &ExampleFlags::verbose, "talk")
                                                     .Add("count", &ExampleFlags::count, "how many")
                                                     .Add("rate", &ExampleFlags::rate, "how fast")
                                                     .Add("name", &ExampleFlags::name, "what")
                                                     .AddList("sizes", &ExampleFlags::sizes, "one or more sizes");
  return *group;
}

const CommandFlags& ExampleCommandFlags() {
  static const CommandFlags* flags = new CommandFlags(CommandFlags()
                                                          .Take(ExampleFlagGroup())
                                                          .Alias({"n", "count"})
                                                          .Alias({"howmany", "count"})
                                                          .Alias({"label", "name", {{"rate", "2"}}})
                                                          .Alias({"loud", "verbose"}));
  return *flags;
}

// nargs="+": the arguments after a list flag's value that are integers join it; the first that
// is not ends it, and is positional.
TEST(CommandLine, ListFlagsTakeTheIntegersThatFollowThem) {
  absl::StatusOr<ParsedCommandLine> parsed =
      ParseCommandLine({"run", "--sizes", "1", "8", "16", "next", "4"}, ExampleCommandFlags());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(ExampleFlagGroup().Read(parsed->flags).sizes, ElementsAre(1, 8, 16));
  EXPECT_THAT(parsed->positional, ElementsAre("run", "next", "4"));
  parsed = ParseCommandLine({"--sizes=2,4", "--verbose", "6"}, ExampleCommandFlags());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(ExampleFlagGroup().Read(parsed->flags).sizes, ElementsAre(2, 4));
  EXPECT_THAT(parsed->positional, ElementsAre("6"));  // a boolean takes no list
  EXPECT_THAT(ExampleFlagGroup().Read(ParseCommandLine({}, ExampleCommandFlags())->flags).sizes, ElementsAre(8));
  parsed = ParseCommandLine({"--sizes=2,x"}, ExampleCommandFlags());
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("'x' is not an integer"));
  // An integer past 64 bits is one, out of range (it was called not an integer).
  parsed = ParseCommandLine({"--sizes=2,99999999999999999999"}, ExampleCommandFlags());
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(),
              HasSubstr("flag --sizes: Illegal value '2,99999999999999999999'; '99999999999999999999' is out of range "
                        "for a 64-bit integer"));
}

// An alias sets its flag; two spellings of one flag are refused, naming both; an alias's implied
// settings apply unless given.
TEST(CommandLine, AliasesAreAnotherSpellingOfTheirFlag) {
  absl::StatusOr<ParsedCommandLine> parsed = ParseCommandLine({"--n=5", "--label=y"}, ExampleCommandFlags());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const ExampleFlags read = ExampleFlagGroup().Read(parsed->flags);
  EXPECT_EQ(read.count, 5);
  EXPECT_EQ(read.name, "y");
  EXPECT_DOUBLE_EQ(read.rate, 2);  // implied by --label
  EXPECT_EQ(parsed->flags.Spelling("count"), "n");
  EXPECT_EQ(parsed->flags.Spelling("rate"), "label");
  parsed = ParseCommandLine({"--loud"}, ExampleCommandFlags());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_TRUE(ExampleFlagGroup().Read(parsed->flags).verbose);
  parsed = ParseCommandLine({"--noloud", "--verbose"}, ExampleCommandFlags());  // a boolean alias negates too
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("--loud and --verbose are the same setting"));
  parsed = ParseCommandLine({"--label=y", "--rate=4"}, ExampleCommandFlags());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_DOUBLE_EQ(ExampleFlagGroup().Read(parsed->flags).rate, 4);  // given, so not implied
  for (const auto& [args, message] : {std::pair<std::vector<std::string>, std::string>{
                                          {"--count=1", "--n=2"}, "--n and --count are the same setting"},
                                      {{"--howmany=1", "--n=2"}, "--n and --howmany are the same setting"},
                                      {{"--n=x"}, "flag --n: Illegal value 'x'"}}) {
    parsed = ParseCommandLine(args, ExampleCommandFlags());
    ASSERT_FALSE(parsed.ok()) << args[0];
    EXPECT_THAT(parsed.status().message(), HasSubstr(message));
    EXPECT_EQ(ExitCodeFor(parsed.status()), kExitUsage);
  }
}

TEST(CommandLine, HelpComesFromTheDeclaration) {
  const std::string help = FlagHelp(ExampleCommandFlags());
  EXPECT_THAT(help, HasSubstr("  --count=3\n      how many\n"));
  EXPECT_THAT(help, HasSubstr("  --rate=0.5\n      how fast\n"));
  EXPECT_THAT(help, HasSubstr("  --sizes=8 (one or more values)\n"));
  EXPECT_THAT(help, HasSubstr("aliases:\n  --n is --count\n  --howmany is --count\n  --label is --name (and --rate=2)\n"
                              "  --loud is --verbose\n"));
}

// Each command declares its own flags: --out means what that command writes, and a flag one
// command takes is unknown to another.
TEST(CommandLine, EachCommandHasItsOwnFlags) {
  const auto out_help = [](const Command& command) { return command.flags.Find("out")->help; };
  EXPECT_THAT(out_help(SimulateCommand()), HasSubstr("summary.json"));
  EXPECT_THAT(out_help(CompareCommand()), HasSubstr("comparison.json"));
  EXPECT_THAT(out_help(PlanCommand()), HasSubstr("plan.json"));
  EXPECT_THAT(out_help(ReportCommand()), HasSubstr("HTML"));
  EXPECT_THAT(out_help(SweepCommand()), HasSubstr("results.csv"));
  EXPECT_EQ(MemoryCommand().flags.Find("out"), nullptr);
  EXPECT_EQ(BenchCommandFlags().Find("tp"), nullptr);
  EXPECT_EQ(BenchCommandFlags().FindAlias("tp")->canonical, "tensor_parallel_size");
}

// --help shows each command the flags it takes, with help written for it: a flag shared from
// another command's group says what it does here, and the flags about simulate's files are not
// offered where no simulation writes them.
TEST(CommandLine, EachCommandsHelpFitsTheCommand) {
  EXPECT_THAT(SimulateCommand().flags.Find("engine")->help, HasSubstr("serving engine to simulate"));
  EXPECT_THAT(MemoryCommand().flags.Find("engine")->help, HasSubstr("serving engine's KV-cache plan"));
  EXPECT_THAT(PlanCommand().flags.Find("rate")->help, HasSubstr("not taken: plan searches the arrival rate"));
  for (const Command* command : {&CompareCommand(), &PlanCommand()}) {
    for (const char* name : {"outputs", "timeline_format", "compress", "timeline_max_iterations", "fleet_window"}) {
      EXPECT_EQ(command->flags.Find(name), nullptr) << command->name << " --" << name;
    }
  }
  EXPECT_NE(SimulateCommand().flags.Find("compress"), nullptr);
  // The rewritten help is this command's only: the group keeps its own.
  EXPECT_THAT(EngineFlagGroup().Find("engine")->help, HasSubstr("serving engine: vllm-v1"));
  const std::string help = FlagHelp(CommandFlags().Take(ExampleFlagGroup()).Help("count", "how many here"));
  EXPECT_THAT(help, HasSubstr("  --count=3\n      how many here\n"));
}

TEST(CommandLineDeathTest, AFlagDeclaredTwiceInOneCommandAborts) {
  EXPECT_DEATH(CommandFlags().Take(ExampleFlagGroup()).Take(ExampleFlagGroup(), {"rate"}), "--rate declared twice");
  EXPECT_DEATH(CommandFlags().Take(ExampleFlagGroup()).Alias({"rate", "count"}), "--rate declared twice");
}

}  // namespace
}  // namespace infergrid::cli
