#include "sim/app/commands/calibrate_host.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "base/textproto.h"
#include "calibration/host_fit.h"
#include "calibration/host_profile.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/format/text_table.h"
#include "sim/app/format/units.h"

namespace infergrid {

absl::Status RunCalibrateHost(const std::string& in, const std::string& path, std::ostream& out) {
  if (in.empty()) return cli::UsageError("calibrate host needs --in=FILE (a vidur CPU-overhead CSV)");
  if (path.empty()) return cli::UsageError("calibrate host needs --out=FILE");
  std::string contents;
  if (absl::Status s = ReadFileToString(in, &contents); !s.ok()) return s;
  absl::StatusOr<std::vector<HostOverheadRow>> rows = ParseHostOverheadsCsv(contents, in);
  if (!rows.ok()) return rows.status();
  absl::StatusOr<HostCalibration> host = FitHostCalibration(*rows, in);
  if (!host.ok()) return host.status();
  host->mutable_provenance()->set_command(absl::StrCat("infergrid calibrate host --in=", in, " --out=", path));
  if (absl::Status s = WriteHostCalibrationFile(path, *host); !s.ok()) return s;

  out << absl::StrCat("host calibration ", host->name(), " written to ", path, " (", rows->size(), " rows)\n\n");
  format::TextTable table({"phase", "base us", "per seq us", "per seq per 100K vocab us", "TP>1 us", "held-in MAPE", "held-out MAPE",
                           "held-out median |err|"});
  for (const HostPhase& p : host->phases()) {
    table.AddRow({p.name(), format::Fixed(p.base_s() * 1e6, 1), format::Fixed(p.per_sequence_s() * 1e6, 2),
                  format::Fixed(p.per_sequence_vocab_s() * 1e11, 2), format::Fixed(p.tensor_parallel_s() * 1e6, 1),
                  absl::StrCat(format::Fixed(100 * p.held_in_mape(), 1), "%"),
                  absl::StrCat(format::Fixed(100 * p.held_out_mape(), 1), "%"),
                  absl::StrCat(format::Fixed(p.held_out_median_abs_error_s() * 1e6, 1), " us")});
  }
  out << table.Render();
  out << absl::StrCat("\nwhole step (all phases), each model left out: MAPE ",
                      format::Fixed(100 * host->step_held_out_mape(), 1), "%\n");
  for (const std::string& note : host->notes()) out << "note: " << note << "\n";
  return absl::OkStatus();
}

}  // namespace infergrid
