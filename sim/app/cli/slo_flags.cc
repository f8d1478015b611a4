#include "sim/app/cli/slo_flags.h"

#include "absl/flags/flag.h"

ABSL_FLAG(double, slo_ttft, 0, "SLO limit on time to first token, seconds (0: no TTFT limit)");
ABSL_FLAG(double, slo_tpot, 0,
          "SLO limit on time per output token after the first, seconds (0: no TPOT limit)");
