// Plain C++ mirrors of calibration/measurements.proto, shared by the CUDA benchmarks (.cu) and
// the host code. The calibration binary carries no protobuf dependency (the GPU machine it runs
// on has no protobuf or Abseil development files), so textproto_writer.h renders these structs
// as `infergrid.Measurements` text; tests/kernels_test.cc parses that text with the real proto
// to keep the two in step. Field names and units follow the proto exactly.
#ifndef INFERGRID_KERNELS_MEASUREMENT_TYPES_H_
#define INFERGRID_KERNELS_MEASUREMENT_TYPES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace infergrid::calib {

// The subset of infergrid.DType (base/dtype.proto) the kernels use; written by name.
enum class DType { kFp16, kBf16, kFp8E4M3 };
const char* DTypeName(DType dtype);  // "FP16", "BF16", "FP8_E4M3"
int DTypeBytes(DType dtype);  // 2, 2, 1

struct Provenance {
  std::string gpu_name;
  std::string gpu_uuid;
  std::string driver_version;
  int32_t cuda_driver_api_version = 0;
  int32_t cuda_runtime_version = 0;
  int64_t cublaslt_version = 0;
  int32_t nccl_version = 0;
  int32_t compute_capability_major = 0;
  int32_t compute_capability_minor = 0;
  int32_t sm_count = 0;
  int64_t memory_total_mib = 0;
  int64_t l2_bytes = 0;
  int64_t shared_memory_per_sm_bytes = 0;
  int32_t memory_bus_width_bits = 0;
  double sm_clock_max_mhz = 0;
  double memory_clock_max_mhz = 0;
  double sm_clock_start_mhz = 0;
  double sm_clock_end_mhz = 0;
  double memory_clock_start_mhz = 0;
  double power_limit_watts = 0;
  int32_t gpu_count = 0;
  std::string date_utc;
  std::string tool_version;
  std::string host;
  std::string command_line;
  bool quick = false;
  double budget_seconds = 0;
  double wall_seconds = 0;
  std::vector<std::string> notes;
};

struct TimingStats {
  double median_seconds = 0;
  double min_seconds = 0;
  double max_seconds = 0;
  int32_t iterations = 0;
  bool l2_flushed = false;
};

// Median, min and max of `seconds` (which must be non-empty).
TimingStats Summarize(std::vector<double> seconds, bool l2_flushed);

enum class HbmKind { kCopy, kRead, kWrite };
const char* HbmKindName(HbmKind kind);  // "COPY", "READ", "WRITE"

struct HbmSample {
  HbmKind kind = HbmKind::kCopy;
  int64_t buffer_bytes = 0;
  int64_t moved_bytes = 0;
  TimingStats timing;
  double bytes_per_second = 0;
};

struct L2Sample {
  int64_t footprint_bytes = 0;
  int32_t passes = 0;
  int64_t moved_bytes = 0;
  TimingStats timing;
  double read_bytes_per_second = 0;
};

struct GemmSample {
  int64_t m = 0, n = 0, k = 0;
  DType dtype = DType::kBf16;
  DType output_dtype = DType::kBf16;
  std::string layout = "TN";
  TimingStats timing;
  double flops = 0;
  double flops_per_second = 0;
  int32_t algorithm_id = 0;
  int32_t tile_id = 0;
  int32_t stages_id = 0;
  int32_t splitk = 0;
  int64_t workspace_bytes = 0;
  bool fp8_fast_accum = false;
  int64_t min_moved_bytes = 0;
  std::vector<std::string> sources;
};

struct DecodeAttentionSample {
  int32_t batch = 0;
  int64_t context_tokens = 0;
  int32_t q_heads = 0, kv_heads = 0, head_dim = 0;
  DType kv_dtype = DType::kBf16;
  DType query_dtype = DType::kBf16;
  int32_t block_size_tokens = 0;
  TimingStats timing;
  int64_t kv_bytes = 0;
  int64_t moved_bytes = 0;
  double bytes_per_second = 0;
  double flops = 0;
  std::string kernel;
};

struct PrefillAttentionSample {
  int32_t batch = 0;
  int64_t query_tokens = 0;
  int64_t context_tokens = 0;
  int32_t q_heads = 0, kv_heads = 0, head_dim = 0;
  bool causal = true;
  DType dtype = DType::kBf16;
  TimingStats timing;
  double flops = 0;
  double flops_per_second = 0;
  int64_t moved_bytes = 0;
  std::string kernel;
};

enum class LaunchKind { kStreamLaunch, kSyncLaunch, kGraphReplay };
const char* LaunchKindName(LaunchKind kind);  // "STREAM_LAUNCH", "SYNC_LAUNCH", "GRAPH_REPLAY"

struct LaunchOverheadSample {
  LaunchKind kind = LaunchKind::kStreamLaunch;
  int32_t kernels_per_measurement = 0;
  TimingStats timing;
  double seconds_per_kernel = 0;
};

struct AllReduceSample {
  int64_t buffer_bytes = 0;
  int32_t ranks = 0;
  DType dtype = DType::kBf16;
  TimingStats timing;
  double algorithm_bytes_per_second = 0;
  double bus_bytes_per_second = 0;
};

struct CorrectnessCheck {
  std::string name;
  bool passed = false;
  double relative_error = 0;
  double tolerance = 0;
};

struct MeasurementSet {
  Provenance provenance;
  std::vector<CorrectnessCheck> checks;
  std::vector<HbmSample> hbm;
  std::vector<L2Sample> l2;
  std::vector<GemmSample> gemm;
  std::vector<DecodeAttentionSample> decode_attention;
  std::vector<PrefillAttentionSample> prefill_attention;
  std::vector<LaunchOverheadSample> launch_overhead;
  std::vector<AllReduceSample> all_reduce;
};

}  // namespace infergrid::calib

#endif  // INFERGRID_KERNELS_MEASUREMENT_TYPES_H_
