#include "hardware/launch_model.h"

#include <algorithm>

namespace infergrid {

double LaunchedSeconds(const IterationKernels& kernels, const double* kernel_seconds, LaunchMode launch,
                       const LaunchCosts& costs) {
  const Kernel* const first = kernels.begin();
  if (launch == LaunchMode::kGraph) {
    double total = 0;
    for (const Kernel* k = first; k != kernels.end(); ++k) {
      total += k->repeat * (kernel_seconds[k - first] + costs.graph_gap_s);
    }
    return total;
  }
  double host = 0, end = 0;
  bool in_piece = false;
  const auto run = [&](const Kernel& k, double seconds) {
    const bool attention = k.kind == KernelKind::kAttentionPrefill || k.kind == KernelKind::kAttentionDecode;
    // Eager, every kernel is launched by the host; piecewise, the attention kernels and the
    // first kernel of each piece (its graph's replay) are.
    const bool launched = launch == LaunchMode::kEager || attention || !in_piece;
    in_piece = launch == LaunchMode::kPiecewise && !attention;
    if (launched) {
      host += costs.eager_issue_s;
      end = std::max(end + costs.graph_gap_s, host) + seconds;
    } else {
      end += costs.graph_gap_s + seconds;
    }
  };
  const Kernel* body = first;
  while (body != kernels.end() && body->repeat <= 1) ++body;
  const Kernel* after = body;
  while (after != kernels.end() && after->repeat > 1) ++after;
  for (const Kernel* k = first; k != body; ++k) run(*k, kernel_seconds[k - first]);
  const int32_t layers = body != kernels.end() ? body->repeat : 0;
  for (int32_t l = 0; l < layers; ++l) {
    for (const Kernel* k = body; k != after; ++k) run(*k, kernel_seconds[k - first]);
  }
  for (const Kernel* k = after; k != kernels.end(); ++k) run(*k, kernel_seconds[k - first]);
  return end;
}

}  // namespace infergrid
