// A subcommand of `infergrid`: its name, a one-line summary, the flags it accepts (declared by
// typed groups, flag_group.h; --help is generated from them) and the function that runs it on its
// parsed command line. Output goes to `out`; errors are returned.
#ifndef INFERGRID_SIM_APP_COMMANDS_COMMAND_H_
#define INFERGRID_SIM_APP_COMMANDS_COMMAND_H_

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "sim/app/cli/command_line.h"

namespace infergrid {

struct Command {
  absl::string_view name;
  absl::string_view summary;
  cli::CommandFlags flags;
  absl::Status (*run)(const cli::ParsedCommandLine& command_line, std::ostream& out);
};

const Command& MemoryCommand();
const Command& RooflineCommand();
const Command& TraceCommand();
const Command& TrainCommand();
const Command& VectorIndexCommand();
const Command& ValidateCommand();
const Command& SimulateCommand();
const Command& CompareCommand();
const Command& KernelsCommand();
const Command& CalibrateCommand();
const Command& ReportCommand();
const Command& BenchCommand();
const Command& PlanCommand();
const Command& SweepCommand();
const Command& ModelsCommand();
const Command& GpusCommand();

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_COMMANDS_COMMAND_H_
