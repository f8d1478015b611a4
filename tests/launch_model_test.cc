// hardware/launch_model.h: a kernel starts once the host has issued it (eager, piecewise and graph
// launches), and the layers' launches worked out once equal the kernel-by-kernel walk.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/launch_model.h"

namespace infergrid {
namespace {

// Eager, a kernel starts once the host has issued it: kernels longer than the issue time keep
// the GPU busy, shorter ones leave it waiting. One kernel before the layers, two per layer
// (the second an attention kernel), one after; 3 layers.
TEST(LaunchModel, KernelsWaitForTheirLaunch) {
  IterationKernels k;
  const auto add = [&](KernelKind kind, int32_t repeat) {
    Kernel& x = k.Add();
    x.kind = kind;
    x.repeat = repeat;
  };
  add(KernelKind::kEmbedding, 1);
  add(KernelKind::kGemm, 3);
  add(KernelKind::kAttentionDecode, 3);
  add(KernelKind::kSampler, 1);
  const double seconds[] = {1e-6, 20e-6, 2e-6, 1e-6};
  const LaunchCosts costs{0, 10e-6};
  EXPECT_DOUBLE_EQ(LaunchedSeconds(k, seconds, LaunchMode::kGraph, costs), 1e-6 + 3 * 22e-6 + 1e-6);
  // Issued at 10, 20, 30, ... us: the embedding ends at 11; GEMM 1 runs 20-40, attention 1
  // waits for nothing (issued at 30) and ends at 42; GEMM 2 42-62, attention 62-64, GEMM 3
  // 64-84, attention 84-86; the sampler, issued at 80, ends at 87.
  EXPECT_NEAR(LaunchedSeconds(k, seconds, LaunchMode::kEager, costs), 87e-6, 1e-12);
  // Piecewise: the host launches each piece and each attention kernel. The first piece holds
  // the embedding and GEMM 1 (10-31), attention 1 (issued at 20) 31-33, piece 2 33-53,
  // attention 53-55, piece 3 55-75, attention 75-77, the last piece (the sampler) 77-78.
  EXPECT_NEAR(LaunchedSeconds(k, seconds, LaunchMode::kPiecewise, costs), 78e-6, 1e-12);
  const double short_kernels[] = {1e-6, 1e-6, 1e-6, 1e-6};
  EXPECT_NEAR(LaunchedSeconds(k, short_kernels, LaunchMode::kEager, costs), 8 * 10e-6 + 1e-6, 1e-12);
}

// The launch model walked kernel by kernel through every layer, as its header defines it.
double LaunchedSecondsKernelByKernel(const IterationKernels& kernels, const double* seconds, LaunchMode launch,
                                     const LaunchCosts& costs) {
  double host = 0, end = 0;
  bool in_piece = false;
  const auto run = [&](const Kernel& k, double s) {
    const bool attention = k.kind == KernelKind::kAttentionPrefill || k.kind == KernelKind::kAttentionDecode;
    const bool launched = launch == LaunchMode::kEager || attention || !in_piece;
    in_piece = launch == LaunchMode::kPiecewise && !attention;
    if (launched) {
      host += costs.eager_issue_s;
      end = std::max(end + costs.graph_gap_s, host) + s;
    } else {
      end += costs.graph_gap_s + s;
    }
  };
  const Kernel* first = kernels.begin();
  const Kernel* body = first;
  while (body != kernels.end() && body->repeat <= 1) ++body;
  const Kernel* after = body;
  while (after != kernels.end() && after->repeat > 1) ++after;
  for (const Kernel* k = first; k != body; ++k) run(*k, seconds[k - first]);
  for (int32_t l = 0; body != kernels.end() && l < body->repeat; ++l) {
    for (const Kernel* k = body; k != after; ++k) run(*k, seconds[k - first]);
  }
  for (const Kernel* k = after; k != kernels.end(); ++k) run(*k, seconds[k - first]);
  return end;
}

// The layers' launches are worked out once per call; the result is the kernel-by-kernel walk's,
// bit for bit, for random lists (attention anywhere, pieces of any length, host- or GPU-bound).
TEST(LaunchModel, EqualsTheKernelByKernelWalk) {
  std::mt19937_64 rng(5);
  const KernelKind kinds[] = {KernelKind::kGemm, KernelKind::kAttentionDecode, KernelKind::kAttentionPrefill,
                              KernelKind::kNorm, KernelKind::kAllReduce};
  for (int trial = 0; trial < 2000; ++trial) {
    IterationKernels k;
    const int before = static_cast<int>(rng() % 3), layer = 1 + static_cast<int>(rng() % 12),
              after = static_cast<int>(rng() % 3);
    const auto layers = static_cast<int32_t>(2 + rng() % 40);
    std::vector<double> seconds;
    for (int i = 0; i < before + layer + after; ++i) {
      Kernel& x = k.Add();
      x.kind = kinds[rng() % 5];
      x.repeat = i >= before && i < before + layer ? layers : 1;
      seconds.push_back(std::ldexp(static_cast<double>(rng() % 1000 + 1), -20 - static_cast<int>(rng() % 8)));
    }
    const LaunchCosts costs{std::ldexp(static_cast<double>(rng() % 100), -30),
                            std::ldexp(static_cast<double>(rng() % 100 + 1), -22)};
    for (const LaunchMode mode : {LaunchMode::kEager, LaunchMode::kPiecewise}) {
      ASSERT_EQ(LaunchedSeconds(k, seconds.data(), mode, costs),
                LaunchedSecondsKernelByKernel(k, seconds.data(), mode, costs))
          << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace infergrid
