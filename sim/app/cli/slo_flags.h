// The SLO flags, shared by every command that judges latencies against an SLO: a request
// meets it when its TTFT <= --slo-ttft and its TPOT <= --slo-tpot (seconds; 0 leaves a
// limit out).
#ifndef INFERGRID_SIM_APP_CLI_SLO_FLAGS_H_
#define INFERGRID_SIM_APP_CLI_SLO_FLAGS_H_

#include "sim/app/cli/flag_group.h"

namespace infergrid::cli {

// The range of --slo-ttft and --slo-tpot in every command that takes them: seconds, 0 (no limit)
// up to 1e6 s (11.6 days).
inline constexpr double kMaxSloSeconds = 1e6;

// The SLO limits.
struct SloFlags {
  double slo_ttft = 0;
  double slo_tpot = 0;
};
const FlagGroup<SloFlags>& SloFlagGroup();

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_SLO_FLAGS_H_
