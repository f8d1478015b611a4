// The `infergrid` command: `infergrid <command> [--flags]`. Parses its own flags (see
// sim/app/cli/command_line.h), runs the command into a buffer, and prints it only on success, so
// a failed run leaves no partial output: one line on stderr and exit code 1 (bad input) or 2
// (usage).
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/interrupt_cleanup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/commands/command.h"

namespace infergrid {
namespace {

const std::vector<const Command*>& Commands() {
  static const std::vector<const Command*> commands = {
      &MemoryCommand(),   &RooflineCommand(), &TrainCommand(),     &VectorIndexCommand(),
      &ValidateCommand(), &KernelsCommand(),  &CalibrateCommand(), &SimulateCommand(),
      &CompareCommand(),  &TraceCommand(),    &ReportCommand(),    &BenchCommand(),
      &PlanCommand(),     &SweepCommand(),    &ModelsCommand(),    &GpusCommand()};
  return commands;
}

std::string Usage() {
  std::string usage =
      "usage: infergrid <command> [--flag=value ...]\n"
      "       infergrid <command> --help\n\ncommands:\n";
  for (const Command* command : Commands()) {
    const size_t pad = command->name.size() < 14 ? 14 - command->name.size() : 2;
    absl::StrAppend(&usage, "  ", command->name, std::string(pad, ' '), command->summary, "\n");
  }
  return usage;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << "usage: infergrid <command> [--flag=value ...] (infergrid --help lists the commands)\n";
    return cli::kExitUsage;
  }
  if (args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::cout << Usage();
    return cli::kExitOk;
  }
  const Command* command = nullptr;
  for (const Command* candidate : Commands()) {
    if (candidate->name == args[0]) command = candidate;
  }
  if (command == nullptr) {
    std::cerr << "infergrid: unknown command '" << args[0] << "' (infergrid --help lists them)\n";
    return cli::kExitUsage;
  }
  InstallInterruptCleanup(absl::StrCat("infergrid ", command->name),
                          command->name == "sweep"
                              ? "; the runs already finished are kept in the sweep folder and the same command "
                                "resumes the rest"
                              : "; nothing was written");
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  absl::StatusOr<cli::ParsedCommandLine> parsed = cli::ParseCommandLine(rest, command->flags);
  absl::Status status = parsed.status();
  if (status.ok() && parsed->help) {
    std::cout << "usage: infergrid " << command->name << " [--flag=value ...]\n"
              << command->summary << "\n\nflags:\n"
              << cli::FlagHelp(command->flags);
    return cli::kExitOk;
  }
  std::ostringstream out;
  if (status.ok()) status = command->run(*parsed, out);
  if (!status.ok()) {
    std::cerr << "infergrid " << command->name << ": error: " << status.message() << "\n";
    return cli::ExitCodeFor(status);
  }
  std::cout << out.str() << std::flush;
  return std::cout ? cli::kExitOk : cli::kExitBadInput;
}

}  // namespace
}  // namespace infergrid

int main(int argc, char** argv) { return infergrid::Main(argc, argv); }
