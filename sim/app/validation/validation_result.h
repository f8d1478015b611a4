// `infergrid validate`: predicted per-request latencies (a simulation's) against observed ones
// (a real engine's), joined by request id: the confusion matrix of "missed the SLO",
// precision, recall, F1, MCC and accuracy, beside TTFT and TPOT errors (MAPE, median absolute
// error, p50/p90/p99). SLO misses are rare, so accuracy alone would hide a predictor that
// never predicts one; MCC does not. CSV columns: see sim/app/validation/request_latency_csv.h.
#ifndef INFERGRID_SIM_APP_VALIDATION_VALIDATION_RESULT_H_
#define INFERGRID_SIM_APP_VALIDATION_VALIDATION_RESULT_H_

#include <string>

#include "sim/app/results/validation_result.pb.h"
#include "sim/app/validation/slo_validation.h"

namespace infergrid {

ValidationResult BuildValidationResult(const SloValidation& validation, const SloLimits& limits,
                                       const std::string& predicted_path, const std::string& observed_path);
std::string RenderValidationTable(const ValidationResult& result);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_VALIDATION_VALIDATION_RESULT_H_
