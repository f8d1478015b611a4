#include "kernels/measurement_types.h"

#include <algorithm>
#include <stdexcept>

namespace infergrid::calib {

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFp16: return "FP16";
    case DType::kBf16: return "BF16";
    case DType::kFp8E4M3: return "FP8_E4M3";
  }
  return "DTYPE_UNSPECIFIED";
}

int DTypeBytes(DType dtype) { return dtype == DType::kFp8E4M3 ? 1 : 2; }

const char* HbmKindName(HbmKind kind) {
  switch (kind) {
    case HbmKind::kCopy: return "COPY";
    case HbmKind::kRead: return "READ";
    case HbmKind::kWrite: return "WRITE";
  }
  return "KIND_UNSPECIFIED";
}

const char* LaunchKindName(LaunchKind kind) {
  switch (kind) {
    case LaunchKind::kStreamLaunch: return "STREAM_LAUNCH";
    case LaunchKind::kSyncLaunch: return "SYNC_LAUNCH";
    case LaunchKind::kGraphReplay: return "GRAPH_REPLAY";
  }
  return "KIND_UNSPECIFIED";
}

TimingStats Summarize(std::vector<double> seconds, bool l2_flushed) {
  if (seconds.empty()) throw std::invalid_argument("Summarize: no timings");
  std::sort(seconds.begin(), seconds.end());
  const size_t n = seconds.size();
  TimingStats stats;
  // Even counts take the mean of the two middle values.
  stats.median_seconds = n % 2 == 1 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
  stats.min_seconds = seconds.front();
  stats.max_seconds = seconds.back();
  stats.iterations = static_cast<int32_t>(n);
  stats.l2_flushed = l2_flushed;
  return stats;
}

}  // namespace infergrid::calib
