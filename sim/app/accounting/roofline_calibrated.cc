#include "sim/app/accounting/roofline_calibrated.h"

#include "absl/strings/str_cat.h"
#include "calibration/profile_catalog.h"
#include "sim/core/simulator/one_pass_cost.h"
#include "sim/app/format/units.h"

namespace infergrid {

absl::Status AddCalibratedPrediction(const AccountingSetup& setup, const RooflineQuery& query,
                                     const Calibration& calibration, RooflineResult* result) {
  BatchShape batch;
  if (query.prefill) {
    batch.prefill.assign(static_cast<size_t>(query.batch), PrefillChunk{query.prompt_tokens, 0});
  } else {
    batch.decode_context_tokens.assign(static_cast<size_t>(query.batch), query.context_tokens);
  }
  absl::StatusOr<OnePassCost> priced = PriceOnePass(setup, batch, calibration);
  if (!priced.ok()) return priced.status();
  const IterationCost& cost = priced->graphs;
  CalibratedPrediction& p = *result->mutable_calibrated();
  p.set_profile(CalibrationLabel(calibration));
  p.set_extrapolated(calibration.extrapolated());
  p.set_extrapolated_from(calibration.extrapolated_from());
  p.set_duration_s(cost.duration_s);
  p.set_eager_duration_s(priced->eager_duration_s);
  p.set_binding(std::string(ResourceName(cost.binding)));
  p.set_hbm_fraction(cost.hbm_fraction());
  p.set_compute_fraction(cost.compute_fraction());
  p.set_predicted_hbm_bytes(cost.hbm_bytes);
  p.set_kernel_launches(cost.kernel_launches);
  return absl::OkStatus();
}

std::string RenderCalibratedLines(const RooflineResult& result) {
  if (!result.has_calibrated()) return "";
  const CalibratedPrediction& p = result.calibrated();
  std::string out =
      absl::StrCat("calibrated prediction ", format::Duration(p.duration_s()), " with CUDA graphs, ",
                   format::Duration(p.eager_duration_s()), " eager (", p.kernel_launches(), " kernels)\n");
  absl::StrAppend(&out, "  binding            ", p.binding(), ": predicted DRAM ",
                  format::Fixed(p.predicted_hbm_bytes() / kGB, 2), " GB at ", format::Fixed(100 * p.hbm_fraction(), 1),
                  "% of HBM peak, ", format::Fixed(100 * p.compute_fraction(), 1), "% of tensor peak\n");
  absl::StrAppend(&out, "  profile            ", p.profile(), "\n\n");
  return out;
}

}  // namespace infergrid
