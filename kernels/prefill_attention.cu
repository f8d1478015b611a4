// Prefill attention on tensor cores (WMMA, 16x16x16 bf16/fp16 with fp32 accumulation) in the
// FlashAttention-2 pattern: one block of 4 warps per (64-query tile, query head, sequence),
// each warp 16 query rows; K and V tiles of 64 keys in shared memory; online softmax in fp32.
// Causal with a cached prefix: query i sits at position context + i and sees keys up to it.
// A straightforward kernel (no wgmma, no copy engine, no warp specialization), so its rates
// are a floor for what FlashAttention-3 reaches on Hopper; samples name it.
//
// Layouts: Q, output [batch][query_tokens][q_heads][128]; K, V
// [batch][context + query_tokens][kv_heads][128]; query head h reads KV head h / group.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <algorithm>
#include <cmath>

#include "kernels/attention_check.cuh"
#include "kernels/attention_reference.h"
#include "kernels/benchmarks.h"
#include "kernels/device_common.cuh"
#include "kernels/float_conversions.cuh"

namespace infergrid::calib {
namespace {

namespace wmma = nvcuda::wmma;

constexpr int kHeadDim = 128;
constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr int kRows = 16;  // query rows per warp
constexpr int kQTile = kWarps * kRows;  // 64
constexpr int kKTile = 64;
constexpr int kLdT = kHeadDim + 8;  // 16-bit smem rows (Q, K, V): 272 bytes
constexpr int kLdS = kKTile + 4;  // fp32 score scratch
constexpr int kLdO = kHeadDim + 4;  // fp32 PV scratch
constexpr int kLdP = kKTile + 8;  // 16-bit probabilities
constexpr int kTileBytes = kQTile * kLdT * 2;  // 17408
constexpr int kScratchBytes = kRows * (kLdO > kLdS ? kLdO : kLdS) * 4;  // 8448 per warp
constexpr int kPBytes = kRows * kLdP * 2;  // 2304 per warp
constexpr int kSmemBytes = 3 * kTileBytes + kWarps * (kScratchBytes + kPBytes);
constexpr const char* kKernelName = "infergrid-wmma-fa2-v1";

static_assert(kTileBytes % 128 == 0 && kScratchBytes % 128 == 0 && kPBytes % 128 == 0,
              "smem regions keep 128-byte alignment (wmma needs 32)");
static_assert(kKTile == kQTile, "tile loaders assume equal Q and KV tiles");

struct PrefillParams {
  const void* q;
  const void* k;
  const void* v;
  void* out;
  int query_tokens;
  int context_tokens;
  int q_heads;
  int kv_heads;
  int causal;
  float scale_log2;  // softmax scale * log2(e): exp2 of scaled logits
};

// Copies 64 rows of 128 elements (row r from src_row(r), or zeros where it returns nullptr)
// into smem with row stride kLdT; 16-byte accesses.
template <typename T, typename RowFn>
__device__ __forceinline__ void LoadTile(T* dst, RowFn src_row) {
  for (int idx = threadIdx.x; idx < kQTile * (kHeadDim / 8); idx += kThreads) {
    const int r = idx / (kHeadDim / 8);
    const int c = idx % (kHeadDim / 8);
    const T* src = src_row(r);
    uint4 val = make_uint4(0, 0, 0, 0);
    if (src != nullptr) val = *reinterpret_cast<const uint4*>(src + c * 8);
    *reinterpret_cast<uint4*>(dst + r * kLdT + c * 8) = val;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) PrefillKernel(const PrefillParams p) {
  extern __shared__ __align__(128) unsigned char smem[];
  T* q_s = reinterpret_cast<T*>(smem);
  T* k_s = reinterpret_cast<T*>(smem + kTileBytes);
  T* v_s = reinterpret_cast<T*>(smem + 2 * kTileBytes);
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  float* scratch = reinterpret_cast<float*>(smem + 3 * kTileBytes + warp * kScratchBytes);
  T* p_s = reinterpret_cast<T*>(smem + 3 * kTileBytes + kWarps * kScratchBytes + warp * kPBytes);

  const int q_start = blockIdx.x * kQTile;
  const int head = blockIdx.y;
  const int b = blockIdx.z;
  const int n = p.query_tokens;
  const int keys = p.context_tokens + n;
  const int kvh = head / (p.q_heads / p.kv_heads);
  const T* q = static_cast<const T*>(p.q);
  const T* k = static_cast<const T*>(p.k);
  const T* v = static_cast<const T*>(p.v);

  LoadTile(q_s, [&](int r) -> const T* {
    const int i = q_start + r;
    if (i >= n) return nullptr;
    return q + ((static_cast<size_t>(b) * n + i) * p.q_heads + head) * kHeadDim;
  });

  // Lane ownership for softmax and output: row lane/2 of the warp's 16, half lane%2 of it.
  const int row = lane / 2;
  const int half = lane % 2;
  const int pos = p.context_tokens + q_start + warp * kRows + row;  // absolute position
  float m_run = -INFINITY;
  float l_run = 0.0f;
  float o[kHeadDim / 2];
#pragma unroll
  for (int i = 0; i < kHeadDim / 2; ++i) o[i] = 0.0f;

  const int last_visible = p.context_tokens + min(n, q_start + kQTile);  // exclusive
  const int kt_end = p.causal ? min(keys, last_visible) : keys;
  for (int kt = 0; kt < kt_end; kt += kKTile) {
    __syncthreads();  // previous tiles fully consumed (and the Q tile written, first time)
    auto kv_row = [&](const T* base, int r) -> const T* {
      const int j = kt + r;
      if (j >= keys) return nullptr;
      return base + ((static_cast<size_t>(b) * keys + j) * p.kv_heads + kvh) * kHeadDim;
    };
    LoadTile(k_s, [&](int r) { return kv_row(k, r); });
    LoadTile(v_s, [&](int r) { return kv_row(v, r); });
    __syncthreads();

    // S = Q K^T for the warp's 16 rows and the tile's 64 keys.
    {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> s_acc[kKTile / 16];
#pragma unroll
      for (int c = 0; c < kKTile / 16; ++c) wmma::fill_fragment(s_acc[c], 0.0f);
#pragma unroll
      for (int kk = 0; kk < kHeadDim / 16; ++kk) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
        wmma::load_matrix_sync(a, q_s + warp * kRows * kLdT + kk * 16, kLdT);
#pragma unroll
        for (int c = 0; c < kKTile / 16; ++c) {
          wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> bk;
          wmma::load_matrix_sync(bk, k_s + c * 16 * kLdT + kk * 16, kLdT);
          wmma::mma_sync(s_acc[c], a, bk, s_acc[c]);
        }
      }
#pragma unroll
      for (int c = 0; c < kKTile / 16; ++c) {
        wmma::store_matrix_sync(scratch + c * 16, s_acc[c], kLdS, wmma::mem_row_major);
      }
    }
    __syncwarp();

    // Online softmax on the lane's 32 scores of its row.
    {
      float s[kKTile / 2];
      float tile_max = -INFINITY;
#pragma unroll
      for (int j = 0; j < kKTile / 2; ++j) {
        const int key = kt + half * (kKTile / 2) + j;
        const bool masked = key >= keys || (p.causal && key > pos);
        s[j] = masked ? -INFINITY : scratch[row * kLdS + half * (kKTile / 2) + j] * p.scale_log2;
        tile_max = fmaxf(tile_max, s[j]);
      }
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
      // Key 0 is in the first tile and visible to every row, so m_new is finite from there on.
      const float m_new = fmaxf(m_run, tile_max);
      const float alpha = exp2f(m_run - m_new);
      float tile_sum = 0.0f;
#pragma unroll
      for (int j = 0; j < kKTile / 2; ++j) {
        const float e = exp2f(s[j] - m_new);
        tile_sum += e;
        p_s[row * kLdP + half * (kKTile / 2) + j] = FromFloat1<T>(e);
      }
      tile_sum += __shfl_xor_sync(0xffffffffu, tile_sum, 1);
      l_run = l_run * alpha + tile_sum;
      m_run = m_new;
#pragma unroll
      for (int i = 0; i < kHeadDim / 2; ++i) o[i] *= alpha;
    }
    __syncwarp();

    // O += P V: 16 x 128 from 16 x 64 probabilities and the 64 x 128 V tile.
    {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> pa[kKTile / 16];
#pragma unroll
      for (int kk = 0; kk < kKTile / 16; ++kk) {
        wmma::load_matrix_sync(pa[kk], p_s + kk * 16, kLdP);
      }
#pragma unroll
      for (int c = 0; c < kHeadDim / 16; ++c) {
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> o_acc;
        wmma::fill_fragment(o_acc, 0.0f);
#pragma unroll
        for (int kk = 0; kk < kKTile / 16; ++kk) {
          wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> bv;
          wmma::load_matrix_sync(bv, v_s + kk * 16 * kLdT + c * 16, kLdT);
          wmma::mma_sync(o_acc, pa[kk], bv, o_acc);
        }
        wmma::store_matrix_sync(scratch + c * 16, o_acc, kLdO, wmma::mem_row_major);
      }
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < kHeadDim / 2; ++i) o[i] += scratch[row * kLdO + half * (kHeadDim / 2) + i];
    __syncwarp();
  }

  const int i_row = q_start + warp * kRows + row;
  if (i_row < n) {
    T* out = static_cast<T*>(p.out) + ((static_cast<size_t>(b) * n + i_row) * p.q_heads + head) * kHeadDim +
             half * (kHeadDim / 2);
    const float inv = 1.0f / l_run;
#pragma unroll
    for (int c = 0; c < kHeadDim / 2; c += 8) {
      uint4 packed;
      T* e = reinterpret_cast<T*>(&packed);
#pragma unroll
      for (int j = 0; j < 8; ++j) e[j] = FromFloat1<T>(o[c + j] * inv);
      *reinterpret_cast<uint4*>(out + c) = packed;
    }
  }
}

template <typename T>
void LaunchTyped(const PrefillParams& p, int batch, cudaStream_t stream) {
  static const bool configured = [] {
    CUDA_CHECK(cudaFuncSetAttribute(PrefillKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    return true;
  }();
  (void)configured;
  const dim3 grid(static_cast<unsigned>((p.query_tokens + kQTile - 1) / kQTile), static_cast<unsigned>(p.q_heads),
                  static_cast<unsigned>(batch));
  PrefillKernel<T><<<grid, kThreads, kSmemBytes, stream>>>(p);
  CHECK_LAUNCH();
}

void LaunchPrefill(DType dtype, const PrefillParams& p, int batch, cudaStream_t stream) {
  if (dtype == DType::kFp16) {
    LaunchTyped<__half>(p, batch, stream);
  } else {
    LaunchTyped<__nv_bfloat16>(p, batch, stream);
  }
}

PrefillParams MakeParams(const void* q, const void* k, const void* v, void* out, int64_t n, int64_t context,
                         int q_heads, int kv_heads, bool causal) {
  PrefillParams p{};
  p.q = q;
  p.k = k;
  p.v = v;
  p.out = out;
  p.query_tokens = static_cast<int>(n);
  p.context_tokens = static_cast<int>(context);
  p.q_heads = q_heads;
  p.kv_heads = kv_heads;
  p.causal = causal ? 1 : 0;
  p.scale_log2 = (1.0f / std::sqrt(static_cast<float>(kHeadDim))) * 1.4426950408889634f;
  return p;
}

}  // namespace

CorrectnessCheck CheckPrefillAttention(DType dtype, const BenchContext& ctx) {
  // 150 new tokens (three query tiles, the last partial) after 37 cached ones, GQA 2.
  const int batch = 2, n = 150, context = 37, q_heads = 4, kv_heads = 2;
  const int keys = context + n;
  const size_t q_elems = static_cast<size_t>(batch) * n * q_heads * kHeadDim;
  const size_t kv_elems = static_cast<size_t>(batch) * keys * kv_heads * kHeadDim;
  CorrectnessCheck check = NewAttentionCheck(std::string("prefill attention ") + DTypeName(dtype) +
                                             ", 150 tokens after 37, 4/2 heads, causal");
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceBuffer q(q_elems * 2), k(kv_elems * 2), v(kv_elems * 2), out(q_elems * 2);
  const AttentionTensors t{dtype, dtype, q_elems, kv_elems, q.get(), k.get(), v.get(), out.get()};
  FillCheckInputs(t, ctx.seed + 51, 1.0f, stream);
  LaunchPrefill(dtype, MakeParams(q.get(), k.get(), v.get(), out.get(), n, context, q_heads, kv_heads, true), batch,
                stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  PrefillProblem ref;
  ref.batch = batch;
  ref.query_tokens = n;
  ref.context_tokens = context;
  ref.q_heads = q_heads;
  ref.kv_heads = kv_heads;
  ref.head_dim = kHeadDim;
  ref.causal = true;
  ref.scale = 1.0f / std::sqrt(static_cast<float>(kHeadDim));
  ref.q = DownloadAsFloat(dtype, q.get(), q_elems);
  ref.k = DownloadAsFloat(dtype, k.get(), kv_elems);
  ref.v = DownloadAsFloat(dtype, v.get(), kv_elems);
  CompareWithReference(t, PrefillAttentionReference(ref), &check);
  CUDA_CHECK(cudaStreamDestroy(stream));
  return check;
}

std::vector<PrefillAttentionSample> RunPrefillSweep(const std::vector<PrefillConfig>& configs, const BenchContext& ctx,
                                                    std::vector<std::string>* notes) {
  std::vector<PrefillAttentionSample> out;
  if (configs.empty()) return out;
  size_t max_q = 0, max_kv = 0;
  for (const PrefillConfig& c : configs) {
    max_q = std::max(max_q, static_cast<size_t>(c.batch * c.query_tokens) * c.q_heads * c.head_dim);
    max_kv =
        std::max(max_kv, static_cast<size_t>(c.batch * (c.context_tokens + c.query_tokens)) * c.kv_heads * c.head_dim);
  }
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceBuffer q(max_q * 2), k(max_kv * 2), v(max_kv * 2), o(max_q * 2);
  L2Flusher flusher(ctx.flush_bytes, ctx.sm_count);
  FilledDType filled;
  ForEachConfigUntilDeadline("prefill", configs, ctx.deadline, notes, [&](size_t, const PrefillConfig& c) {
    if (c.head_dim != kHeadDim || c.q_heads % c.kv_heads != 0 || c.dtype == DType::kFp8E4M3) {
      notes->push_back(
          "prefill: configuration outside the kernel (head_dim 128, fp16/bf16) "
          "skipped");
      return;
    }
    if (filled.NeedsFill(c.dtype)) {
      FillUniform(c.dtype, q.get(), max_q, ctx.seed + 61, 1.0f, stream);
      FillUniform(c.dtype, k.get(), max_kv, ctx.seed + 62, 1.0f, stream);
      FillUniform(c.dtype, v.get(), max_kv, ctx.seed + 63, 1.0f, stream);
    }
    const PrefillParams p = MakeParams(q.get(), k.get(), v.get(), o.get(), c.query_tokens, c.context_tokens, c.q_heads,
                                       c.kv_heads, c.causal);
    auto run = [&] { LaunchPrefill(c.dtype, p, c.batch, stream); };
    PrefillAttentionSample s;
    s.batch = c.batch;
    s.query_tokens = c.query_tokens;
    s.context_tokens = c.context_tokens;
    s.q_heads = c.q_heads;
    s.kv_heads = c.kv_heads;
    s.head_dim = c.head_dim;
    s.causal = c.causal;
    s.dtype = c.dtype;
    s.timing = TimeRuns(stream, ctx.warmup, ctx.iterations, &flusher, run);
    s.flops = 4.0 * c.head_dim * c.q_heads * c.batch * AttendedPairs(c.query_tokens, c.context_tokens, c.causal);
    s.flops_per_second = s.flops / s.timing.median_seconds;
    const int64_t elem = DTypeBytes(c.dtype);
    s.moved_bytes = elem * c.batch * c.head_dim *
                    (2 * c.query_tokens * c.q_heads + 2 * (c.context_tokens + c.query_tokens) * c.kv_heads);
    s.kernel = kKernelName;
    out.push_back(s);
  });
  CUDA_CHECK(cudaStreamDestroy(stream));
  return out;
}

}  // namespace infergrid::calib
