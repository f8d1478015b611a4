// Fitting a calibration profile from measured kernel times: the GEMM efficiency model and
// the HBM rate curve (jointly, from GEMM rows), the fixed cost and bandwidth fraction of each
// small-kernel class (from its rows), the collective tables (binned medians), and the
// attention and fp8 figures of the published micro-benchmark table. Every prediction during the
// fit goes through the same ResourceModel the simulator uses, so what is fitted is exactly what
// is later evaluated. Deterministic: the same inputs give the same profile, byte for byte.
#ifndef INFERGRID_CALIBRATION_PROFILE_FIT_H_
#define INFERGRID_CALIBRATION_PROFILE_FIT_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "calibration/calibration.pb.h"
#include "calibration/vidur_csv.h"
#include "hardware/hardware_spec.pb.h"
#include "hardware/resource_model.h"
#include "models/iteration_kernels.h"

namespace infergrid {

// One measured kernel: its demands as our kernel list states them, and the measured median.
struct KernelSample {
  std::string op;  // the source's name ("attn_pre_proj")
  Kernel kernel;
  int launches = 1;  // identical launches the measured time covers
  // The kernel's input was all zeros when measured (see SamplePredictor).
  bool zero_input = false;
  int tensor_parallel = 1;
  int64_t tokens = 0;  // rows through the op (GEMM M)
  double measured_s = 0;
  std::string model;  // the profiled model ("llama-2-7b"); empty when not a vidur table
  std::string where;  // "file:line"
};

// The resource model as the rows were measured: launches x one kernel's time, and for rows
// whose input was all zeros (KernelSample::zero_input) a tensor rate raised by the profile's
// zero_input_tensor_gain: tensor cores multiplying zeros draw less power and hold a higher
// clock under the power cap. Real inputs are not zeros; the simulator uses model() alone.
class SamplePredictor {
 public:
  static absl::StatusOr<SamplePredictor> Create(const GpuSpec& gpu, const Calibration& profile);
  double Seconds(const KernelSample& sample) const;
  const ResourceModel& model() const { return model_; }

 private:
  SamplePredictor(ResourceModel model, ResourceModel zero_input)
      : model_(std::move(model)), zero_input_(std::move(zero_input)) {}
  ResourceModel model_;
  ResourceModel zero_input_;
};

// Our kernel for each vidur op: attn_pre_proj -> qkv_proj ((n_head + 2 n_kv_head) x head_dim
// / TP by n_embd), attn_post_proj -> o_proj, mlp_up_proj -> gate_up_proj (2 x FFN / TP; a
// non-gated MLP's up_proj: FFN / TP), mlp_down_proj -> down_proj, input_layernorm /
// post_attention_layernorm -> the norms, attn_rope -> rope, mlp_act -> act, add ->
// residual_add, emb -> embedding, with head_dim = n_embd / n_head. Rows are turned into the
// kernel list of a one-layer model with the row's shape, so the demands are the simulator's own.
// vidur's block without a post-attention norm (phi-2) is the parallel one: one LayerNorm, and
// `add` sums attention output, MLP output and residual, two residual adds. Columns whose kernel
// is not the one the simulator prices are left out, with the reason in `skipped` (when given):
// the LayerNorm of a parallel block (torch LayerNorm, not the fused RMSNorm) and the activation
// of a non-gated MLP (torch GELU, not the fused SiLU-and-multiply).
absl::StatusOr<std::vector<KernelSample>> SamplesFromVidurOps(const VidurOpsTable& table,
                                                              std::vector<std::string>* skipped = nullptr);

// The starting profile for `gpu`: the GEMM tiles, priors for what no input measures (L2
// usable share, launch costs, unmeasured kernel classes), each marked "prior" in its source.
Calibration PriorProfile(const GpuSpec& gpu);

// Fits the GEMM model and HBM curve from the GEMM samples and each kernel class present in
// `samples`; leaves the rest of `profile` as it is. Errors when there are no GEMM samples.
absl::Status FitKernelSamples(const GpuSpec& gpu, const std::vector<KernelSample>& samples, Calibration* profile);

// Reads every input (ReadProfileInputs in profile_inputs.h: vidur per-op and collective CSVs,
// the micro-benchmark CSV, a Measurements .textproto, another GPU's profile), fits, and fills
// provenance, fit quality and GEMM references.
// `command` is recorded as the command that regenerates the profile.
absl::StatusOr<Calibration> FitProfile(const GpuSpec& gpu, const std::vector<std::string>& inputs,
                                       const std::string& command);

// Prediction vs measurement per op.
struct OpError {
  std::string op;
  int rows = 0;
  double mape = 0;  // mean |pred - meas| / meas
  double median_abs_error_s = 0;
  double median_ape = 0;  // median |pred - meas| / meas
  double bias = 0;  // mean (pred - meas) / meas
  double worst_error = 0;  // (pred - meas) / meas of the row with the largest |error|
  const KernelSample* worst = nullptr;  // that row (points into the rows summarized)
};
struct SampleError {
  const KernelSample* sample = nullptr;
  double predicted_s = 0;
  double ape() const { return std::abs(predicted_s - sample->measured_s) / sample->measured_s; }
};

std::vector<SampleError> Predict(const SamplePredictor& predictor, const std::vector<KernelSample>& samples);
// One OpError per op in first-seen order, then "all GEMMs" and "all".
std::vector<OpError> SummarizeErrors(const std::vector<SampleError>& errors);

// Collective tables from vidur rows: per rank count, medians over log-spaced size bins, made
// non-decreasing in size (pool-adjacent-violators), so interpolation never predicts a larger
// message to be faster.
std::vector<CollectiveTable> BinCollectives(const std::vector<VidurCollectiveRow>& rows, const std::string& source);

}  // namespace infergrid

#endif  // INFERGRID_CALIBRATION_PROFILE_FIT_H_
