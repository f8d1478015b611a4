// Held-out accuracy of the fit: refit without some rows, predict those rows. Three splits:
// leave-one-TP-out (fit on three tensor-parallel degrees, predict the fourth: GEMM shapes the
// fit never saw), leave-shapes-out (hold out a band of num_tokens, fit on the rest) and
// leave-one-model-out (fit on every per-op table but one, predict the left-out model's rows:
// hidden sizes, FFN widths and head layouts the fit never saw). Every row is predicted exactly
// once, by the fold that held it out; errors are pooled per op. Each fold also fits the
// three-parameter roofline baseline (roofline_baseline.h) to the same training rows, and the
// GEMM rows of both are compared per TP degree.
#ifndef INFERGRID_CALIBRATION_CROSS_VALIDATION_H_
#define INFERGRID_CALIBRATION_CROSS_VALIDATION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "calibration/profile_fit.h"
#include "calibration/roofline_baseline.h"
#include "hardware/hardware_spec.pb.h"

namespace infergrid {

enum class Holdout { kTensorParallel, kTokenBands, kModel };

// The held-out GEMM rows of one group ("all", "tp 1", ...): the calibrated model's error and
// the roofline baseline's on the same rows.
struct GemmComparison {
  std::string group;
  OpError calibrated;
  OpError baseline;
};

struct FoldResult {
  std::string name;  // "tp 4", "tokens 257-1024", "codellama-34b"
  int train_rows = 0;
  int test_rows = 0;
  std::vector<OpError> errors;  // the calibrated model, per op, "all GEMMs", "all"
  std::vector<GemmComparison> gemms;  // "all" then each TP degree, in increasing order
  RooflineBaseline baseline;  // fitted to this fold's training GEMM rows
};

struct CrossValidation {
  std::vector<FoldResult> folds;
  std::vector<OpError> pooled;  // every row predicted once, by the fold that held it out
  std::vector<GemmComparison> pooled_gemms;
};

// The name of the fold a row belongs to under `holdout`. Folds run in order of TP degree,
// of token band, or of the models' first appearance in the rows.
std::string FoldName(const KernelSample& sample, Holdout holdout);

// Token bands: [1,16], [17,64], [65,256], [257,1024], [1025,4096], [4097,16384], [16385,65536]
// (those present). Models: KernelSample::model. Errors when a split leaves fewer than two
// folds, or a fold's training rows hold no GEMM.
absl::StatusOr<CrossValidation> CrossValidate(const GpuSpec& gpu, const std::vector<KernelSample>& samples,
                                              Holdout holdout);

}  // namespace infergrid

#endif  // INFERGRID_CALIBRATION_CROSS_VALIDATION_H_
