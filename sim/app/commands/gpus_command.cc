// `infergrid gpus`: the GPU catalog: the names --gpu takes, as a table or JSON
// (sim/app/accounting/catalog_listing.h).
#include <ostream>

#include "absl/status/status.h"
#include "sim/app/accounting/catalog_listing.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/commands/command.h"

namespace infergrid {
namespace {

absl::Status RunGpus(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  return PrintListing<GpuListing>("gpus", command_line, out, &ListGpus, &RenderGpus);
}

}  // namespace

const Command& GpusCommand() {
  static const Command* command = new Command{
      "gpus", "the GPU catalog: memory, datasheet peaks, NVLink, price, measured or extrapolated cost model",
      cli::CommandFlags().Take(cli::AccountingFlagGroup(), {"format"}), &RunGpus};
  return *command;
}

}  // namespace infergrid
