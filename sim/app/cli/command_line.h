// Command-line parsing for the infergrid subcommands. Each command declares the flags it accepts
// (flag_group.h); a parse returns their values as text (FlagValues), which the command reads into
// its typed structs once, at the edge. We parse argv ourselves (before anything else, SimGrid
// included, sees it) so that each subcommand accepts only its own flags, and so that usage
// errors exit with code 2 and a one-line message.
#ifndef INFERGRID_SIM_APP_CLI_COMMAND_LINE_H_
#define INFERGRID_SIM_APP_CLI_COMMAND_LINE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/usage_error.h"
#include "sim/app/cli/flag_group.h"
#include "sim/app/cli/flag_values.h"

namespace infergrid::cli {

// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;  // a file or its content is wrong
inline constexpr int kExitUsage = 2;  // the command line is wrong

// A status that means "the command line is wrong" (exit 2; base/usage_error.h); any other
// error exits 1.
using ::infergrid::UsageError;

int ExitCodeFor(const absl::Status& status);

struct ParsedCommandLine {
  std::vector<std::string> positional;
  FlagValues flags;
  bool help = false;
};

// Parses args (without the program and subcommand names): --name=value, --name value,
// --bool, --nobool, --help, a list flag's further values, and "--" ending the flags. Only the
// flags and aliases `flags` declares are accepted; a value that does not parse as the flag's
// type, a flag given twice and a flag given under two spellings are usage errors naming it.
absl::StatusOr<ParsedCommandLine> ParseCommandLine(const std::vector<std::string>& args, const CommandFlags& flags);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_COMMAND_LINE_H_
