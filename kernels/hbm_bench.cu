// HBM streaming sweep (copy, read, write over buffer sizes, cold: L2 flushed before each timed
// run) and L2 working-set sweep (repeated L1-bypassing read passes over a footprint, warm).
#include <algorithm>

#include "kernels/benchmarks.h"
#include "kernels/device_common.cuh"

namespace infergrid::calib {

std::vector<HbmSample> RunHbmSweep(const std::vector<HbmConfig>& configs, const BenchContext& ctx,
                                   std::vector<std::string>* notes) {
  std::vector<HbmSample> out;
  if (configs.empty()) return out;
  int64_t max_bytes = 0;
  for (const HbmConfig& c : configs) max_bytes = std::max(max_bytes, c.buffer_bytes);
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceBuffer src(static_cast<size_t>(max_bytes));
  DeviceBuffer dst(static_cast<size_t>(max_bytes));
  DeviceBuffer sink(sizeof(uint32_t));
  L2Flusher flusher(ctx.flush_bytes, ctx.sm_count);
  // Random data in both buffers (the copy's destination too: untouched pages are real pages
  // after cudaMalloc, but written ones leave no doubt).
  FillUniform(DType::kBf16, src.get(), src.bytes() / 2, ctx.seed, 1.0f, stream);
  FillUniform(DType::kBf16, dst.get(), dst.bytes() / 2, ctx.seed + 1, 1.0f, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  for (size_t i = 0; i < configs.size(); ++i) {
    if (NowSeconds() > ctx.deadline) {
      notes->push_back(DeadlineNote("hbm", i, configs.size()));
      break;
    }
    const HbmConfig& c = configs[i];
    const size_t bytes = static_cast<size_t>(c.buffer_bytes);
    uint32_t seed = 7;
    std::function<void()> run;
    switch (c.kind) {
      case HbmKind::kCopy: run = [&] { LaunchCopy(src.get(), dst.get(), bytes, ctx.sm_count, stream); }; break;
      case HbmKind::kRead:
        run = [&] { LaunchRead(src.get(), bytes, sink.get<uint32_t>(), ctx.sm_count, stream); };
        break;
      case HbmKind::kWrite: run = [&] { LaunchWrite(dst.get(), bytes, seed++, ctx.sm_count, stream); }; break;
    }
    HbmSample s;
    s.kind = c.kind;
    s.buffer_bytes = c.buffer_bytes;
    s.moved_bytes = (c.kind == HbmKind::kCopy ? 2 : 1) * c.buffer_bytes;
    s.timing = TimeRuns(stream, ctx.warmup, ctx.iterations, &flusher, run);
    s.bytes_per_second = static_cast<double>(s.moved_bytes) / s.timing.median_seconds;
    out.push_back(s);
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  return out;
}

std::vector<L2Sample> RunL2Sweep(const std::vector<L2Config>& configs, const BenchContext& ctx,
                                 std::vector<std::string>* notes) {
  std::vector<L2Sample> out;
  if (configs.empty()) return out;
  int64_t max_bytes = 0;
  for (const L2Config& c : configs) max_bytes = std::max(max_bytes, c.footprint_bytes);
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceBuffer buf(static_cast<size_t>(max_bytes));
  DeviceBuffer sink(sizeof(uint32_t));
  FillUniform(DType::kBf16, buf.get(), buf.bytes() / 2, ctx.seed + 2, 1.0f, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  for (size_t i = 0; i < configs.size(); ++i) {
    if (NowSeconds() > ctx.deadline) {
      notes->push_back(DeadlineNote("l2", i, configs.size()));
      break;
    }
    const L2Config& c = configs[i];
    auto run = [&] {
      LaunchReadPasses(buf.get(), static_cast<size_t>(c.footprint_bytes), c.passes, sink.get<uint32_t>(), ctx.sm_count,
                       stream);
    };
    L2Sample s;
    s.footprint_bytes = c.footprint_bytes;
    s.passes = c.passes;
    s.moved_bytes = c.footprint_bytes * c.passes;
    // Warm: no flush, so the warm-up launch leaves whatever fits resident in L2.
    s.timing = TimeRuns(stream, std::max(ctx.warmup, 1), ctx.iterations, nullptr, run);
    s.read_bytes_per_second = static_cast<double>(s.moved_bytes) / s.timing.median_seconds;
    out.push_back(s);
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  return out;
}

}  // namespace infergrid::calib
