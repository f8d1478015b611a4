// GEMM sweep through cuBLASLt: D[M,N] = X[M,K] * W[N,K]^T in the "TN" layout fp8 requires on
// Hopper (A = W transposed, B = X, column-major D = row-major [M,N]); bf16 and fp8 e4m3
// inputs (fp8 with per-tensor scale pointers), bf16 output, fp32 accumulation; the
// heuristic's first algorithm; L2 flushed before each timed run (weights come from HBM in a
// real forward pass: every layer has its own).
#include <cublasLt.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kernels/attention_reference.h"
#include "kernels/benchmarks.h"
#include "kernels/device_common.cuh"

namespace infergrid::calib {
namespace {

constexpr size_t kWorkspaceBytes = size_t{32} << 20;

cudaDataType_t CudaType(DType dtype) {
  switch (dtype) {
    case DType::kFp16: return CUDA_R_16F;
    case DType::kBf16: return CUDA_R_16BF;
    case DType::kFp8E4M3: return CUDA_R_8F_E4M3;
  }
  return CUDA_R_16BF;
}

// One problem's descriptors; `ok` is false when cuBLASLt offers no algorithm for it.
class LtProblem {
 public:
  LtProblem(cublasLtHandle_t handle, int64_t m, int64_t n, int64_t k, DType dtype, const float* a_scale,
            const float* b_scale, size_t workspace_bytes)
      : handle_(handle), dtype_(dtype) {
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t trans_a = CUBLAS_OP_T;
    const cublasOperation_t trans_b = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof(trans_a)));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof(trans_b)));
    if (dtype == DType::kFp8E4M3) {
      CUBLAS_CHECK(
          cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof(a_scale)));
      CUBLAS_CHECK(
          cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof(b_scale)));
      const int8_t fast_accum = 1;  // as inference engines run fp8 GEMMs
      CUBLAS_CHECK(
          cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum, sizeof(fast_accum)));
    }
    // cuBLASLt is column-major: A = W as K x N (ld K, op T), B = X as K x M (ld K, op N),
    // C = D as N x M (ld N).
    const cudaDataType_t in = CudaType(dtype);
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&a_, in, static_cast<uint64_t>(k), static_cast<uint64_t>(n), k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&b_, in, static_cast<uint64_t>(k), static_cast<uint64_t>(m), k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&c_, CUDA_R_16BF, static_cast<uint64_t>(n), static_cast<uint64_t>(m), n));
    cublasLtMatmulPreference_t pref;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    const uint64_t ws = workspace_bytes;
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
    int count = 0;
    // NOT_SUPPORTED here means no algorithm for this shape/type: a note, not a failure.
    status_ = cublasLtMatmulAlgoGetHeuristic(handle_, desc_, a_, b_, c_, c_, pref, 1, &result_, &count);
    ok_ = status_ == CUBLAS_STATUS_SUCCESS && count > 0 && result_.state == CUBLAS_STATUS_SUCCESS;
    if (status_ != CUBLAS_STATUS_SUCCESS && status_ != CUBLAS_STATUS_NOT_SUPPORTED) {
      CUBLAS_CHECK(status_);
    }
    CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref));
  }
  ~LtProblem() {
    cublasLtMatrixLayoutDestroy(a_);
    cublasLtMatrixLayoutDestroy(b_);
    cublasLtMatrixLayoutDestroy(c_);
    cublasLtMatmulDescDestroy(desc_);
  }
  LtProblem(const LtProblem&) = delete;
  LtProblem& operator=(const LtProblem&) = delete;

  bool ok() const { return ok_; }
  cublasStatus_t status() const { return status_; }
  size_t workspace_bytes() const { return result_.workspaceSize; }
  bool fp8() const { return dtype_ == DType::kFp8E4M3; }

  void Run(const void* w, const void* x, void* d, void* workspace, size_t workspace_size, cudaStream_t stream) const {
    const float alpha = 1.0f;
    const float beta = 0.0f;
    CUBLAS_CHECK(cublasLtMatmul(handle_, desc_, &alpha, w, a_, x, b_, &beta, d, c_, d, c_, &result_.algo, workspace,
                                workspace_size, stream));
  }

  template <typename T>
  T AlgoConfig(cublasLtMatmulAlgoConfigAttributes_t attr) const {
    T value{};
    size_t written = 0;
    CUBLAS_CHECK(cublasLtMatmulAlgoConfigGetAttribute(&result_.algo, attr, &value, sizeof(value), &written));
    return value;
  }

 private:
  cublasLtHandle_t handle_;
  DType dtype_;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulHeuristicResult_t result_{};
  cublasStatus_t status_ = CUBLAS_STATUS_SUCCESS;
  bool ok_ = false;
};

