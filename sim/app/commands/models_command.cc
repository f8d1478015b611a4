// `infergrid models`: the model catalog: the names --model takes, as a table or JSON
// (sim/app/accounting/catalog_listing.h).
#include <ostream>

#include "absl/status/status.h"
#include "sim/app/accounting/catalog_listing.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/commands/command.h"

namespace infergrid {
namespace {

absl::Status RunModels(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  return PrintListing<ModelListing>("models", command_line, out, &ListModels, &RenderModels);
}

}  // namespace

const Command& ModelsCommand() {
  static const Command* command =
      new Command{"models", "the model catalog: the names --model takes, parameters, attention, experts",
                  cli::CommandFlags().Take(cli::AccountingFlagGroup(), {"format"}), &RunModels};
  return *command;
}

}  // namespace infergrid
