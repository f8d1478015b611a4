#include "sim/app/plan/plan_ranking.h"

#include <algorithm>
#include <tuple>

namespace infergrid::plan {

void AddCosts(PlanCandidate& c) {
  c.set_usd_per_hour(0);
  c.set_usd_per_million_output_tokens(0);
  if (c.status() != "ok" || c.price_usd_per_gpu_hour() <= 0) return;
  c.set_usd_per_hour(c.gpus() * c.price_usd_per_gpu_hour());
  if (c.output_tokens_per_s() > 0) {
    c.set_usd_per_million_output_tokens(c.usd_per_hour() / (c.output_tokens_per_s() * 3600) * 1e6);
  }
}

void RankCandidates(std::vector<PlanCandidate>& candidates, bool target_mode) {
  // Sort key: group (0 priced, 1 unpriced, 2 infeasible, 3 failed), then the group's measure.
  auto key = [target_mode](const PlanCandidate& c) {
    const bool ok = c.status() == "ok";
    const bool priced = ok && c.usd_per_hour() > 0;
    const int group = priced ? 0 : ok ? 1 : c.status() == "infeasible" ? 2 : 3;
    double first = 0, second = 0;
    if (group == 0) {
      first = target_mode ? c.usd_per_hour() : c.usd_per_million_output_tokens();
      second = target_mode ? c.usd_per_million_output_tokens() : 0;
    } else if (group == 1) {
      first = c.gpus() > 0 ? -c.output_tokens_per_s() / c.gpus() : 0;
    }
    return std::make_tuple(group, first, second);
  };
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const PlanCandidate& a, const PlanCandidate& b) { return key(a) < key(b); });
  int32_t rank = 0;
  for (PlanCandidate& c : candidates) c.set_rank(c.status() == "ok" ? ++rank : 0);
}

}  // namespace infergrid::plan