std::string ShapeName(int64_t m, int64_t n, int64_t k, DType dtype) {
  return "M=" + std::to_string(m) + " N=" + std::to_string(n) + " K=" + std::to_string(k) + " " + DTypeName(dtype);
}

}  // namespace

CorrectnessCheck CheckGemm(DType dtype, const BenchContext& ctx) {
  // Odd M, N and K multiples of 16 (fp8 needs that), all different, so a transposed layout
  // cannot pass; scales 0.5 and 0.25 so an ignored scale pointer cannot pass either.
  const int64_t m = 40, n = 272, k = 528;
  CorrectnessCheck check;
  check.name = std::string("gemm ") + DTypeName(dtype) + " cuBLASLt TN " + ShapeName(m, n, k, dtype);
  check.tolerance = 1e-2;
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasLtHandle_t handle;
  CUBLAS_CHECK(cublasLtCreate(&handle));
  const size_t elem = static_cast<size_t>(DTypeBytes(dtype));
  DeviceBuffer x(m * k * elem), w(n * k * elem), d(m * n * 2), ws(kWorkspaceBytes);
  DeviceBuffer scales(2 * sizeof(float));
  const float host_scales[2] = {0.5f, 0.25f};
  CUDA_CHECK(cudaMemcpy(scales.get(), host_scales, sizeof(host_scales), cudaMemcpyHostToDevice));
  const float value_scale = dtype == DType::kFp8E4M3 ? 4.0f : 1.0f;
  FillUniform(dtype, x.get(), m * k, ctx.seed + 11, value_scale, stream);
  FillUniform(dtype, w.get(), n * k, ctx.seed + 12, value_scale, stream);
  CUDA_CHECK(cudaMemsetAsync(d.get(), 0xFF, d.bytes(), stream));  // NaN: unwritten shows
  LtProblem problem(handle, m, n, k, dtype, scales.get<float>(), scales.get<float>() + 1, kWorkspaceBytes);
  if (!problem.ok()) {
    check.passed = false;
    check.relative_error = INFINITY;
    check.name += " (no cuBLASLt algorithm)";
  } else {
    problem.Run(w.get(), x.get(), d.get(), ws.get(), kWorkspaceBytes, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::vector<float> hx = DownloadAsFloat(dtype, x.get(), m * k);
    const std::vector<float> hw = DownloadAsFloat(dtype, w.get(), n * k);
    const std::vector<float> hd = DownloadAsFloat(DType::kBf16, d.get(), m * n);
    const double scale = dtype == DType::kFp8E4M3 ? 0.5 * 0.25 : 1.0;
    std::vector<double> ref(static_cast<size_t>(m * n));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          acc += static_cast<double>(hx[i * k + kk]) * hw[j * k + kk];
        }
        ref[i * n + j] = acc * scale;  // D row-major [M, N]
      }
    }
    check.relative_error = RelativeError(hd, ref);
    check.passed = check.relative_error <= check.tolerance;
  }
  CUBLAS_CHECK(cublasLtDestroy(handle));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return check;
}

