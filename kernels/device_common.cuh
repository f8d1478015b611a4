// Device-side helpers shared by the benchmark .cu files: owned device buffers, the streaming
// kernels (also used to flush L2), a spin kernel, event timing of repeated runs, fills with
// deterministic random values (never zeros: METHOD.md, zeros run faster than data), and the
// walk of a sweep over its configurations up to the budget deadline.
#ifndef INFERGRID_KERNELS_DEVICE_COMMON_CUH_
#define INFERGRID_KERNELS_DEVICE_COMMON_CUH_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/benchmarks.h"
#include "kernels/cuda_check.h"
#include "kernels/measurement_types.h"

namespace infergrid::calib {

// A cudaMalloc'd buffer freed on destruction (plain allocations, never managed memory).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    if (bytes > 0) CUDA_CHECK(cudaMalloc(&ptr_, bytes));
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept : ptr_(other.ptr_), bytes_(other.bytes_) {
    other.ptr_ = nullptr;
    other.bytes_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      if (ptr_ != nullptr) cudaFree(ptr_);
      ptr_ = other.ptr_;
      bytes_ = other.bytes_;
      other.ptr_ = nullptr;
      other.bytes_ = 0;
    }
    return *this;
  }
  template <typename T = void>
  T* get() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// Streaming kernels over 16-byte vectors; grids sized from the occupancy of each kernel so a
// large buffer keeps every SM full, and never more blocks than there is work.
void LaunchCopy(const void* src, void* dst, size_t bytes, int sm_count, cudaStream_t stream);
void LaunchRead(const void* src, size_t bytes, uint32_t* sink, int sm_count, cudaStream_t stream);
void LaunchWrite(void* dst, size_t bytes, uint32_t seed, int sm_count, cudaStream_t stream);
// `passes` reads of [buf, buf + bytes) in one launch, through L2 only (ld.global.cg).
void LaunchReadPasses(const void* buf, size_t bytes, int passes, uint32_t* sink, int sm_count, cudaStream_t stream);

// Evicts the L2: writes, then reads, a buffer several times its size, so that the timed
// kernel starts with neither its data in L2 nor dirty lines waiting to be written back.
class L2Flusher {
 public:
  L2Flusher(int64_t bytes, int sm_count);
  void Flush(cudaStream_t stream);

 private:
  DeviceBuffer buffer_;
  DeviceBuffer sink_;
  int sm_count_;
  uint32_t seed_ = 1;
};

// Busy-waits `microseconds` on the GPU: queued before the start event of a warm run, it
// keeps the host's submission of the timed work off the measured interval.
void Spin(cudaStream_t stream, int microseconds);

// Times `run` (which enqueues work on `stream`): `warmup` untimed runs, then `iterations`
// runs each between two events, each preceded by an L2 flush (flusher != nullptr) or a spin.
TimingStats TimeRuns(cudaStream_t stream, int warmup, int iterations, L2Flusher* flusher,
                     const std::function<void()>& run);

// Fills `count` elements of `dtype` with scale * uniform[-1, 1) from HashIndex(seed, i).
void FillUniform(DType dtype, void* ptr, size_t count, uint64_t seed, float scale, cudaStream_t stream);
void FillUniformFloat(float* ptr, size_t count, uint64_t seed, float scale, cudaStream_t stream);

// Copies `count` elements of `dtype` back and decodes them to float (for CPU references).
std::vector<float> DownloadAsFloat(DType dtype, const void* ptr, size_t count);

// "section: deadline reached after k of n configurations" notes.
std::string DeadlineNote(const char* section, size_t done, size_t total);

// Calls measure(i, configs[i]) for each configuration in order until NowSeconds() passes
// `deadline`; then notes (DeadlineNote) how far `section` got and measures no more.
template <typename Config, typename Measure>
void ForEachConfigUntilDeadline(const char* section, const std::vector<Config>& configs, double deadline,
                                std::vector<std::string>* notes, Measure&& measure) {
  for (size_t i = 0; i < configs.size(); ++i) {
    if (NowSeconds() > deadline) {
      notes->push_back(DeadlineNote(section, i, configs.size()));
      return;
    }
    measure(i, configs[i]);
  }
}

// The dtype a sweep's input buffers hold: they are filled when a configuration needs a dtype
// they do not hold yet, not before every configuration (a fill covers the whole buffers,
// sized for the largest configuration).
class FilledDType {
 public:
  // True on the first call and whenever `dtype` differs from the previous call's: the caller
  // fills its buffers with `dtype` then.
  bool NeedsFill(DType dtype) {
    if (filled_ && dtype_ == dtype) return false;
    filled_ = true;
    dtype_ = dtype;
    return true;
  }

 private:
  bool filled_ = false;
  DType dtype_ = DType::kBf16;
};

}  // namespace infergrid::calib

#endif  // INFERGRID_KERNELS_DEVICE_COMMON_CUH_
