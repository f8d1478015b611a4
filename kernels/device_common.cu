#include "kernels/device_common.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cstring>

#include "kernels/float_conversions.cuh"
#include "kernels/numeric_formats.h"

namespace infergrid::calib {
namespace {

constexpr int kStreamThreads = 256;
constexpr int kUnroll = 4;  // independent 16-byte loads in flight per thread

__global__ void __launch_bounds__(kStreamThreads)
    CopyKernel(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t n) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = src[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) dst[i + u * stride] = v[u];
  }
  for (; i < n; i += stride) dst[i] = src[i];
}

__device__ __forceinline__ uint32_t Fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

// Reads everything; the XOR of all words is stored only if it equals `sentinel`, which the
// compiler cannot know, so no load is dropped and (almost) nothing is written.
__global__ void __launch_bounds__(kStreamThreads)
    ReadKernel(const uint4* __restrict__ src, size_t n, uint32_t sentinel, uint32_t* sink) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  uint32_t acc = 0;
  for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = src[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc ^= Fold(v[u]);
  }
  for (; i < n; i += stride) acc ^= Fold(src[i]);
  if (acc == sentinel) *sink = acc;
}

__global__ void __launch_bounds__(kStreamThreads) WriteKernel(uint4* __restrict__ dst, size_t n, uint32_t seed) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint32_t x = static_cast<uint32_t>(i) * 2654435761u + seed;
    dst[i] = make_uint4(x, x ^ 0x55555555u, x + seed, ~x);
  }
}

// Reads element e = (tid + j * stride) mod n for j = 0 .. passes * n / stride: `passes` full
// sweeps of the buffer. stride <= n (the grid is sized so), so one subtraction wraps.
__global__ void __launch_bounds__(kStreamThreads)
    ReadPassesKernel(const uint4* __restrict__ buf, size_t n, size_t total, uint32_t sentinel, uint32_t* sink) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t tid = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  size_t e = tid;
  uint32_t acc = 0;
  size_t j = tid;
  for (; j + (kUnroll - 1) * stride < total; j += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      v[u] = __ldcg(buf + e);
      e += stride;
      if (e >= n) e -= n;
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc ^= Fold(v[u]);
  }
  for (; j < total; j += stride) {
    acc ^= Fold(__ldcg(buf + e));
    e += stride;
    if (e >= n) e -= n;
  }
  if (acc == sentinel) *sink = acc;
}

// Bounded by an iteration count too, so a timer that does not advance cannot hang the run.
__global__ void SpinKernel(uint64_t nanoseconds) {
  uint64_t start;
  uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  int polls = 0;
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds && ++polls < (1 << 20));
}

template <typename T>
__global__ void FillKernel(T* __restrict__ out, size_t n, uint64_t seed, float scale) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = FromFloat1<T>(scale * UniformFromHash(HashIndex(seed, i)));
  }
}

template <typename Kernel>
int BlocksPerSm(Kernel kernel) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kStreamThreads, 0));
  return std::max(blocks, 1);
}

// Enough blocks for all the work (each thread kUnroll vectors), at most a full device.
unsigned StreamGrid(size_t vectors, int sm_count, int blocks_per_sm) {
  const size_t needed = (vectors + kStreamThreads * kUnroll - 1) / (kStreamThreads * kUnroll);
  const size_t full = static_cast<size_t>(sm_count) * blocks_per_sm;
  return static_cast<unsigned>(std::max<size_t>(1, std::min(needed, full)));
}

template <typename T>
void LaunchFill(T* ptr, size_t count, uint64_t seed, float scale, cudaStream_t stream) {
  if (count == 0) return;
  const size_t blocks = std::min<size_t>((count + 255) / 256, 65536);
  FillKernel<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(ptr, count, seed, scale);
  CHECK_LAUNCH();
}

}  // namespace

void LaunchCopy(const void* src, void* dst, size_t bytes, int sm_count, cudaStream_t stream) {
  static const int blocks_per_sm = BlocksPerSm(CopyKernel);
  const size_t n = bytes / sizeof(uint4);
  CopyKernel<<<StreamGrid(n, sm_count, blocks_per_sm), kStreamThreads, 0, stream>>>(static_cast<const uint4*>(src),
                                                                                    static_cast<uint4*>(dst), n);
  CHECK_LAUNCH();
}

void LaunchRead(const void* src, size_t bytes, uint32_t* sink, int sm_count, cudaStream_t stream) {
  static const int blocks_per_sm = BlocksPerSm(ReadKernel);
  const size_t n = bytes / sizeof(uint4);
  ReadKernel<<<StreamGrid(n, sm_count, blocks_per_sm), kStreamThreads, 0, stream>>>(static_cast<const uint4*>(src), n,
                                                                                    0x9E3779B9u, sink);
  CHECK_LAUNCH();
}

