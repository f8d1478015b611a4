// The calibration benchmarks as plain C++ functions (implemented in the .cu files), so that
// calibrate_main.cc needs no CUDA headers. Each sweep runs its configurations in order, stops
// at `deadline` (steady-clock seconds, see NowSeconds) and says in *notes what it skipped;
// each Check* runs one kernel on a small problem against the CPU reference.
#ifndef INFERGRID_KERNELS_BENCHMARKS_H_
#define INFERGRID_KERNELS_BENCHMARKS_H_

#include <chrono>
#include <string>
#include <vector>

#include "kernels/measurement_types.h"
#include "kernels/sweep_plan.h"

namespace infergrid::calib {

inline double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// What every sweep needs to know about the device and its section of the plan.
struct BenchContext {
  int device = 0;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  int64_t flush_bytes = 0;  // size of the L2 flush buffer
  int warmup = 0;
  int iterations = 0;
  double deadline = 0;  // NowSeconds() after which the sweep stops
  uint64_t seed = 1;
};

// device_info.cu: opens the device (exits non-zero without one) and reads what it reports;
// NVML (dlopen'd, optional) adds the driver string, current clocks and the power limit.
Provenance ReadProvenance(int device);
// Current SM clock in MHz from NVML, 0 when unavailable.
double CurrentSmClockMhz(int device);
// Number of visible CUDA devices (0 when none or no driver), without exiting.
int VisibleDeviceCount();
// Whether this build has NCCL.
bool HaveNccl();

// hbm_bench.cu
std::vector<HbmSample> RunHbmSweep(const std::vector<HbmConfig>& configs, const BenchContext& ctx,
                                   std::vector<std::string>* notes);
std::vector<L2Sample> RunL2Sweep(const std::vector<L2Config>& configs, const BenchContext& ctx,
                                 std::vector<std::string>* notes);

// gemm_bench.cu
CorrectnessCheck CheckGemm(DType dtype, const BenchContext& ctx);
std::vector<GemmSample> RunGemmSweep(const std::vector<GemmConfig>& configs, const BenchContext& ctx,
                                     std::vector<std::string>* notes);

// decode_attention.cu
CorrectnessCheck CheckDecodeAttention(DType kv_dtype, int q_heads, int kv_heads, const BenchContext& ctx);
std::vector<DecodeAttentionSample> RunDecodeSweep(const std::vector<DecodeConfig>& configs, const BenchContext& ctx,
                                                  std::vector<std::string>* notes);

// prefill_attention.cu
CorrectnessCheck CheckPrefillAttention(DType dtype, const BenchContext& ctx);
std::vector<PrefillAttentionSample> RunPrefillSweep(const std::vector<PrefillConfig>& configs, const BenchContext& ctx,
                                                    std::vector<std::string>* notes);

// launch_bench.cu
std::vector<LaunchOverheadSample> RunLaunchSweep(const std::vector<LaunchConfig>& configs, const BenchContext& ctx,
                                                 std::vector<std::string>* notes);

// allreduce_bench.cu (returns nothing, with a note, when built without NCCL)
std::vector<AllReduceSample> RunAllReduceSweep(const std::vector<AllReduceConfig>& configs, const BenchContext& ctx,
                                               std::vector<std::string>* notes);

}  // namespace infergrid::calib

#endif  // INFERGRID_KERNELS_BENCHMARKS_H_
