// `infergrid roofline`: FLOPs, nominal HBM bytes, intensity and the peak lower bounds of one
// prefill pass or decode step (sim/app/accounting/roofline_result.h), with the calibrated cost
// model's time beside them where the GPU has a profile (roofline_calibrated.h).
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "calibration/profile_catalog.h"
#include "sim/app/accounting/roofline_calibrated.h"
#include "sim/app/accounting/roofline_result.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/commands/command.h"
#include "sim/app/format/json_output.h"

namespace infergrid {
namespace {

// roofline's own flags.
struct RooflineFlags {
  std::string phase = "decode";
  std::string attention = "full";
};

const cli::FlagGroup<RooflineFlags>& RooflineFlagGroup() {
  static const cli::FlagGroup<RooflineFlags>* group =
      &(*new cli::FlagGroup<RooflineFlags>())
           .Add("phase", &RooflineFlags::phase, "prefill or decode")
           .Add("attention", &RooflineFlags::attention,
                "attention FLOPs in the total: full (the lesson's 2*L*H_q*D*P^2) or causal (halved)");
  return *group;
}

absl::Status RunRoofline(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  const cli::FlagValues& flags = command_line.flags;
  const RooflineFlags roofline_flags = RooflineFlagGroup().Read(flags);
  const cli::AccountingFlags accounting_flags = cli::AccountingFlagGroup().Read(flags);
  const std::vector<std::string>& positional = command_line.positional;
  if (!positional.empty()) {
    return cli::UsageError(absl::StrCat("roofline takes no arguments, got '", positional[0], "'"));
  }
  absl::StatusOr<bool> json = cli::WantJson(flags);
  if (!json.ok()) return json.status();
  RooflineQuery query;
  const std::string phase = roofline_flags.phase;
  if (phase != "prefill" && phase != "decode") {
    return cli::UsageError(absl::StrCat("--phase: expected prefill or decode, got '", phase, "'"));
  }
  const std::string attention = roofline_flags.attention;
  if (attention != "full" && attention != "causal") {
    return cli::UsageError(absl::StrCat("--attention: expected full or causal, got '", attention, "'"));
  }
  query.prefill = phase == "prefill";
  query.causal = attention == "causal";
  query.prompt_tokens = accounting_flags.prompt;
  query.context_tokens = accounting_flags.context;
  query.batch = accounting_flags.batch;
  if (absl::Status s = cli::CheckRange("prompt", query.prompt_tokens, 1, 100'000'000); !s.ok()) return s;
  if (absl::Status s = cli::CheckRange("context", query.context_tokens, 0, 100'000'000); !s.ok()) return s;
  if (absl::Status s = cli::CheckRange("batch", query.batch, 1, 10'000'000); !s.ok()) return s;
  absl::StatusOr<AccountingSetup> setup = cli::ResolveAccountingSetup(flags);
  if (!setup.ok()) return setup.status();
  RooflineResult result = BuildRooflineResult(*setup, query);
  const std::string calibration_path = accounting_flags.calibration;
  absl::StatusOr<Calibration> calibration = ResolveCalibration(setup->gpu, calibration_path);
  if (calibration.ok()) {
    if (absl::Status s = AddCalibratedPrediction(*setup, query, *calibration, &result); !s.ok()) return s;
  } else if (!calibration_path.empty() || !absl::IsNotFound(calibration.status())) {
    return calibration.status();
  } else {
    result.add_notes(
        absl::StrCat("no calibration profile for ", setup->gpu.name(), ": the calibrated prediction is omitted"));
  }
  out << (*json ? format::ToJson(result) : RenderRooflineTable(result, *setup));
  return absl::OkStatus();
}

}  // namespace

const Command& RooflineCommand() {
  static const Command* command =
      new Command{"roofline", "FLOPs, nominal HBM bytes, intensity and peak lower bounds of one pass",
                  cli::CommandFlags()
                      .Take(cli::AccountingFlagGroup(), cli::AccountingFlagNames())
                      .Take(RooflineFlagGroup(), {"phase"})
                      .Take(cli::AccountingFlagGroup(), {"prompt", "context", "batch"})
                      .Take(RooflineFlagGroup(), {"attention"})
                      .Take(cli::AccountingFlagGroup(), {"calibration"}),
                  &RunRoofline};
  return *command;
}

}  // namespace infergrid
