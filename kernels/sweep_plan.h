// What the calibration sweep measures, how often, and how long that should take. The plan is
// pure host code: the binary prints it before touching the GPU (and `--plan-only` stops
// there), and the budget logic lives here so tests can check it without a GPU.
#ifndef INFERGRID_KERNELS_SWEEP_PLAN_H_
#define INFERGRID_KERNELS_SWEEP_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/measurement_types.h"

namespace infergrid::calib {

// Rates used only to estimate the sweep's duration (H200-like leads; the sweep measures the
// real ones). l2_bytes and gpu_count come from the device when one is present.
struct DeviceAssumptions {
  double hbm_bytes_per_s = 4.0e12;
  double l2_bytes_per_s = 8.0e12;
  double bf16_flops = 6.5e14;
  double fp8_flops = 1.1e15;
  double attention_flops = 1.2e14;  // our wmma prefill kernel, well under FlashAttention-3
  double run_overhead_s = 40e-6;  // host synchronization and event readout per timed run
  double launch_s = 6e-6;  // fixed cost added to each kernel estimate
  int64_t l2_bytes = 60 * (int64_t{1} << 20);
  int gpu_count = 1;
  bool have_nccl = false;
};

struct SweepOptions {
  bool quick = false;
  double budget_seconds = 540;
  // Sections to run; empty = all. Names: hbm, l2, gemm, decode, prefill, launch, allreduce.
  std::vector<std::string> sections;
};

struct HbmConfig {
  HbmKind kind;
  int64_t buffer_bytes;
};
struct L2Config {
  int64_t footprint_bytes;
  int32_t passes;
};
struct GemmConfig {
  int64_t m, n, k;
  DType dtype;
  std::vector<std::string> sources;
};
struct DecodeConfig {
  int32_t batch;
  int64_t context_tokens;
  int32_t q_heads, kv_heads, head_dim;
  DType kv_dtype;
  int32_t block_size_tokens;
};
struct PrefillConfig {
  int32_t batch;
  int64_t query_tokens, context_tokens;
  int32_t q_heads, kv_heads, head_dim;
  bool causal;
  DType dtype;
};
struct LaunchConfig {
  LaunchKind kind;
  int32_t kernels_per_measurement;
};
struct AllReduceConfig {
  int64_t buffer_bytes;
  int32_t ranks;
};

// Warm-up and timed runs per configuration of one section, and its estimated duration.
struct SectionPlan {
  std::string name;
  int configs = 0;
  int warmup = 0;
  int iterations = 0;
  double estimated_seconds = 0;
};

struct SweepPlan {
  std::vector<HbmConfig> hbm;
  std::vector<L2Config> l2;
  std::vector<GemmConfig> gemm;
  std::vector<DecodeConfig> decode;
  std::vector<PrefillConfig> prefill;
  std::vector<LaunchConfig> launch;
  std::vector<AllReduceConfig> all_reduce;
  std::vector<SectionPlan> sections;  // in run order, only the selected ones
  int64_t flush_bytes = 0;  // L2 flush buffer: max(4 x L2, 256 MiB)
  int64_t max_kv_cache_bytes = 0;  // decode configs above this are left out
  double fixed_overhead_seconds = 0;  // start-up, allocation, checks, heuristics
  double estimated_seconds = 0;  // sections + fixed overhead
  std::vector<std::string> notes;

  const SectionPlan* Section(const std::string& name) const;
};

// Section names in run order.
const std::vector<std::string>& AllSectionNames();

// Builds the plan; iterations are scaled down (never under the section minimum) when the
// estimate exceeds the budget, and a note says so. Returns an error message in *error for an
// unknown section name.
SweepPlan MakeSweepPlan(const SweepOptions& options, const DeviceAssumptions& device, std::string* error);

// Estimated seconds of one timed or warm-up run of each kind (kernel + flush + overhead).
double EstimateGemmRunSeconds(const GemmConfig& c, const DeviceAssumptions& d, bool flushed, int64_t flush_bytes);
double EstimateDecodeRunSeconds(const DecodeConfig& c, const DeviceAssumptions& d, int64_t flush_bytes);
double EstimatePrefillRunSeconds(const PrefillConfig& c, const DeviceAssumptions& d, int64_t flush_bytes);

// Bytes of K and V a decode config reads: 2 * batch * context * kv_heads * head_dim * size.
int64_t DecodeKvBytes(const DecodeConfig& c);

// A table of the sections (configs, warm-up, iterations, estimate) and the total.
std::string FormatPlan(const SweepPlan& plan, double budget_seconds);

}  // namespace infergrid::calib

#endif  // INFERGRID_KERNELS_SWEEP_PLAN_H_
