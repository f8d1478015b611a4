#include "sim/app/cli/slo_flags.h"

namespace infergrid::cli {

const FlagGroup<SloFlags>& SloFlagGroup() {
  static const FlagGroup<SloFlags>* group =
      &(*new FlagGroup<SloFlags>())
           .Add("slo_ttft", &SloFlags::slo_ttft, "SLO limit on time to first token, seconds (0: no TTFT limit)")
           .Add("slo_tpot", &SloFlags::slo_tpot,
                "SLO limit on time per output token after the first, seconds (0: no TPOT limit)");
  return *group;
}

}  // namespace infergrid::cli