void LaunchWrite(void* dst, size_t bytes, uint32_t seed, int sm_count, cudaStream_t stream) {
  static const int blocks_per_sm = BlocksPerSm(WriteKernel);
  const size_t n = bytes / sizeof(uint4);
  // The write loop has no unroll; kUnroll in StreamGrid only thins the grid for small sizes.
  WriteKernel<<<StreamGrid(n, sm_count, blocks_per_sm), kStreamThreads, 0, stream>>>(static_cast<uint4*>(dst), n, seed);
  CHECK_LAUNCH();
}

void LaunchReadPasses(const void* buf, size_t bytes, int passes, uint32_t* sink, int sm_count, cudaStream_t stream) {
  static const int blocks_per_sm = BlocksPerSm(ReadPassesKernel);
  const size_t n = bytes / sizeof(uint4);
  // stride = grid * threads must not exceed n (see the kernel).
  const size_t full = static_cast<size_t>(sm_count) * blocks_per_sm;
  const size_t grid = std::max<size_t>(1, std::min(full, n / kStreamThreads));
  ReadPassesKernel<<<static_cast<unsigned>(grid), kStreamThreads, 0, stream>>>(
      static_cast<const uint4*>(buf), n, n * static_cast<size_t>(passes), 0x9E3779B9u, sink);
  CHECK_LAUNCH();
}

L2Flusher::L2Flusher(int64_t bytes, int sm_count)
    : buffer_(static_cast<size_t>(bytes)), sink_(sizeof(uint32_t)), sm_count_(sm_count) {}

void L2Flusher::Flush(cudaStream_t stream) {
  LaunchWrite(buffer_.get(), buffer_.bytes(), seed_++, sm_count_, stream);
  LaunchRead(buffer_.get(), buffer_.bytes(), sink_.get<uint32_t>(), sm_count_, stream);
}

void Spin(cudaStream_t stream, int microseconds) {
  SpinKernel<<<1, 1, 0, stream>>>(static_cast<uint64_t>(microseconds) * 1000);
  CHECK_LAUNCH();
}

TimingStats TimeRuns(cudaStream_t stream, int warmup, int iterations, L2Flusher* flusher,
                     const std::function<void()>& run) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < warmup; ++i) run();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> seconds;
  seconds.reserve(static_cast<size_t>(iterations));
  for (int i = 0; i < iterations; ++i) {
    if (flusher != nullptr) {
      flusher->Flush(stream);
    } else {
      Spin(stream, 20);
    }
    CUDA_CHECK(cudaEventRecord(start, stream));
    run();
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    seconds.push_back(static_cast<double>(ms) * 1e-3);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return Summarize(std::move(seconds), flusher != nullptr);
}

void FillUniform(DType dtype, void* ptr, size_t count, uint64_t seed, float scale, cudaStream_t stream) {
  switch (dtype) {
    case DType::kFp16: LaunchFill(static_cast<__half*>(ptr), count, seed, scale, stream); break;
    case DType::kBf16: LaunchFill(static_cast<__nv_bfloat16*>(ptr), count, seed, scale, stream); break;
    case DType::kFp8E4M3: LaunchFill(static_cast<__nv_fp8_e4m3*>(ptr), count, seed, scale, stream); break;
  }
}

void FillUniformFloat(float* ptr, size_t count, uint64_t seed, float scale, cudaStream_t stream) {
  LaunchFill(ptr, count, seed, scale, stream);
}

std::vector<float> DownloadAsFloat(DType dtype, const void* ptr, size_t count) {
  const size_t elem = static_cast<size_t>(DTypeBytes(dtype));
  std::vector<unsigned char> raw(count * elem);
  CUDA_CHECK(cudaMemcpy(raw.data(), ptr, raw.size(), cudaMemcpyDeviceToHost));
  std::vector<float> out(count);
  for (size_t i = 0; i < count; ++i) {
    if (dtype == DType::kFp8E4M3) {
      out[i] = Fp8E4M3ToFloat(raw[i]);
    } else {
      uint16_t bits;
      std::memcpy(&bits, raw.data() + 2 * i, 2);
      out[i] = dtype == DType::kBf16 ? Bf16ToFloat(bits) : Fp16ToFloat(bits);
    }
  }
  return out;
}

std::string DeadlineNote(const char* section, size_t done, size_t total) {
  return std::string(section) + ": budget deadline reached after " + std::to_string(done) + " of " +
         std::to_string(total) + " configurations; the rest were not measured";
}

}  // namespace infergrid::calib
