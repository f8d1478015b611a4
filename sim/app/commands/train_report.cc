#include "sim/app/commands/train_report.h"

#include <cmath>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "hardware/gpu_catalog.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "models/pass_accounting.h"
#include "models/training_compute.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/number_flags.h"
#include "sim/app/commands/command.h"
#include "sim/app/format/json_output.h"
#include "sim/app/format/text_table.h"
#include "sim/app/format/units.h"

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
  static const cli::FlagGroup<TrainFlags>* group = &(*new cli::FlagGroup<TrainFlags>())
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

}  // namespace

using format::Fixed;
using format::Grouped;
using format::Percent;
using format::Scientific;

namespace {

constexpr double kDefaultMfu = 0.4;

std::string Tflops(double flops_per_s) { return absl::StrCat(Fixed(flops_per_s / 1e12, 1), " TFLOP/s"); }

// N, D and the FLOPs of the run: 6ND, its forward and backward parts, and the attention
// FLOPs 6ND leaves out (with a sequence length).
void SetCompute(const TrainingQuery& q, TrainingReport* r) {
  r->set_model(q.model.name());
  r->set_parameters_source(q.parameters_source);
  r->set_parameters(q.parameters);
  r->set_total_parameters(q.total_parameters);
  r->set_assumed_optimal_tokens_per_parameter(q.tokens_per_parameter);
  r->set_compute_optimal_tokens(ComputeOptimalTokens(q.parameters, q.tokens_per_parameter));
  r->set_tokens(q.tokens > 0 ? q.tokens : r->compute_optimal_tokens());
  r->set_tokens_source(q.tokens > 0 ? "--tokens" : "compute-optimal");
  r->set_tokens_per_parameter(r->tokens() / r->parameters());
  r->set_flops_per_parameter_token(kTrainingFlopsPerParameterToken);
  r->set_forward_flops(kForwardFlopsPerParameterToken * r->parameters() * r->tokens());
  r->set_backward_flops(kBackwardFlopsPerParameterToken * r->parameters() * r->tokens());
  r->set_flops(TrainingFlops(r->parameters(), r->tokens()));
  const ParameterTokenSplit split = ComputeOptimalSplit(r->flops(), q.tokens_per_parameter);
  r->set_optimal_parameters_for_budget(split.parameters);
  r->set_optimal_tokens_for_budget(split.tokens);
  if (q.sequence_length > 0) {
    r->set_sequence_length(q.sequence_length);
    // Latent attention trains over up-projected heads: 12 L H D S with D the mean of the
    // query/key and value head sizes, i.e. 3 x the prefill FLOPs per pair x S.
    const double per_token =
        q.model.has_mla()
            ? 3.0 * AttentionFlopsPerPair(q.model, /*decode=*/false) * static_cast<double>(q.sequence_length)
            : AttentionTrainingFlopsPerToken(q.model.num_layers(), q.model.num_attention_heads(),
                                             q.model.head_dim(), q.sequence_length);
    r->set_attention_flops(per_token * r->tokens());
  }
}

// The GPUs' achieved rate, the wall time at that rate, and what a target time would take.
void SetRateAndTime(const TrainingQuery& q, TrainingReport* r) {
  r->set_gpu(q.gpu.name());
  r->set_num_gpus(q.num_gpus);
  r->set_peak_bf16_flops_per_gpu(q.gpu.tensor_peaks().fp16_flops());
  r->set_peak_fp8_flops_per_gpu(q.gpu.tensor_peaks().fp8_flops());
  const double peak = r->peak_bf16_flops_per_gpu();
  if (q.effective_flops_per_gpu > 0) {
    r->set_rate_source("--effective-flops-per-gpu");
    r->set_effective_flops_per_gpu(q.effective_flops_per_gpu);
    r->set_mfu(peak > 0 ? q.effective_flops_per_gpu / peak : 0);
  } else {
    r->set_rate_source(q.mfu > 0 ? "--mfu" : "default MFU");
    r->set_mfu(q.mfu > 0 ? q.mfu : kDefaultMfu);
    r->set_effective_flops_per_gpu(r->mfu() * peak);
  }
  r->set_cluster_flops_per_s(r->effective_flops_per_gpu() * q.num_gpus);
  r->set_seconds(TrainingSeconds(r->flops(), q.num_gpus, r->effective_flops_per_gpu()));
  r->set_days(r->seconds() / kSecondsPerDay);
  r->set_gpu_hours(r->seconds() * q.num_gpus / 3600);

  if (q.target_days > 0) {
    const TrainingTimeSolution s = SolveForTrainingSeconds(r->parameters(), r->tokens(), q.num_gpus,
                                                           r->effective_flops_per_gpu(),
                                                           q.target_days * kSecondsPerDay);
    TrainingTimeTarget& t = *r->mutable_target();
    t.set_days(q.target_days);
    t.set_num_gpus(s.num_gpus);
    t.set_flops_per_gpu(s.flops_per_gpu);
    t.set_fraction_of_bf16_peak(peak > 0 ? s.flops_per_gpu / peak : 0);
    const double fp8_peak = r->peak_fp8_flops_per_gpu();
    t.set_fraction_of_fp8_peak(fp8_peak > 0 ? s.flops_per_gpu / fp8_peak : 0);
    t.set_tokens(s.tokens);
    t.set_flops_per_parameter_token(s.flops_per_parameter_token);
  }
}

// Notes: what the numbers include and what they assume.
void AddTrainingNotes(const TrainingQuery& q, TrainingReport* r) {
  const double peak = r->peak_bf16_flops_per_gpu();
  if (r->parameters_source() == "active per token") {
    r->add_notes(absl::StrCat("N is the ", Scientific(r->parameters()),
                              " parameters a token passes through (of ", Scientific(r->total_parameters()),
                              " in all experts); the ~20 tokens/parameter fit comes from dense models"));
  }
  r->add_notes(
      "6*N*D counts the multiplies against the weights: 2 forward, 4 backward (2 for the gradients "
      "of the activations, 2 for those of the weights; the optimizer's weight update is per step, "
      "not per token, and not counted); attention scores (PaLM: + 12*L*H*Q*T per token, see "
      "--seq-len) and activation recomputation are extra");
  r->add_notes(absl::StrCat(
      "compute-optimal assumes Chinchilla's ~", Fixed(q.tokens_per_parameter, 0),
      " tokens per parameter (Hoffmann et al. 2022, an empirical fit); this run has ",
      Fixed(r->tokens_per_parameter(), 1), " (", Fixed(r->tokens_per_parameter() / q.tokens_per_parameter, 2),
      "x); the same budget spent compute-optimally is N = ", Scientific(r->optimal_parameters_for_budget()),
      ", D = ", Scientific(r->optimal_tokens_for_budget())));
  if (peak > 0) {
    r->add_notes(absl::StrCat(Tflops(r->effective_flops_per_gpu()), " per GPU is ", Percent(r->mfu(), 2),
                              " MFU of the ", q.gpu.display_name(), "'s ", Tflops(peak),
                              " dense bf16 peak (", Percent(kDefaultMfu, 0), " MFU would be ",
                              Tflops(kDefaultMfu * peak), ")"));
  }
  if (r->mfu() > 1) {
    r->add_notes("the effective rate exceeds the dense bf16 peak: not achievable in bf16");
  }
  r->add_notes("wall time assumes uninterrupted training at a constant rate: no failures, restarts, "
               "checkpoint stalls or evaluation pauses");
  if (r->has_target() && r->target().fraction_of_bf16_peak() > 1) {
    r->add_notes(absl::StrCat("finishing in ", Fixed(q.target_days, 1), " days on ", Grouped(q.num_gpus),
                              " GPUs needs ", Tflops(r->target().flops_per_gpu()),
                              " per GPU, above the dense bf16 peak"));
  }
}

}  // namespace

