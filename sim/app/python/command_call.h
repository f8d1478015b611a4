// Runs one of infergrid's commands on a command line, as the `infergrid` binary would, and
// returns its output or how it failed: the Python module's only way into the simulator, so that
// a keyword argument is exactly a flag of the command (parsed by cli::ParseCommandLine) and a
// result exactly what the command prints.
#ifndef INFERGRID_SIM_APP_PYTHON_COMMAND_CALL_H_
#define INFERGRID_SIM_APP_PYTHON_COMMAND_CALL_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "sim/app/commands/command.h"

namespace infergrid::python {

struct CommandOutcome {
  int exit_code = 0;  // cli::kExitOk, kExitBadInput or kExitUsage, as the binary would exit
  std::string text;  // stdout on success, the one-line error message otherwise
};

// The commands the module offers, by name (memory, roofline, simulate, compare, trace, report);
// nullptr for any other.
const Command* FindCommand(absl::string_view name);

// Parses `args` (flags and positional arguments, without the command's name) against the
// command's flags and runs it in this process.
CommandOutcome CallCommand(const Command& command, const std::vector<std::string>& args);

// The same in a forked child process: SimGrid allows one engine per process, ever, so every
// simulation runs in a child of its own and the caller can call again. A child that dies is
// exit code 1 with the reason.
CommandOutcome CallCommandInChild(const Command& command, const std::vector<std::string>& args);

}  // namespace infergrid::python

#endif  // INFERGRID_SIM_APP_PYTHON_COMMAND_CALL_H_
