// The calibrated cost model's time for the pass `infergrid roofline` reports, next to the
// peak-based bounds: the same model, weights and KV dtype on one GPU, timed kernel by kernel
// from the GPU's calibration profile (bundled, or --calibration=FILE).
#ifndef INFERGRID_SIM_APP_ACCOUNTING_ROOFLINE_CALIBRATED_H_
#define INFERGRID_SIM_APP_ACCOUNTING_ROOFLINE_CALIBRATED_H_

#include <string>

#include "absl/status/status.h"
#include "calibration/calibration.pb.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/accounting/roofline_result.h"
#include "sim/app/results/accounting_results.pb.h"

namespace infergrid {

// Fills result->calibrated: decode = `batch` sequences at `context` tokens each; prefill =
// `batch` fresh prompts of `prompt` tokens. Errors when the model cannot be laid out as
// kernels (never for catalog models).
absl::Status AddCalibratedPrediction(const AccountingSetup& setup, const RooflineQuery& query,
                                     const Calibration& calibration, RooflineResult* result);

// Text lines for the roofline table ("" when the result has no prediction).
std::string RenderCalibratedLines(const RooflineResult& result);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_ACCOUNTING_ROOFLINE_CALIBRATED_H_