TrainingReport BuildTrainingReport(const TrainingQuery& q) {
  TrainingReport r;
  SetCompute(q, &r);
  SetRateAndTime(q, &r);
  AddTrainingNotes(q, &r);
  return r;
}

std::string RenderTrainingTable(const TrainingReport& r, const GpuSpec& gpu) {
  std::string out = absl::StrCat(
      "InferGrid train: ", Scientific(r.parameters()), " parameters on ", Scientific(r.tokens()),
      " tokens, ", Grouped(r.num_gpus()), " x ", gpu.display_name(), "\n");
  absl::StrAppend(&out, "  parameters N   ", Grouped(r.parameters()), " (",
                  r.model().empty() ? "" : absl::StrCat(r.model(), ", "), r.parameters_source(), ")\n");
  absl::StrAppend(&out, "  tokens D       ", Grouped(r.tokens()), " (", r.tokens_source(), "; ",
                  Fixed(r.tokens_per_parameter(), 1), " tokens per parameter)\n");
  absl::StrAppend(&out, "  rate per GPU   ", Tflops(r.effective_flops_per_gpu()), " (", r.rate_source(),
                  ") = ", Percent(r.mfu(), 2), " of ", Tflops(r.peak_bf16_flops_per_gpu()),
                  " dense bf16 peak\n\n");

  format::TextTable flops({"training compute", "FLOPs", "per parameter-token"});
  flops.AddRow({"forward (2*N*D)", Scientific(r.forward_flops()), "2"});
  flops.AddRow({"backward (4*N*D)", Scientific(r.backward_flops()), "4"});
  flops.AddRow({"total (6*N*D)", Scientific(r.flops()), "6"});
  if (r.sequence_length() > 0) {
    flops.AddRow({absl::StrCat("+ attention at T = ", Grouped(r.sequence_length()), " (12*L*H*Q*T*D)"),
                  Scientific(r.attention_flops()), Fixed(r.attention_flops() / (r.parameters() * r.tokens()), 3)});
  }
  absl::StrAppend(&out, flops.Render(), "\n");

  format::TextTable chinchilla({"compute-optimal (assumed ~20 tokens/parameter)", "parameters", "tokens"});
  chinchilla.AddRow({"tokens for this N", Scientific(r.parameters()), Scientific(r.compute_optimal_tokens())});
  chinchilla.AddRow({"split of this budget", Scientific(r.optimal_parameters_for_budget()),
                     Scientific(r.optimal_tokens_for_budget())});
  absl::StrAppend(&out, chinchilla.Render(), "\n");

  absl::StrAppend(&out, "cluster rate  ", Scientific(r.cluster_flops_per_s()), " FLOP/s (",
                  Grouped(r.num_gpus()), " GPUs)\n");
  absl::StrAppend(&out, "wall time     ", Grouped(r.seconds()), " s = ", Grouped(r.seconds() / 3600),
                  " h = ", Fixed(r.days(), 1), " days\n");
  absl::StrAppend(&out, "GPU-hours     ", Grouped(r.gpu_hours()), "\n\n");

  if (r.has_target()) {
    const TrainingTimeTarget& t = r.target();
    format::TextTable target({absl::StrCat("to take ", Fixed(t.days(), 1), " days instead (one change)"),
                           "needed", "vs. this run", ""});
    target.AddRow({absl::StrCat("GPUs at ", Tflops(r.effective_flops_per_gpu()), " each"),
                   Grouped(std::ceil(t.num_gpus())), absl::StrCat(Fixed(t.num_gpus() / r.num_gpus(), 2), "x"), ""});
    std::string peaks = absl::StrCat(Percent(t.fraction_of_bf16_peak()), " of the bf16 dense peak");
    if (t.fraction_of_fp8_peak() > 0) absl::StrAppend(&peaks, ", ", Percent(t.fraction_of_fp8_peak()), " of fp8");
    target.AddRow({absl::StrCat("rate per GPU on ", Grouped(r.num_gpus()), " GPUs"), Tflops(t.flops_per_gpu()),
                   absl::StrCat(Fixed(t.flops_per_gpu() / r.effective_flops_per_gpu(), 2), "x"), peaks});
    target.AddRow({"tokens", Scientific(t.tokens()), absl::StrCat(Fixed(t.tokens() / r.tokens(), 2), "x"), ""});
    target.AddRow({"FLOPs per parameter-token", Fixed(t.flops_per_parameter_token(), 2),
                   absl::StrCat(Fixed(t.flops_per_parameter_token() / r.flops_per_parameter_token(), 2), "x"),
                   t.flops_per_parameter_token() < kForwardFlopsPerParameterToken
                       ? "less than the forward pass alone (2)" : ""});
    absl::StrAppend(&out, target.Render(), "\n");
  }
  for (const std::string& note : r.notes()) absl::StrAppend(&out, "note: ", note, "\n");
  return out;
}

namespace {

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
      return cli::UsageError(absl::StrCat("--params=nominal: model '", q.model.name(),
                                          "' has no nominal parameter count; use exact"));
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
        cli::CheckRange("num_gpus", num_gpus, 1, 10'000'000),
        cli::CheckRange("seq_len", seq_len, 0, 100'000'000)}) {
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
    return cli::UsageError(absl::StrCat("--gpu: ", q.gpu.name(),
                                        " has no dense bf16 peak for --mfu; give --effective-flops-per-gpu"));
  }
  const TrainingReport report = BuildTrainingReport(q);
  out << (*json ? format::ToJson(report) : RenderTrainingTable(report, q.gpu));
  return absl::OkStatus();
}

}  // namespace

const Command& TrainCommand() {
  static const Command* command = new Command{
      "train", "training FLOPs (6*N*D), compute-optimal tokens and wall time on G GPUs",
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
