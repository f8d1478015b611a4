// `infergrid validate`: predicted per-request latencies against observed ones, joined by request id
// (sim/app/validation/slo_validation.h), reported by sim/app/validation/validation_result.h as a
// table or JSON.
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/number_flags.h"
#include "sim/app/cli/slo_flags.h"
#include "sim/app/commands/command.h"
#include "sim/app/format/json_output.h"
#include "sim/app/validation/request_latency_csv.h"
#include "sim/app/validation/slo_validation.h"
#include "sim/app/validation/validation_result.h"

namespace infergrid {
namespace {

// validate's own flags.
struct ValidateFlags {
  std::string predicted;
  std::string observed;
  bool allow_unmatched = false;
};

const cli::FlagGroup<ValidateFlags>& ValidateFlagGroup() {
  static const cli::FlagGroup<ValidateFlags>* group =
      &(*new cli::FlagGroup<ValidateFlags>())
           .Add("predicted", &ValidateFlags::predicted,
                "CSV of predicted per-request latencies: a header with at least id,ttft_s,tpot_s")
           .Add("observed", &ValidateFlags::observed, "CSV of observed (measured) per-request latencies, same columns")
           .Add("allow_unmatched", &ValidateFlags::allow_unmatched,
                "join on the ids both files have and count the rest (default: an id in one file only is an error)");
  return *group;
}

absl::Status RunValidate(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  const cli::FlagValues& flags = command_line.flags;
  const ValidateFlags validate_flags = ValidateFlagGroup().Read(flags);
  const cli::SloFlags slo_flags = cli::SloFlagGroup().Read(flags);
  const std::vector<std::string>& positional = command_line.positional;
  if (!positional.empty()) {
    return cli::UsageError(absl::StrCat("validate takes no arguments, got '", positional[0], "'"));
  }
  absl::StatusOr<bool> json = cli::WantJson(flags);
  if (!json.ok()) return json.status();
  const std::string predicted_path = validate_flags.predicted;
  const std::string observed_path = validate_flags.observed;
  if (predicted_path.empty() || observed_path.empty()) {
    return cli::UsageError("validate needs --predicted=CSV and --observed=CSV");
  }
  SloLimits limits;
  limits.ttft_s = slo_flags.slo_ttft;
  limits.tpot_s = slo_flags.slo_tpot;
  if (absl::Status s = cli::CheckDoubleRange("slo_ttft", limits.ttft_s, 0, cli::kMaxSloSeconds); !s.ok()) return s;
  if (absl::Status s = cli::CheckDoubleRange("slo_tpot", limits.tpot_s, 0, cli::kMaxSloSeconds); !s.ok()) return s;
  if (limits.ttft_s == 0 && limits.tpot_s == 0) {
    return cli::UsageError("validate needs an SLO: --slo-ttft=SECONDS and/or --slo-tpot=SECONDS");
  }
  absl::StatusOr<RequestLatencyFile> predicted = ReadRequestLatencyCsv(predicted_path);
  if (!predicted.ok()) return predicted.status();
  absl::StatusOr<RequestLatencyFile> observed = ReadRequestLatencyCsv(observed_path);
  if (!observed.ok()) return observed.status();
  absl::StatusOr<SloValidation> validation =
      ValidateSloPredictions(*predicted, *observed, limits, validate_flags.allow_unmatched);
  if (!validation.ok()) return validation.status();
  const ValidationResult result = BuildValidationResult(*validation, limits, predicted_path, observed_path);
  out << (*json ? format::ToJson(result) : RenderValidationTable(result));
  return absl::OkStatus();
}

}  // namespace

const Command& ValidateCommand() {
  static const Command* command = new Command{
      "validate", "predicted vs observed per-request latencies: SLO-miss precision, recall, F1, MCC, errors",
      cli::CommandFlags()
          .Take(ValidateFlagGroup(), {"predicted", "observed"})
          .Take(cli::SloFlagGroup())
          .Take(ValidateFlagGroup(), {"allow_unmatched"})
          .Take(cli::AccountingFlagGroup(), {"format"}),
      &RunValidate};
  return *command;
}

}  // namespace infergrid
