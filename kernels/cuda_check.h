// Checking every CUDA runtime, cuBLAS(Lt) and NCCL call: on failure print file:line, the call
// and the library's message, and exit non-zero (a calibration run with one failed call is
// not worth keeping). CHECK_LAUNCH() checks the last kernel launch the same way.
#ifndef INFERGRID_KERNELS_CUDA_CHECK_H_
#define INFERGRID_KERNELS_CUDA_CHECK_H_

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

namespace infergrid::calib {
// cublasGetStatusString lives in libcublas, which the binary does not link (only cuBLASLt).
template <typename Status>
const char* CublasStatusName(Status status) {
  switch (static_cast<int>(status)) {
    case 0: return "CUBLAS_STATUS_SUCCESS";
    case 1: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case 3: return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7: return "CUBLAS_STATUS_INVALID_VALUE";
    case 8: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case 11: return "CUBLAS_STATUS_MAPPING_ERROR";
    case 13: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case 16: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "unknown cuBLAS status";
  }
}
}  // namespace infergrid::calib

#define CUDA_CHECK(call)                                                                                              \
  do {                                                                                                                \
    const cudaError_t infergrid_err_ = (call);                                                                        \
    if (infergrid_err_ != cudaSuccess) {                                                                              \
      std::fprintf(stderr, "%s:%d: CUDA error %s (%s) in %s\n", __FILE__, __LINE__, cudaGetErrorName(infergrid_err_), \
                   cudaGetErrorString(infergrid_err_), #call);                                                        \
      std::exit(1);                                                                                                   \
    }                                                                                                                 \
  } while (0)

// After a <<<...>>> launch: launch-configuration errors now, execution errors at the next
// synchronizing call (also checked).
#define CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

#define CUBLAS_CHECK(call)                                                                                             \
  do {                                                                                                                 \
    const cublasStatus_t infergrid_st_ = (call);                                                                       \
    if (infergrid_st_ != CUBLAS_STATUS_SUCCESS) {                                                                      \
      std::fprintf(stderr, "%s:%d: cuBLAS error %d (%s) in %s\n", __FILE__, __LINE__, static_cast<int>(infergrid_st_), \
                   ::infergrid::calib::CublasStatusName(infergrid_st_), #call);                                        \
      std::exit(1);                                                                                                    \
    }                                                                                                                  \
  } while (0)

#define NCCL_CHECK(call)                                                                                             \
  do {                                                                                                               \
    const ncclResult_t infergrid_nr_ = (call);                                                                       \
    if (infergrid_nr_ != ncclSuccess) {                                                                              \
      std::fprintf(stderr, "%s:%d: NCCL error %d (%s) in %s\n", __FILE__, __LINE__, static_cast<int>(infergrid_nr_), \
                   ncclGetErrorString(infergrid_nr_), #call);                                                        \
      std::exit(1);                                                                                                  \
    }                                                                                                                \
  } while (0)

#endif  // INFERGRID_KERNELS_CUDA_CHECK_H_
