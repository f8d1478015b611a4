// Fixed per-kernel costs: back-to-back launches of an empty kernel (the host's launch rate),
// one launch plus synchronize (the round trip), and CUDA-graph replay of 1..1000 empty
// kernels (what engines that capture graphs pay per kernel).
#include <algorithm>
#include <chrono>

#include "kernels/benchmarks.h"
#include "kernels/device_common.cuh"

namespace infergrid::calib {
namespace {

__global__ void EmptyKernel() {}

void LaunchEmpty(cudaStream_t stream) {
  EmptyKernel<<<1, 32, 0, stream>>>();
  CHECK_LAUNCH();
}

}  // namespace

std::vector<LaunchOverheadSample> RunLaunchSweep(const std::vector<LaunchConfig>& configs, const BenchContext& ctx,
                                                 std::vector<std::string>* notes) {
  std::vector<LaunchOverheadSample> out;
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (size_t i = 0; i < configs.size(); ++i) {
    if (NowSeconds() > ctx.deadline) {
      notes->push_back(DeadlineNote("launch", i, configs.size()));
      break;
    }
    const LaunchConfig& c = configs[i];
    LaunchOverheadSample s;
    s.kind = c.kind;
    s.kernels_per_measurement = c.kernels_per_measurement;
    switch (c.kind) {
      case LaunchKind::kStreamLaunch: {
        s.timing = TimeRuns(stream, ctx.warmup, ctx.iterations, nullptr, [&] {
          for (int k = 0; k < c.kernels_per_measurement; ++k) LaunchEmpty(stream);
        });
        break;
      }
      case LaunchKind::kSyncLaunch: {
        // Host clock: the round trip includes the host's wait, which events cannot see.
        for (int w = 0; w < ctx.warmup; ++w) {
          LaunchEmpty(stream);
          CUDA_CHECK(cudaStreamSynchronize(stream));
        }
        std::vector<double> seconds;
        for (int it = 0; it < 10 * ctx.iterations; ++it) {
          const auto t0 = std::chrono::steady_clock::now();
          for (int k = 0; k < c.kernels_per_measurement; ++k) {
            LaunchEmpty(stream);
            CUDA_CHECK(cudaStreamSynchronize(stream));
          }
          seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        s.timing = Summarize(std::move(seconds), false);
        break;
      }
      case LaunchKind::kGraphReplay: {
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        for (int k = 0; k < c.kernels_per_measurement; ++k) LaunchEmpty(stream);
        CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        CUDA_CHECK(cudaGraphUpload(exec, stream));
        s.timing =
            TimeRuns(stream, ctx.warmup, ctx.iterations, nullptr, [&] { CUDA_CHECK(cudaGraphLaunch(exec, stream)); });
        CUDA_CHECK(cudaGraphExecDestroy(exec));
        CUDA_CHECK(cudaGraphDestroy(graph));
        break;
      }
    }
    s.seconds_per_kernel = s.timing.median_seconds / c.kernels_per_measurement;
    out.push_back(s);
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
  return out;
}

}  // namespace infergrid::calib
