#include "sim/app/python/command_call.h"

#include <sstream>

#include "absl/strings/str_cat.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/run/child_process.h"

namespace infergrid::python {

const Command* FindCommand(absl::string_view name) {
  for (const Command* command : {&MemoryCommand(), &RooflineCommand(), &SimulateCommand(), &CompareCommand(),
                                 &TraceCommand(), &ReportCommand()}) {
    if (command->name == name) return command;
  }
  return nullptr;
}

CommandOutcome CallCommand(const Command& command, const std::vector<std::string>& args) {
  absl::StatusOr<cli::ParsedCommandLine> parsed = cli::ParseCommandLine(args, command.flags);
  absl::Status status = parsed.status();
  if (status.ok() && parsed->help) status = cli::UsageError("--help is the command's; use help(infergrid)");
  std::ostringstream out;
  if (status.ok()) status = command.run(*parsed, out);
  if (!status.ok()) return {cli::ExitCodeFor(status), std::string(status.message())};
  return {cli::kExitOk, out.str()};
}

CommandOutcome CallCommandInChild(const Command& command, const std::vector<std::string>& args) {
  // The child sends its exit code as the first byte, then the text: a usage error and bad input
  // share a status code, so the code itself must cross the pipe.
  absl::StatusOr<std::string> reply = RunInChildProcess([&]() -> absl::StatusOr<std::string> {
    const CommandOutcome outcome = CallCommand(command, args);
    return absl::StrCat(std::string(1, static_cast<char>(outcome.exit_code)), outcome.text);
  });
  if (!reply.ok()) return {cli::kExitBadInput, std::string(reply.status().message())};
  return {static_cast<unsigned char>((*reply)[0]), reply->substr(1)};
}

}  // namespace infergrid::python
