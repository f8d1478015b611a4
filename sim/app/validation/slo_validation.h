// Checks predicted per-request latencies against observed ones for the same requests (joined
// by id): did the prediction get right which requests missed their SLO (a confusion matrix
// and its metrics), and how far off are the latencies themselves (TTFT and TPOT errors).
//
// A request misses the SLO when its TTFT exceeds the TTFT limit or its TPOT exceeds the TPOT
// limit (strictly: a request exactly at the limit meets it). A limit of 0 is not used. A
// request without a TPOT (one output token) cannot miss the TPOT limit, and a pair where
// either side lacks a TPOT is left out of the TPOT errors.
#ifndef INFERGRID_SIM_APP_VALIDATION_SLO_VALIDATION_H_
#define INFERGRID_SIM_APP_VALIDATION_SLO_VALIDATION_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "sim/app/validation/classification_metrics.h"
#include "sim/app/validation/latency_errors.h"
#include "sim/app/validation/request_latency_csv.h"

namespace infergrid {

struct SloLimits {
  double ttft_s = 0;  // 0: not part of the SLO
  double tpot_s = 0;  // 0: not part of the SLO
};

bool MissesSlo(const RequestLatency& request, const SloLimits& limits);

struct SloValidation {
  int64_t joined = 0;  // requests in both files
  int64_t predicted_only = 0;  // ids only in the predicted file
  int64_t observed_only = 0;  // ids only in the observed file
  ConfusionMatrix confusion;  // positive = missed the SLO
  ClassificationMetrics metrics;
  LatencyErrors ttft;
  LatencyErrors tpot;
};

// Joins by id. Unless `allow_unmatched`, an id present in only one file is an error naming
// that file and line; with it, the unmatched requests are counted and left out. No request in
// common is always an error.
absl::StatusOr<SloValidation> ValidateSloPredictions(const RequestLatencyFile& predicted,
                                                     const RequestLatencyFile& observed, const SloLimits& limits,
                                                     bool allow_unmatched);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_VALIDATION_SLO_VALIDATION_H_
