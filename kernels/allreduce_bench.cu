// NCCL all-reduce (bf16 sum, in place) over the first `ranks` GPUs of this host, one process
// driving all ranks (ncclCommInitAll). Each timed run is bracketed by events on every rank's
// stream; its time is the slowest rank's. Built only where NCCL was found.
#include <algorithm>

#include "kernels/benchmarks.h"
#include "kernels/device_common.cuh"

#if INFERGRID_HAVE_NCCL
#include <nccl.h>
#endif

namespace infergrid::calib {

#if INFERGRID_HAVE_NCCL

std::vector<AllReduceSample> RunAllReduceSweep(const std::vector<AllReduceConfig>& configs, const BenchContext& ctx,
                                               std::vector<std::string>* notes) {
  std::vector<AllReduceSample> out;
  if (configs.empty()) return out;
  int max_ranks = 0;
  int64_t max_bytes = 0;
  for (const AllReduceConfig& c : configs) {
    max_ranks = std::max(max_ranks, c.ranks);
    max_bytes = std::max(max_bytes, c.buffer_bytes);
  }
  std::vector<cudaStream_t> streams(static_cast<size_t>(max_ranks));
  std::vector<DeviceBuffer> buffers;
  std::vector<cudaEvent_t> starts(streams.size()), stops(streams.size());
  for (int r = 0; r < max_ranks; ++r) {
    CUDA_CHECK(cudaSetDevice(r));
    CUDA_CHECK(cudaStreamCreateWithFlags(&streams[r], cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&starts[r]));
    CUDA_CHECK(cudaEventCreate(&stops[r]));
    buffers.emplace_back(static_cast<size_t>(max_bytes));
    // Small values: repeated in-place sums of `ranks` copies stay finite in bf16.
    FillUniform(DType::kBf16, buffers.back().get(), static_cast<size_t>(max_bytes) / 2, ctx.seed + 71 + r, 1e-3f,
                streams[r]);
    CUDA_CHECK(cudaStreamSynchronize(streams[r]));
  }

  int current_ranks = 0;
  std::vector<ncclComm_t> comms;
  for (size_t i = 0; i < configs.size(); ++i) {
    if (NowSeconds() > ctx.deadline) {
      notes->push_back(DeadlineNote("allreduce", i, configs.size()));
      break;
    }
    const AllReduceConfig& c = configs[i];
    if (c.ranks != current_ranks) {
      for (ncclComm_t comm : comms) NCCL_CHECK(ncclCommDestroy(comm));
      comms.assign(static_cast<size_t>(c.ranks), nullptr);
      std::vector<int> devs(static_cast<size_t>(c.ranks));
      for (int r = 0; r < c.ranks; ++r) devs[r] = r;
      NCCL_CHECK(ncclCommInitAll(comms.data(), c.ranks, devs.data()));
      current_ranks = c.ranks;
    }
    const size_t count = static_cast<size_t>(c.buffer_bytes) / 2;
    auto all_reduce = [&] {
      NCCL_CHECK(ncclGroupStart());
      for (int r = 0; r < c.ranks; ++r) {
        NCCL_CHECK(
            ncclAllReduce(buffers[r].get(), buffers[r].get(), count, ncclBfloat16, ncclSum, comms[r], streams[r]));
      }
      NCCL_CHECK(ncclGroupEnd());
    };
    for (int w = 0; w < ctx.warmup; ++w) all_reduce();
    for (int r = 0; r < c.ranks; ++r) {
      CUDA_CHECK(cudaSetDevice(r));
      CUDA_CHECK(cudaStreamSynchronize(streams[r]));
    }
    std::vector<double> seconds;
    for (int it = 0; it < ctx.iterations; ++it) {
      for (int r = 0; r < c.ranks; ++r) {
        CUDA_CHECK(cudaSetDevice(r));
        CUDA_CHECK(cudaEventRecord(starts[r], streams[r]));
      }
      all_reduce();
      double slowest = 0;
      for (int r = 0; r < c.ranks; ++r) {
        CUDA_CHECK(cudaSetDevice(r));
        CUDA_CHECK(cudaEventRecord(stops[r], streams[r]));
      }
      for (int r = 0; r < c.ranks; ++r) {
        CUDA_CHECK(cudaSetDevice(r));
        CUDA_CHECK(cudaEventSynchronize(stops[r]));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, starts[r], stops[r]));
        slowest = std::max(slowest, static_cast<double>(ms) * 1e-3);
      }
      seconds.push_back(slowest);
    }
    AllReduceSample s;
    s.buffer_bytes = c.buffer_bytes;
    s.ranks = c.ranks;
    s.dtype = DType::kBf16;
    s.timing = Summarize(std::move(seconds), false);
    s.algorithm_bytes_per_second = static_cast<double>(c.buffer_bytes) / s.timing.median_seconds;
    s.bus_bytes_per_second = s.algorithm_bytes_per_second * 2.0 * (c.ranks - 1) / static_cast<double>(c.ranks);
    out.push_back(s);
  }
  for (ncclComm_t comm : comms) NCCL_CHECK(ncclCommDestroy(comm));
  for (int r = 0; r < max_ranks; ++r) {
    CUDA_CHECK(cudaSetDevice(r));
    CUDA_CHECK(cudaEventDestroy(starts[r]));
    CUDA_CHECK(cudaEventDestroy(stops[r]));
    CUDA_CHECK(cudaStreamDestroy(streams[r]));
  }
  for (int r = 0; r < max_ranks; ++r) {
    CUDA_CHECK(cudaSetDevice(r));
    buffers[r] = DeviceBuffer();  // free on its own device
  }
  CUDA_CHECK(cudaSetDevice(ctx.device));
  return out;
}

bool HaveNccl() { return true; }

#else  // !INFERGRID_HAVE_NCCL

std::vector<AllReduceSample> RunAllReduceSweep(const std::vector<AllReduceConfig>& configs, const BenchContext&,
                                               std::vector<std::string>* notes) {
  if (!configs.empty()) notes->push_back("allreduce: built without NCCL, not measured");
  return {};
}

bool HaveNccl() { return false; }

#endif

}  // namespace infergrid::calib