std::vector<GemmSample> RunGemmSweep(const std::vector<GemmConfig>& configs, const BenchContext& ctx,
                                     std::vector<std::string>* notes) {
  std::vector<GemmSample> out;
  if (configs.empty()) return out;
  size_t max_x = 0, max_w = 0, max_d = 0;
  for (const GemmConfig& c : configs) {
    const size_t elem = static_cast<size_t>(DTypeBytes(c.dtype));
    max_x = std::max(max_x, static_cast<size_t>(c.m * c.k) * elem);
    max_w = std::max(max_w, static_cast<size_t>(c.n * c.k) * elem);
    max_d = std::max(max_d, static_cast<size_t>(c.m * c.n) * 2);
  }
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasLtHandle_t handle;
  CUBLAS_CHECK(cublasLtCreate(&handle));
  DeviceBuffer x(max_x), w(max_w), d(max_d), ws(kWorkspaceBytes);
  DeviceBuffer scales(2 * sizeof(float));
  const float host_scales[2] = {1.0f, 1.0f};
  CUDA_CHECK(cudaMemcpy(scales.get(), host_scales, sizeof(host_scales), cudaMemcpyHostToDevice));
  L2Flusher flusher(ctx.flush_bytes, ctx.sm_count);

  bool filled = false;
  DType filled_dtype = DType::kBf16;
  int unsupported = 0;
  for (size_t i = 0; i < configs.size(); ++i) {
    if (NowSeconds() > ctx.deadline) {
      notes->push_back(DeadlineNote("gemm", i, configs.size()));
      break;
    }
    const GemmConfig& c = configs[i];
    if (!filled || filled_dtype != c.dtype) {
      // Random inputs over the whole buffers (fp8 values in [-4, 4), well inside e4m3).
      const size_t elem = static_cast<size_t>(DTypeBytes(c.dtype));
      const float value_scale = c.dtype == DType::kFp8E4M3 ? 4.0f : 1.0f;
      FillUniform(c.dtype, x.get(), max_x / elem, ctx.seed + 21, value_scale, stream);
      FillUniform(c.dtype, w.get(), max_w / elem, ctx.seed + 22, value_scale, stream);
      CUDA_CHECK(cudaStreamSynchronize(stream));
      filled = true;
      filled_dtype = c.dtype;
    }
    LtProblem problem(handle, c.m, c.n, c.k, c.dtype, scales.get<float>(), scales.get<float>() + 1, kWorkspaceBytes);
    if (!problem.ok()) {
      if (unsupported++ < 20) {
        notes->push_back("gemm: no cuBLASLt algorithm for " + ShapeName(c.m, c.n, c.k, c.dtype) + " (" +
                         CublasStatusName(problem.status()) + ")");
      }
      continue;
    }
    auto run = [&] { problem.Run(w.get(), x.get(), d.get(), ws.get(), kWorkspaceBytes, stream); };
    GemmSample s;
    s.m = c.m;
    s.n = c.n;
    s.k = c.k;
    s.dtype = c.dtype;
    s.output_dtype = DType::kBf16;
    s.layout = "TN";
    s.timing = TimeRuns(stream, ctx.warmup, ctx.iterations, &flusher, run);
    s.flops = 2.0 * static_cast<double>(c.m) * static_cast<double>(c.n) * static_cast<double>(c.k);
    s.flops_per_second = s.flops / s.timing.median_seconds;
    s.algorithm_id = problem.AlgoConfig<int32_t>(CUBLASLT_ALGO_CONFIG_ID);
    s.tile_id = static_cast<int32_t>(problem.AlgoConfig<uint32_t>(CUBLASLT_ALGO_CONFIG_TILE_ID));
    s.stages_id = static_cast<int32_t>(problem.AlgoConfig<uint32_t>(CUBLASLT_ALGO_CONFIG_STAGES_ID));
    s.splitk = problem.AlgoConfig<int32_t>(CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
    s.workspace_bytes = static_cast<int64_t>(problem.workspace_bytes());
    s.fp8_fast_accum = problem.fp8();
    const int64_t elem = DTypeBytes(c.dtype);
    s.min_moved_bytes = (c.m * c.k + c.n * c.k) * elem + c.m * c.n * 2;
    s.sources = c.sources;
    out.push_back(std::move(s));
  }
  if (unsupported > 20) {
    notes->push_back("gemm: " + std::to_string(unsupported) +
                     " configurations had no cuBLASLt algorithm (first 20 listed)");
  }
  CUBLAS_CHECK(cublasLtDestroy(handle));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return out;
}

}  // namespace infergrid::calib
