// Command-line parsing for the infergrid subcommands over Abseil's flag registry.
// We parse argv ourselves (before anything else, SimGrid included, sees it) so that each
// subcommand accepts only its own flags, and so that usage errors exit with code 2 and a
// one-line message instead of Abseil's exit(1).
#ifndef INFERGRID_SIM_CLI_COMMAND_LINE_H_
#define INFERGRID_SIM_CLI_COMMAND_LINE_H_

#include <set>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace infergrid::cli {

// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;  // a file or its content is wrong
inline constexpr int kExitUsage = 2;     // the command line is wrong

// A status that means "the command line is wrong" (exit 2); any other error exits 1.
absl::Status UsageError(absl::string_view message);
int ExitCodeFor(const absl::Status& status);

struct ParsedCommandLine {
  std::vector<std::string> positional;
  std::set<std::string> explicitly_set;  // flag names given on the command line
  bool help = false;
};

// Parses args (without the program and subcommand names): --name=value, --name value,
// --bool, --nobool, --help, and "--" ending the flags. Only names in `allowed` are accepted;
// values are parsed and stored through the Abseil flag registry.
absl::StatusOr<ParsedCommandLine> ParseCommandLine(const std::vector<std::string>& args,
                                                   const std::vector<absl::string_view>& allowed);

// "  --name=<default>  help" lines for the allowed flags, for --help.
std::string FlagHelp(const std::vector<absl::string_view>& allowed);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_CLI_COMMAND_LINE_H_
