// Held-out accuracy of the fit: refit without some rows, predict those rows. Two splits:
// leave-one-TP-out (fit on three tensor-parallel degrees, predict the fourth: GEMM shapes the
// fit never saw) and leave-shapes-out (hold out a band of num_tokens, fit on the rest). Every
// row is predicted exactly once, by the fold that held it out; errors are pooled per op.
#ifndef INFERGRID_CALIBRATION_CROSS_VALIDATION_H_
#define INFERGRID_CALIBRATION_CROSS_VALIDATION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "calibration/profile_fit.h"
#include "hardware/hardware_spec.pb.h"

namespace infergrid {

enum class Holdout { kTensorParallel, kTokenBands };

struct FoldResult {
  std::string name;   // "tp 4", "tokens 257-1024"
  int train_rows = 0;
  int test_rows = 0;
  std::vector<OpError> errors;
};

struct CrossValidation {
  std::vector<FoldResult> folds;
  std::vector<OpError> pooled;  // every row predicted once, by the fold that held it out
};

// Token bands: [1,16], [17,64], [65,256], [257,1024], [1025,4096], [4097,16384], [16385,65536]
// (those present). Errors when a split leaves fewer than two folds.
absl::StatusOr<CrossValidation> CrossValidate(const GpuSpec& gpu,
                                              const std::vector<KernelSample>& samples,
                                              Holdout holdout);

}  // namespace infergrid

#endif  // INFERGRID_CALIBRATION_CROSS_VALIDATION_H_
