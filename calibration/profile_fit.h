// Fitting a calibration profile from measured kernel times: the GEMM efficiency model and
// the HBM rate curve (jointly, from GEMM rows), the fixed cost and bandwidth fraction of each
// small-kernel class (from its rows), the collective tables (binned medians), and the
// attention and fp8 figures of the published micro-benchmark table. Every prediction during the
// fit goes through the same ResourceModel the simulator uses, so what is fitted is exactly what
// is later evaluated. Deterministic: the same inputs give the same profile, byte for byte.
#ifndef INFERGRID_CALIBRATION_PROFILE_FIT_H_
#define INFERGRID_CALIBRATION_PROFILE_FIT_H_

#include <string>
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
  std::string op;           // the source's name ("attn_pre_proj")
  Kernel kernel;
  int tensor_parallel = 1;
  int64_t tokens = 0;       // rows through the op (GEMM M)
  double measured_s = 0;
  std::string where;        // "file:line"
};

// Our kernel for each vidur op: attn_pre_proj -> qkv_proj, attn_post_proj -> o_proj,
// mlp_up_proj -> gate_up_proj, mlp_down_proj -> down_proj, input_layernorm /
// post_attention_layernorm -> the norms, attn_rope -> rope, mlp_act -> act, add ->
// residual_add, emb -> embedding. Rows are turned into the kernel list of a one-layer model
// with the row's shape, so the demands are the simulator's own.
absl::StatusOr<std::vector<KernelSample>> SamplesFromVidurOps(const VidurOpsTable& table);

// The starting profile for `gpu`: the GEMM tiles, priors for what no input measures (L2
// usable share, launch costs, unmeasured kernel classes), each marked "prior" in its source.
Calibration PriorProfile(const GpuSpec& gpu);

// Fits the GEMM model and HBM curve from the GEMM samples and each kernel class present in
// `samples`; leaves the rest of `profile` as it is. Errors when there are no GEMM samples.
absl::Status FitKernelSamples(const GpuSpec& gpu, const std::vector<KernelSample>& samples,
                              Calibration* profile);

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
  double mape = 0;                // mean |pred - meas| / meas
  double median_abs_error_s = 0;
  double median_ape = 0;          // median |pred - meas| / meas
  double bias = 0;                // mean (pred - meas) / meas
};
struct SampleError {
  const KernelSample* sample = nullptr;
  double predicted_s = 0;
  double ape() const { return std::abs(predicted_s - sample->measured_s) / sample->measured_s; }
};

std::vector<SampleError> Predict(const ResourceModel& model, const std::vector<KernelSample>& samples);
// One OpError per op in first-seen order, then "all GEMMs" and "all".
std::vector<OpError> SummarizeErrors(const std::vector<SampleError>& errors);

// Collective tables from vidur rows: per rank count, medians over log-spaced size bins, made
// non-decreasing in size (pool-adjacent-violators), so interpolation never predicts a larger
// message to be faster.
std::vector<CollectiveTable> BinCollectives(const std::vector<VidurCollectiveRow>& rows,
                                            const std::string& source);

}  // namespace infergrid

#endif  // INFERGRID_CALIBRATION_PROFILE_FIT_H_
