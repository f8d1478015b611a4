// `infergrid train`: training FLOPs, the compute-optimal token count and the wall time on G GPUs
// (sim/app/accounting/train_result.h), N from --model or --params-count, as a table or JSON.
#include <filesystem>
#include <ostream>
#include <string>
#include <system_error>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "hardware/gpu_catalog.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "models/training_compute.h"
#include "sim/app/accounting/train_result.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/number_flags.h"
#include "sim/app/commands/command.h"
#include "sim/app/format/json_output.h"

namespace infergrid {
namespace {

// train's own flags.
struct TrainFlags {
  double params_count = 0;
  double tokens = 0;
  double tokens_per_parameter = infergrid::kChinchillaTokensPerParameter;
  int64_t num_gpus = 1;
  double mfu = 0;
  double effective_flops_per_gpu = 0;
  double target_days = 0;
  int64_t seq_len = 0;
};

const cli::FlagGroup<TrainFlags>& TrainFlagGroup() {
  static const cli::FlagGroup<TrainFlags>* group =
      &(*new cli::FlagGroup<TrainFlags>())
           .Add("params_count", &TrainFlags::params_count,
                "parameter count N (e.g. 70e9); replaces --model (0: count the model's parameters)")
           .Add("tokens", &TrainFlags::tokens,
                "training tokens D (e.g. 15e12); 0: compute-optimal, --tokens-per-parameter x N")
           .Add("tokens_per_parameter", &TrainFlags::tokens_per_parameter,
                "compute-optimal tokens per parameter (Chinchilla's ~20: an assumption)")
           .Add("num_gpus", &TrainFlags::num_gpus, "number of GPUs G training together")
           .Add("mfu", &TrainFlags::mfu,
                "model FLOPs utilization: achieved 6ND FLOP/s over the GPU's dense bf16 peak "
                "(0: 0.4, unless --effective-flops-per-gpu is given)")
           .Add("effective_flops_per_gpu", &TrainFlags::effective_flops_per_gpu,
                "achieved FLOP/s per GPU (e.g. 400e12), instead of --mfu")
           .Add("target_days", &TrainFlags::target_days,
                "also solve for what would finish the run in this many days (0: don't)")
           .Add("seq_len", &TrainFlags::seq_len,
                "sequence length T for the attention FLOPs 6*N*D leaves out (needs --model; 0: omit)");
  return *group;
}

// An unknown name is a usage error; a file that exists but does not parse is bad input.
absl::Status AsFlagError(absl::string_view flag, const std::string& value, const absl::Status& status) {
  std::error_code error;
  if (!std::filesystem::exists(value, error)) {
    return cli::UsageError(absl::StrCat("--", flag, ": ", status.message()));
  }
  return status;
}

absl::Status ResolveParameters(const cli::FlagValues& flags, TrainingQuery& q) {
  const TrainFlags train_flags = TrainFlagGroup().Read(flags);
  const cli::AccountingFlags accounting_flags = cli::AccountingFlagGroup().Read(flags);
  const double count = train_flags.params_count;
  if (absl::Status s = cli::CheckDoubleRange("params_count", count, 0, 1e16); !s.ok()) return s;
  if (count > 0) {
    if (count < 1) return cli::UsageError("--params-count must be at least 1");
    q.parameters = q.total_parameters = count;
    q.parameters_source = "--params-count";
    return absl::OkStatus();
  }
  const std::string name = accounting_flags.model;
  absl::StatusOr<ModelSpec> model = ResolveModel(name);
  if (!model.ok()) return AsFlagError("model", name, model.status());
  q.model = *std::move(model);
  const double exact = static_cast<double>(CountParameters(q.model).Total());
  const double active = static_cast<double>(ActiveParametersPerToken(q.model));
  const std::string mode = accounting_flags.params;
  double scale = 1;
  if (mode == "nominal") {
    if (q.model.nominal_parameters() <= 0) {
      return cli::UsageError(
          absl::StrCat("--params=nominal: model '", q.model.name(), "' has no nominal parameter count; use exact"));
    }
    scale = q.model.nominal_parameters() / exact;
  } else if (mode != "exact") {
    return cli::UsageError(absl::StrCat("--params: train takes exact or nominal, got '", mode, "'"));
  }
  q.total_parameters = exact * scale;
  q.parameters = active * scale;
  q.parameters_source = active < exact ? "active per token" : mode;
  return absl::OkStatus();
}

absl::Status RunTrain(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  const cli::FlagValues& flags = command_line.flags;
  const TrainFlags train_flags = TrainFlagGroup().Read(flags);
  const cli::AccountingFlags accounting_flags = cli::AccountingFlagGroup().Read(flags);
  const std::vector<std::string>& positional = command_line.positional;
  if (!positional.empty()) {
    return cli::UsageError(absl::StrCat("train takes no arguments, got '", positional[0], "'"));
  }
  absl::StatusOr<bool> json = cli::WantJson(flags);
  if (!json.ok()) return json.status();
  TrainingQuery q;
  q.tokens = train_flags.tokens;
  q.tokens_per_parameter = train_flags.tokens_per_parameter;
  q.mfu = train_flags.mfu;
  q.effective_flops_per_gpu = train_flags.effective_flops_per_gpu;
  q.target_days = train_flags.target_days;
  const int64_t num_gpus = train_flags.num_gpus;
  const int64_t seq_len = train_flags.seq_len;
  for (const absl::Status& s :
       {cli::CheckDoubleRange("tokens", q.tokens, 0, 1e18),
        cli::CheckDoubleRange("tokens_per_parameter", q.tokens_per_parameter, 1e-3, 1e6),
        cli::CheckDoubleRange("mfu", q.mfu, 0, 1),
        cli::CheckDoubleRange("effective_flops_per_gpu", q.effective_flops_per_gpu, 0, 1e18),
        cli::CheckDoubleRange("target_days", q.target_days, 0, 1e6),
        cli::CheckRange("num_gpus", num_gpus, 1, 10'000'000), cli::CheckRange("seq_len", seq_len, 0, 100'000'000)}) {
    if (!s.ok()) return s;
  }
  if (q.mfu > 0 && q.effective_flops_per_gpu > 0) {
    return cli::UsageError("give the rate once: --mfu or --effective-flops-per-gpu");
  }
  q.num_gpus = static_cast<int>(num_gpus);
  q.sequence_length = static_cast<int>(seq_len);
  if (absl::Status s = ResolveParameters(flags, q); !s.ok()) return s;
  if (q.sequence_length > 0 && q.model.name().empty()) {
    return cli::UsageError("--seq-len needs the architecture: give --model instead of --params-count");
  }
  const std::string gpu_name = accounting_flags.gpu;
  absl::StatusOr<GpuSpec> gpu = ResolveGpu(gpu_name);
  if (!gpu.ok()) return AsFlagError("gpu", gpu_name, gpu.status());
  q.gpu = *std::move(gpu);
  if (q.effective_flops_per_gpu == 0 && q.gpu.tensor_peaks().fp16_flops() <= 0) {
    return cli::UsageError(
        absl::StrCat("--gpu: ", q.gpu.name(), " has no dense bf16 peak for --mfu; give --effective-flops-per-gpu"));
  }
  const TrainingResult result = BuildTrainingResult(q);
  out << (*json ? format::ToJson(result) : RenderTrainingTable(result, q.gpu));
  return absl::OkStatus();
}

}  // namespace

const Command& TrainCommand() {
  static const Command* command =
      new Command{"train", "training FLOPs (6*N*D), compute-optimal tokens and wall time on G GPUs",
                  cli::CommandFlags()
                      .Take(cli::AccountingFlagGroup(), {"model", "params"})
                      .Take(TrainFlagGroup(), {"params_count", "tokens", "tokens_per_parameter"})
                      .Take(cli::AccountingFlagGroup(), {"gpu"})
                      .Take(TrainFlagGroup(), {"num_gpus", "mfu", "effective_flops_per_gpu", "target_days", "seq_len"})
                      .Take(cli::AccountingFlagGroup(), {"format"}),
                  &RunTrain};
  return *command;
}

}  // namespace infergrid
