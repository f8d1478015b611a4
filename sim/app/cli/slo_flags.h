// The SLO flags, shared by every command that judges latencies against an SLO: a request
// meets it when its TTFT <= --slo-ttft and its TPOT <= --slo-tpot (seconds; 0 leaves a
// limit out).
#ifndef INFERGRID_SIM_APP_CLI_SLO_FLAGS_H_
#define INFERGRID_SIM_APP_CLI_SLO_FLAGS_H_

#include "absl/flags/declare.h"

ABSL_DECLARE_FLAG(double, slo_ttft);
ABSL_DECLARE_FLAG(double, slo_tpot);

#endif  // INFERGRID_SIM_APP_CLI_SLO_FLAGS_H_
