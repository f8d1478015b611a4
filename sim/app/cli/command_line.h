// Command-line parsing for the infergrid subcommands. Flags are defined with ABSL_FLAG (name,
// type, default, help), but the Abseil registry is only read, never written: a parse returns
// its values in a FlagValues, and commands turn those into typed options once, at the edge.
// So one process can parse several command lines (compare's A and B on top of the shared
// flags) without global state. We parse argv ourselves (before anything else, SimGrid
// included, sees it) so that each subcommand accepts only its own flags, and so that usage
// errors exit with code 2 and a one-line message instead of Abseil's exit(1).
#ifndef INFERGRID_SIM_APP_CLI_COMMAND_LINE_H_
#define INFERGRID_SIM_APP_CLI_COMMAND_LINE_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/marshalling.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace infergrid::cli {

// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;  // a file or its content is wrong
inline constexpr int kExitUsage = 2;     // the command line is wrong

// A status that means "the command line is wrong" (exit 2); any other error exits 1.
absl::Status UsageError(absl::string_view message);

int ExitCodeFor(const absl::Status& status);

struct ParsedCommandLine;

// The flags one command line gave, over their registered defaults. Values are held in
// Abseil's canonical text (absl::UnparseFlag of the parsed value: "0.9", "true"), checked
// against the flag's type when parsed.
class FlagValues {
 public:
  // The value given for `flag`, else its default.
  template <typename T>
  T Get(const absl::Flag<T>& flag) const {
    const auto it = given_.find(std::string(absl::GetFlagReflectionHandle(flag).Name()));
    if (it == given_.end()) return absl::GetFlag(flag);
    T value{};
    std::string error;
    absl::ParseFlag(it->second, &value, &error);  // valid: checked by ParseCommandLine
    return value;
  }
  // Whether the command line named the flag (whatever the value).
  bool IsSet(absl::string_view name) const { return given_.count(std::string(name)) > 0; }
  // The names of the flags given, sorted.
  std::vector<std::string> GivenNames() const {
    std::vector<std::string> names;
    for (const auto& entry : given_) names.push_back(entry.first);
    return names;
  }
  // The value as canonical text, given or default ("" for an unknown flag).
  std::string Text(absl::string_view name) const;
  // These values with `overrides`' given values on top.
  FlagValues With(const FlagValues& overrides) const;

 private:
  friend absl::StatusOr<ParsedCommandLine> ParseCommandLine(
      const std::vector<std::string>&, const std::vector<absl::string_view>&);
  std::map<std::string, std::string> given_;  // flag name -> canonical text
};

struct ParsedCommandLine {
  std::vector<std::string> positional;
  // For each positional argument, the flag whose separately given value it follows ("--batch-size
  // 1 8 16": 8 and 16 follow batch_size), or "" for one that follows no such flag. A command
  // that takes lists the way Python's nargs="+" does reads them from here; every other command
  // sees them as stray positional arguments, as before.
  std::vector<std::string> positional_after_flag;
  FlagValues flags;
  bool help = false;
};

// Parses args (without the program and subcommand names): --name=value, --name value,
// --bool, --nobool, --help, and "--" ending the flags. Only names in `allowed` are accepted;
// a value that does not parse as the flag's type is a usage error naming the flag.
absl::StatusOr<ParsedCommandLine> ParseCommandLine(const std::vector<std::string>& args,
                                                   const std::vector<absl::string_view>& allowed);

// "  --name=<default>  help" lines for the allowed flags, for --help.
std::string FlagHelp(const std::vector<absl::string_view>& allowed);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_COMMAND_LINE_H_
