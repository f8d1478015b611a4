#include "sim/app/accounting/train_result.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "models/pass_accounting.h"
#include "models/training_compute.h"
#include "sim/app/format/text_table.h"
#include "sim/app/format/units.h"

namespace infergrid {

using format::Fixed;
using format::Grouped;
using format::Percent;
using format::Scientific;

namespace {

constexpr double kDefaultMfu = 0.4;

std::string Tflops(double flops_per_s) { return absl::StrCat(Fixed(flops_per_s / 1e12, 1), " TFLOP/s"); }

// N, D and the FLOPs of the run: 6ND, its forward and backward parts, and the attention
// FLOPs 6ND leaves out (with a sequence length).
void SetCompute(const TrainingQuery& q, TrainingResult* r) {
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
            : AttentionTrainingFlopsPerToken(q.model.num_layers(), q.model.num_attention_heads(), q.model.head_dim(),
                                             q.sequence_length);
    r->set_attention_flops(per_token * r->tokens());
  }
}

// The GPUs' achieved rate, the wall time at that rate, and what a target time would take.
void SetRateAndTime(const TrainingQuery& q, TrainingResult* r) {
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
    const TrainingTimeSolution s = SolveForTrainingSeconds(
        r->parameters(), r->tokens(), q.num_gpus, r->effective_flops_per_gpu(), q.target_days * kSecondsPerDay);
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
void AddTrainingNotes(const TrainingQuery& q, TrainingResult* r) {
  const double peak = r->peak_bf16_flops_per_gpu();
  if (r->parameters_source() == "active per token") {
    r->add_notes(absl::StrCat("N is the ", Scientific(r->parameters()), " parameters a token passes through (of ",
                              Scientific(r->total_parameters()),
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
                              " MFU of the ", q.gpu.display_name(), "'s ", Tflops(peak), " dense bf16 peak (",
                              Percent(kDefaultMfu, 0), " MFU would be ", Tflops(kDefaultMfu * peak), ")"));
  }
  if (r->mfu() > 1) {
    r->add_notes("the effective rate exceeds the dense bf16 peak: not achievable in bf16");
  }
  r->add_notes(
      "wall time assumes uninterrupted training at a constant rate: no failures, restarts, "
      "checkpoint stalls or evaluation pauses");
  if (r->has_target() && r->target().fraction_of_bf16_peak() > 1) {
    r->add_notes(absl::StrCat("finishing in ", Fixed(q.target_days, 1), " days on ", Grouped(q.num_gpus),
                              " GPUs needs ", Tflops(r->target().flops_per_gpu()),
                              " per GPU, above the dense bf16 peak"));
  }
}

}  // namespace

TrainingResult BuildTrainingResult(const TrainingQuery& q) {
  TrainingResult r;
  SetCompute(q, &r);
  SetRateAndTime(q, &r);
  AddTrainingNotes(q, &r);
  return r;
}

std::string RenderTrainingTable(const TrainingResult& r, const GpuSpec& gpu) {
  std::string out =
      absl::StrCat("InferGrid train: ", Scientific(r.parameters()), " parameters on ", Scientific(r.tokens()),
                   " tokens, ", Grouped(r.num_gpus()), " x ", gpu.display_name(), "\n");
  absl::StrAppend(&out, "  parameters N   ", Grouped(r.parameters()), " (",
                  r.model().empty() ? "" : absl::StrCat(r.model(), ", "), r.parameters_source(), ")\n");
  absl::StrAppend(&out, "  tokens D       ", Grouped(r.tokens()), " (", r.tokens_source(), "; ",
                  Fixed(r.tokens_per_parameter(), 1), " tokens per parameter)\n");
  absl::StrAppend(&out, "  rate per GPU   ", Tflops(r.effective_flops_per_gpu()), " (", r.rate_source(),
                  ") = ", Percent(r.mfu(), 2), " of ", Tflops(r.peak_bf16_flops_per_gpu()), " dense bf16 peak\n\n");

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

  absl::StrAppend(&out, "cluster rate  ", Scientific(r.cluster_flops_per_s()), " FLOP/s (", Grouped(r.num_gpus()),
                  " GPUs)\n");
  absl::StrAppend(&out, "wall time     ", Grouped(r.seconds()), " s = ", Grouped(r.seconds() / 3600),
                  " h = ", Fixed(r.days(), 1), " days\n");
  absl::StrAppend(&out, "GPU-hours     ", Grouped(r.gpu_hours()), "\n\n");

  if (r.has_target()) {
    const TrainingTimeTarget& t = r.target();
    format::TextTable target(
        {absl::StrCat("to take ", Fixed(t.days(), 1), " days instead (one change)"), "needed", "vs. this run", ""});
    target.AddRow({absl::StrCat("GPUs at ", Tflops(r.effective_flops_per_gpu()), " each"),
                   Grouped(std::ceil(t.num_gpus())), absl::StrCat(Fixed(t.num_gpus() / r.num_gpus(), 2), "x"), ""});
    std::string peaks = absl::StrCat(Percent(t.fraction_of_bf16_peak()), " of the bf16 dense peak");
    if (t.fraction_of_fp8_peak() > 0) absl::StrAppend(&peaks, ", ", Percent(t.fraction_of_fp8_peak()), " of fp8");
    target.AddRow({absl::StrCat("rate per GPU on ", Grouped(r.num_gpus()), " GPUs"), Tflops(t.flops_per_gpu()),
                   absl::StrCat(Fixed(t.flops_per_gpu() / r.effective_flops_per_gpu(), 2), "x"), peaks});
    target.AddRow({"tokens", Scientific(t.tokens()), absl::StrCat(Fixed(t.tokens() / r.tokens(), 2), "x"), ""});
    target.AddRow(
        {"FLOPs per parameter-token", Fixed(t.flops_per_parameter_token(), 2),
         absl::StrCat(Fixed(t.flops_per_parameter_token() / r.flops_per_parameter_token(), 2), "x"),
         t.flops_per_parameter_token() < kForwardFlopsPerParameterToken ? "less than the forward pass alone (2)" : ""});
    absl::StrAppend(&out, target.Render(), "\n");
  }
  for (const std::string& note : r.notes()) absl::StrAppend(&out, "note: ", note, "\n");
  return out;
}

}  // namespace infergrid
