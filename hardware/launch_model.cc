#include "hardware/launch_model.h"

#include <algorithm>
#include <array>
#include <cstddef>

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
  // Eager, every kernel is launched by the host; piecewise, the attention kernels and the
  // first kernel of each piece (its graph's replay) are. That depends only on the kernel before.
  const auto launched_next = [&](const Kernel& k) {
    const bool attention = k.kind == KernelKind::kAttentionPrefill || k.kind == KernelKind::kAttentionDecode;
    const bool launched = launch == LaunchMode::kEager || attention || !in_piece;
    in_piece = launch == LaunchMode::kPiecewise && !attention;
    return launched;
  };
  // A kernel replayed within a piece adds gap + its time; a launched one waits for the host.
  const auto run = [&](bool launched, double seconds, double gap_and_seconds) {
    if (launched) {
      host += costs.eager_issue_s;
      end = std::max(end + costs.graph_gap_s, host) + seconds;
    } else {
      end += gap_and_seconds;
    }
  };
  const Kernel* body = first;
  while (body != kernels.end() && body->repeat <= 1) ++body;
  const Kernel* after = body;
  while (after != kernels.end() && after->repeat > 1) ++after;
  for (const Kernel* k = first; k != body; ++k) {
    const double seconds = kernel_seconds[k - first];
    run(launched_next(*k), seconds, costs.graph_gap_s + seconds);
  }
  // The layers repeat the same kernels: what each launches (the same from the second layer on)
  // and its gap + time are worked out once, not once per layer.
  const auto body_size = static_cast<size_t>(after - body);
  std::array<double, kMaxIterationKernels> seconds{}, gap_and_seconds{};
  std::array<bool, kMaxIterationKernels> launched_first{}, launched_later{};
  for (size_t j = 0; j < body_size; ++j) {
    seconds[j] = kernel_seconds[body - first + static_cast<std::ptrdiff_t>(j)];
    gap_and_seconds[j] = costs.graph_gap_s + seconds[j];
    launched_first[j] = launched_next(body[j]);
  }
  for (size_t j = 0; j < body_size; ++j) launched_later[j] = launched_next(body[j]);
  const int32_t layers = body != kernels.end() ? body->repeat : 0;
  for (int32_t l = 0; l < layers; ++l) {
    const std::array<bool, kMaxIterationKernels>& launched = l == 0 ? launched_first : launched_later;
    for (size_t j = 0; j < body_size; ++j) run(launched[j], seconds[j], gap_and_seconds[j]);
  }
  for (const Kernel* k = after; k != kernels.end(); ++k) {
    const double seconds_k = kernel_seconds[k - first];
    run(launched_next(*k), seconds_k, costs.graph_gap_s + seconds_k);
  }
  return end;
}

}  // namespace infergrid
