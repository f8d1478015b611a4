// Paged decode attention (one query token per sequence) with GQA and fp16/bf16/fp8 KV, in the
// style of vLLM's paged attention v2: the context is split into partitions of 512 tokens, one
// thread block per (partition, KV head, sequence) computes the logits of all the KV head's
// query heads into shared memory, their softmax, and the weighted V sum; a second kernel
// combines the partitions' partial results. Splitting keeps all SMs busy at batch 1 with long
// contexts, where one block per (sequence, KV head) would leave most of the chip idle.
//
// Layouts: Q and output [batch][q_heads][128] in the 16-bit query type; K and V caches
// [num_blocks][kv_heads][block_size][128]; block_table [batch][max_blocks_per_seq]; fp8 KV is
// dequantized with one scale per tensor (k_scale, v_scale).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "kernels/attention_check.cuh"
#include "kernels/attention_reference.h"
#include "kernels/benchmarks.h"
#include "kernels/device_common.cuh"
#include "kernels/float_conversions.cuh"

namespace infergrid::calib {
namespace {

constexpr int kHeadDim = 128;
constexpr int kMaxGroup = 8;  // query heads per KV head (GQA group) supported
constexpr int kPartitionTokens = 512;
constexpr int kThreads = 256;  // 8 warps, 16 half-warps
constexpr int kLanesPerToken = 16;  // a half-warp reads one token's 128-element row
constexpr int kElems = kHeadDim / kLanesPerToken;  // 8 elements per lane
constexpr int kTokensPerStep = kThreads / kLanesPerToken;  // 16
constexpr int kUnroll = 4;  // token steps whose loads are in flight together
constexpr const char* kKernelName = "infergrid-paged-split512-v1";

static_assert(kMaxGroup <= kThreads / 32, "one warp per query head in the softmax");

// Raw 8-element loads and their conversion to float, per KV type: fp16 and bf16 here, as four
// packed pairs; fp8 below.
template <typename KvT>
struct KvTraits {
  using Raw = uint4;  // 8 x 16 bit
  __device__ static void ToFloat(const Raw& raw, float (&f)[kElems]) {
    using Pair = typename PackedPair<KvT>::Type;
    const Pair* h = reinterpret_cast<const Pair*>(&raw);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 t = ToFloat2(h[i]);
      f[2 * i] = t.x;
      f[2 * i + 1] = t.y;
    }
  }
};

template <>
struct KvTraits<__nv_fp8_e4m3> {
  using Raw = uint2;  // 8 x 8 bit
  __device__ static void ToFloat(const Raw& raw, float (&f)[kElems]) {
    const __nv_fp8x2_storage_t* pairs = reinterpret_cast<const __nv_fp8x2_storage_t*>(&raw);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const __half2 h = __half2(__nv_cvt_fp8x2_to_halfraw2(pairs[i], __NV_E4M3));
      const float2 t = __half22float2(h);
      f[2 * i] = t.x;
      f[2 * i + 1] = t.y;
    }
  }
};

struct DecodeParams {
  const void* q;
  const void* k_cache;
  const void* v_cache;
  const int32_t* block_table;
  const int32_t* context_lens;
  void* out;
  float* part_acc;  // [batch][q_heads][max_parts][128], unnormalized, V scale applied
  float* part_max;  // [batch][q_heads][max_parts]
  float* part_sum;  // [batch][q_heads][max_parts]
  int q_heads;
  int kv_heads;
  int block_shift;  // log2(block size)
  int max_blocks_per_seq;
  int max_parts;
  float qk_scale;  // softmax scale * k_scale
  float v_scale;
};

template <typename KvT>
__device__ __forceinline__ const KvT* KvRow(const KvT* cache, const int32_t* table, const DecodeParams& p, int kvh,
                                            int token, int lane16) {
  const int32_t block = table[token >> p.block_shift];
  const int offset = token & ((1 << p.block_shift) - 1);
  const size_t row =
      (static_cast<size_t>(block) * p.kv_heads + kvh) * (size_t{1} << p.block_shift) + static_cast<size_t>(offset);
  return cache + row * kHeadDim + lane16 * kElems;
}

template <typename KvT, typename QT>
__global__ void __launch_bounds__(kThreads) DecodePartitionKernel(const DecodeParams p) {
  using Traits = KvTraits<KvT>;
  using Raw = typename Traits::Raw;
  const int part = blockIdx.x;
  const int kvh = blockIdx.y;
  const int seq = blockIdx.z;
  const int ctx = p.context_lens[seq];
  const int t_begin = part * kPartitionTokens;
  if (t_begin >= ctx) return;
  const int n_tok = min(ctx - t_begin, kPartitionTokens);
  const int num_parts = (ctx + kPartitionTokens - 1) / kPartitionTokens;
  const int group = p.q_heads / p.kv_heads;

  __shared__ float q_s[kMaxGroup][kHeadDim];
  __shared__ float logits[kMaxGroup][kPartitionTokens];
  __shared__ float acc_s[kMaxGroup][kHeadDim];
  __shared__ float max_s[kMaxGroup];
  __shared__ float sum_s[kMaxGroup];

  const QT* q = static_cast<const QT*>(p.q) +
                (static_cast<size_t>(seq) * p.q_heads + static_cast<size_t>(kvh) * group) * kHeadDim;
  for (int i = threadIdx.x; i < group * kHeadDim; i += kThreads) {
    q_s[i / kHeadDim][i % kHeadDim] = ToFloat1<QT>(q[i]) * p.qk_scale;
    acc_s[i / kHeadDim][i % kHeadDim] = 0.0f;
  }
  __syncthreads();

  const int hw = threadIdx.x / kLanesPerToken;
  const int lane16 = threadIdx.x % kLanesPerToken;
  const int32_t* table = p.block_table + static_cast<size_t>(seq) * p.max_blocks_per_seq;
  const KvT* k_cache = static_cast<const KvT*>(p.k_cache);
  const KvT* v_cache = static_cast<const KvT*>(p.v_cache);
  // The raw rows of kUnroll token steps from `cache` (zeros past the partition's end), loaded
  // together so that all of them are in flight at once.
  auto load_rows = [&](const KvT* cache, int base, Raw(&raw)[kUnroll]) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int t = base + u * kTokensPerStep + hw;
      raw[u] = t < n_tok ? *reinterpret_cast<const Raw*>(KvRow(cache, table, p, kvh, t_begin + t, lane16)) : Raw{};
    }
  };

  // Phase 1: logits[g][t] = q_g . k_t for the partition's tokens.
  {
    float qr[kMaxGroup][kElems];
#pragma unroll
    for (int g = 0; g < kMaxGroup; ++g) {
#pragma unroll
      for (int i = 0; i < kElems; ++i) qr[g][i] = g < group ? q_s[g][lane16 * kElems + i] : 0.0f;
    }
    for (int base = 0; base < n_tok; base += kTokensPerStep * kUnroll) {
      Raw raw[kUnroll];
      load_rows(k_cache, base, raw);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int t = base + u * kTokensPerStep + hw;
        float kf[kElems];
        Traits::ToFloat(raw[u], kf);
#pragma unroll
        for (int g = 0; g < kMaxGroup; ++g) {
          if (g < group) {  // uniform across the block: the shuffles below see all lanes
            float dot = 0.0f;
#pragma unroll
            for (int i = 0; i < kElems; ++i) dot = fmaf(qr[g][i], kf[i], dot);
#pragma unroll
            for (int offset = kLanesPerToken / 2; offset > 0; offset /= 2) {
              dot += __shfl_xor_sync(0xffffffffu, dot, offset);
            }
            if (lane16 == 0 && t < n_tok) logits[g][t] = dot;
          }
        }
      }
    }
  }
  __syncthreads();

  // Softmax over the partition, one warp per query head; logits become exp(l - max).
  {
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (warp < group) {
      float m = -INFINITY;
      for (int t = lane; t < n_tok; t += 32) m = fmaxf(m, logits[warp][t]);
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) {
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
      }
      float s = 0.0f;
      for (int t = lane; t < n_tok; t += 32) {
        const float e = __expf(logits[warp][t] - m);
        logits[warp][t] = e;
        s += e;
      }
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
      if (lane == 0) {
        max_s[warp] = m;
        sum_s[warp] = s;
      }
    }
  }
  __syncthreads();

  // Phase 2: acc[g][d] = sum_t p[g][t] * v_t[d].
  {
    float acc[kMaxGroup][kElems];
#pragma unroll
    for (int g = 0; g < kMaxGroup; ++g) {
#pragma unroll
      for (int i = 0; i < kElems; ++i) acc[g][i] = 0.0f;
    }
    for (int base = 0; base < n_tok; base += kTokensPerStep * kUnroll) {
      Raw raw[kUnroll];
      load_rows(v_cache, base, raw);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int t = base + u * kTokensPerStep + hw;
        if (t < n_tok) {
          float vf[kElems];
          Traits::ToFloat(raw[u], vf);
#pragma unroll
          for (int g = 0; g < kMaxGroup; ++g) {
            if (g < group) {
              const float w = logits[g][t];
#pragma unroll
              for (int i = 0; i < kElems; ++i) acc[g][i] = fmaf(w, vf[i], acc[g][i]);
            }
          }
        }
      }
    }
#pragma unroll
    for (int g = 0; g < kMaxGroup; ++g) {
      if (g < group) {
#pragma unroll
        for (int i = 0; i < kElems; ++i) atomicAdd(&acc_s[g][lane16 * kElems + i], acc[g][i]);
      }
    }
  }
  __syncthreads();

  const size_t head0 = static_cast<size_t>(seq) * p.q_heads + static_cast<size_t>(kvh) * group;
  if (num_parts == 1) {
    QT* out = static_cast<QT*>(p.out) + head0 * kHeadDim;
    for (int i = threadIdx.x; i < group * kHeadDim; i += kThreads) {
      const int g = i / kHeadDim;
      out[i] = FromFloat1<QT>(acc_s[g][i % kHeadDim] * p.v_scale / sum_s[g]);
    }
  } else {
    for (int i = threadIdx.x; i < group * kHeadDim; i += kThreads) {
      const int g = i / kHeadDim;
      const size_t slot = (head0 + g) * p.max_parts + part;
      p.part_acc[slot * kHeadDim + i % kHeadDim] = acc_s[g][i % kHeadDim] * p.v_scale;
    }
    if (threadIdx.x < group) {
      const size_t slot = (head0 + threadIdx.x) * p.max_parts + part;
      p.part_max[slot] = max_s[threadIdx.x];
      p.part_sum[slot] = sum_s[threadIdx.x];
    }
  }
}

// Combines the partitions of one (query head, sequence): out = sum_p acc_p e^(m_p - M) /
// sum_p sum_p e^(m_p - M), M = max_p m_p. Sequences with one partition were written directly.
template <typename QT>
__global__ void __launch_bounds__(kHeadDim) DecodeReduceKernel(const DecodeParams p) {
  const int head = blockIdx.x;
  const int seq = blockIdx.y;
  const int ctx = p.context_lens[seq];
  const int num_parts = (ctx + kPartitionTokens - 1) / kPartitionTokens;
  if (num_parts <= 1) return;
  const size_t base = (static_cast<size_t>(seq) * p.q_heads + head) * p.max_parts;
  float m = -INFINITY;
  for (int i = 0; i < num_parts; ++i) m = fmaxf(m, p.part_max[base + i]);
  float total = 0.0f;
  float acc = 0.0f;
  for (int i = 0; i < num_parts; ++i) {
    const float w = __expf(p.part_max[base + i] - m);
    total = fmaf(p.part_sum[base + i], w, total);
    acc = fmaf(p.part_acc[(base + i) * kHeadDim + threadIdx.x], w, acc);
  }
  QT* out = static_cast<QT*>(p.out) + (static_cast<size_t>(seq) * p.q_heads + head) * kHeadDim;
  out[threadIdx.x] = FromFloat1<QT>(acc / total);
}

DType QueryType(DType kv_dtype) { return kv_dtype == DType::kFp16 ? DType::kFp16 : DType::kBf16; }

template <typename KvT, typename QT>
void LaunchTyped(const DecodeParams& p, int batch, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(p.max_parts), static_cast<unsigned>(p.kv_heads), static_cast<unsigned>(batch));
  DecodePartitionKernel<KvT, QT><<<grid, kThreads, 0, stream>>>(p);
  CHECK_LAUNCH();
  const dim3 reduce_grid(static_cast<unsigned>(p.q_heads), static_cast<unsigned>(batch));
  DecodeReduceKernel<QT><<<reduce_grid, kHeadDim, 0, stream>>>(p);
  CHECK_LAUNCH();
}

void LaunchDecode(DType kv_dtype, const DecodeParams& p, int batch, cudaStream_t stream) {
  switch (kv_dtype) {
    case DType::kFp16: LaunchTyped<__half, __half>(p, batch, stream); break;
    case DType::kBf16: LaunchTyped<__nv_bfloat16, __nv_bfloat16>(p, batch, stream); break;
    case DType::kFp8E4M3: LaunchTyped<__nv_fp8_e4m3, __nv_bfloat16>(p, batch, stream); break;
  }
}

int Log2(int x) {
  int s = 0;
  while ((1 << s) < x) ++s;
  return s;
}

// Device buffers of one decode problem size: Q and the output of q_bytes each, K and V of
// kv_bytes each, table_entries block-table entries, `sequences` context lengths and `slots`
// partition results (sequence x query head x partition). The block table is a random
// permutation of physical blocks (UploadTable), so consecutive logical blocks are not adjacent
// in memory (as in a real paged cache after some churn).
struct DecodeBuffers {
  DecodeBuffers(size_t q_bytes, size_t kv_bytes, size_t table_entries, size_t sequences, size_t slots)
      : q(q_bytes),
        out(q_bytes),
        k(kv_bytes),
        v(kv_bytes),
        table(table_entries * sizeof(int32_t)),
        lens(sequences * sizeof(int32_t)),
        part_acc(slots * kHeadDim * sizeof(float)),
        part_max(slots * sizeof(float)),
        part_sum(slots * sizeof(float)) {}
  DeviceBuffer q, out, k, v, table, lens, part_acc, part_max, part_sum;
};

void UploadTable(const std::vector<int32_t>& contexts, int block_size, int max_blocks_per_seq, int64_t num_blocks,
                 uint64_t seed, DeviceBuffer& table, DeviceBuffer& lens) {
  std::vector<int32_t> physical(static_cast<size_t>(num_blocks));
  std::iota(physical.begin(), physical.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(physical.begin(), physical.end(), rng);
  std::vector<int32_t> host(contexts.size() * static_cast<size_t>(max_blocks_per_seq), 0);
  size_t next = 0;
  for (size_t s = 0; s < contexts.size(); ++s) {
    const int blocks = (contexts[s] + block_size - 1) / block_size;
    for (int b = 0; b < blocks; ++b) {
      host[s * static_cast<size_t>(max_blocks_per_seq) + static_cast<size_t>(b)] = physical[next++];
    }
  }
  CUDA_CHECK(cudaMemcpy(table.get(), host.data(), host.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(lens.get(), contexts.data(), contexts.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
}

float SoftmaxScale() { return 1.0f / std::sqrt(static_cast<float>(kHeadDim)); }

// fp8 KV is filled with values in [-4, 4) (KvValueScale) and read with k_scale = v_scale = 1/4
// (KvScale): dequantized K and V lie in [-1, 1) like the 16-bit ones.
float KvValueScale(DType kv_dtype) { return kv_dtype == DType::kFp8E4M3 ? 4.0f : 1.0f; }
float KvScale(DType kv_dtype) { return kv_dtype == DType::kFp8E4M3 ? 0.25f : 1.0f; }

DecodeParams MakeParams(const DecodeBuffers& b, int q_heads, int kv_heads, int block_size, int max_blocks_per_seq,
                        int max_parts, float kv_scale) {
  DecodeParams p{};
  p.q = b.q.get();
  p.k_cache = b.k.get();
  p.v_cache = b.v.get();
  p.block_table = b.table.get<int32_t>();
  p.context_lens = b.lens.get<int32_t>();
  p.out = b.out.get();
  p.part_acc = b.part_acc.get<float>();
  p.part_max = b.part_max.get<float>();
  p.part_sum = b.part_sum.get<float>();
  p.q_heads = q_heads;
  p.kv_heads = kv_heads;
  p.block_shift = Log2(block_size);
  p.max_blocks_per_seq = max_blocks_per_seq;
  p.max_parts = max_parts;
  p.qk_scale = SoftmaxScale() * kv_scale;
  p.v_scale = kv_scale;
  return p;
}

}  // namespace

CorrectnessCheck CheckDecodeAttention(DType kv_dtype, int q_heads, int kv_heads, const BenchContext& ctx) {
  // Three sequences of 1, 700 and 1500 tokens: one, two and three partitions, partial last
  // blocks and partitions; KV blocks shuffled.
  const std::vector<int32_t> contexts = {1, 700, 1500};
  const int batch = static_cast<int>(contexts.size());
  const int block_size = 16;
  const int max_ctx = *std::max_element(contexts.begin(), contexts.end());
  const int max_blocks = (max_ctx + block_size - 1) / block_size;
  const int max_parts = (max_ctx + kPartitionTokens - 1) / kPartitionTokens;
  int64_t num_blocks = 0;
  for (int32_t c : contexts) num_blocks += (c + block_size - 1) / block_size;
  const DType q_dtype = QueryType(kv_dtype);
  const size_t kv_elems = static_cast<size_t>(num_blocks) * kv_heads * block_size * kHeadDim;
  const size_t q_elems = static_cast<size_t>(batch) * q_heads * kHeadDim;
  const size_t slots = static_cast<size_t>(batch) * q_heads * max_parts;

  CorrectnessCheck check =
      NewAttentionCheck(std::string("decode attention ") + DTypeName(kv_dtype) + " KV, " + std::to_string(q_heads) +
                        "/" + std::to_string(kv_heads) + " heads, contexts 1/700/1500, block 16");
  if (q_heads % kv_heads != 0 || q_heads / kv_heads > kMaxGroup) {
    check.name += " (unsupported GQA group)";
    return check;
  }
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DecodeBuffers b(q_elems * 2, kv_elems * static_cast<size_t>(DTypeBytes(kv_dtype)),
                  static_cast<size_t>(batch) * max_blocks, static_cast<size_t>(batch), slots);
  const AttentionTensors t{q_dtype, kv_dtype, q_elems, kv_elems, b.q.get(), b.k.get(), b.v.get(), b.out.get()};
  FillCheckInputs(t, ctx.seed + 31, KvValueScale(kv_dtype), stream);
  UploadTable(contexts, block_size, max_blocks, num_blocks, ctx.seed + 34, b.table, b.lens);
  const float kv_scale = KvScale(kv_dtype);
  LaunchDecode(kv_dtype, MakeParams(b, q_heads, kv_heads, block_size, max_blocks, max_parts, kv_scale), batch, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));

  PagedDecodeProblem ref;
  ref.batch = batch;
  ref.q_heads = q_heads;
  ref.kv_heads = kv_heads;
  ref.head_dim = kHeadDim;
  ref.block_size = block_size;
  ref.max_blocks_per_seq = max_blocks;
  ref.scale = SoftmaxScale();
  ref.q = DownloadAsFloat(q_dtype, b.q.get(), q_elems);
  ref.k_cache = DownloadAsFloat(kv_dtype, b.k.get(), kv_elems);
  ref.v_cache = DownloadAsFloat(kv_dtype, b.v.get(), kv_elems);
  for (float& x : ref.k_cache) x *= kv_scale;
  for (float& x : ref.v_cache) x *= kv_scale;
  ref.block_table.resize(static_cast<size_t>(batch) * max_blocks);
  CUDA_CHECK(cudaMemcpy(ref.block_table.data(), b.table.get(), ref.block_table.size() * sizeof(int32_t),
                        cudaMemcpyDeviceToHost));
  ref.context_lens = contexts;
  CompareWithReference(t, PagedDecodeAttentionReference(ref), &check);
  CUDA_CHECK(cudaStreamDestroy(stream));
  return check;
}

std::vector<DecodeAttentionSample> RunDecodeSweep(const std::vector<DecodeConfig>& configs, const BenchContext& ctx,
                                                  std::vector<std::string>* notes) {
  std::vector<DecodeAttentionSample> out;
  if (configs.empty()) return out;
  // One allocation of each buffer at the largest size any configuration needs.
  size_t max_kv = 0, max_q = 0, max_table = 0, max_slots = 0;
  int max_batch = 0;
  for (const DecodeConfig& c : configs) {
    const int64_t blocks_per_seq = (c.context_tokens + c.block_size_tokens - 1) / c.block_size_tokens;
    const size_t kv_elems =
        static_cast<size_t>(c.batch) * blocks_per_seq * c.kv_heads * c.block_size_tokens * c.head_dim;
    max_kv = std::max(max_kv, kv_elems * static_cast<size_t>(DTypeBytes(c.kv_dtype)));
    max_q = std::max(max_q, static_cast<size_t>(c.batch) * c.q_heads * c.head_dim * 2);
    max_table = std::max(max_table, static_cast<size_t>(c.batch * blocks_per_seq));
    const int64_t parts = (c.context_tokens + kPartitionTokens - 1) / kPartitionTokens;
    max_slots = std::max(max_slots, static_cast<size_t>(c.batch) * c.q_heads * parts);
    max_batch = std::max(max_batch, c.batch);
  }
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DecodeBuffers b(max_q, max_kv, max_table, static_cast<size_t>(max_batch), max_slots);
  L2Flusher flusher(ctx.flush_bytes, ctx.sm_count);

  FilledDType filled;
  ForEachConfigUntilDeadline("decode", configs, ctx.deadline, notes, [&](size_t i, const DecodeConfig& c) {
    if (c.head_dim != kHeadDim || c.q_heads % c.kv_heads != 0 || c.q_heads / c.kv_heads > kMaxGroup ||
        (c.block_size_tokens & (c.block_size_tokens - 1))) {
      notes->push_back(
          "decode: configuration outside the kernel (head_dim 128, GQA group <= 8, "
          "power-of-two blocks) skipped");
      return;
    }
    const DType q_dtype = QueryType(c.kv_dtype);
    if (filled.NeedsFill(c.kv_dtype)) {
      const size_t elems = max_kv / static_cast<size_t>(DTypeBytes(c.kv_dtype));
      const float value_scale = KvValueScale(c.kv_dtype);
      FillUniform(c.kv_dtype, b.k.get(), elems, ctx.seed + 41, value_scale, stream);
      FillUniform(c.kv_dtype, b.v.get(), elems, ctx.seed + 42, value_scale, stream);
      FillUniform(q_dtype, b.q.get(), max_q / 2, ctx.seed + 43, 1.0f, stream);
    }
    const int blocks_per_seq = static_cast<int>((c.context_tokens + c.block_size_tokens - 1) / c.block_size_tokens);
    const std::vector<int32_t> contexts(static_cast<size_t>(c.batch), static_cast<int32_t>(c.context_tokens));
    UploadTable(contexts, c.block_size_tokens, blocks_per_seq, static_cast<int64_t>(c.batch) * blocks_per_seq,
                ctx.seed + i, b.table, b.lens);
    const int parts = static_cast<int>((c.context_tokens + kPartitionTokens - 1) / kPartitionTokens);
    const DecodeParams p =
        MakeParams(b, c.q_heads, c.kv_heads, c.block_size_tokens, blocks_per_seq, parts, KvScale(c.kv_dtype));
    auto run = [&] { LaunchDecode(c.kv_dtype, p, c.batch, stream); };

    DecodeAttentionSample s;
    s.batch = c.batch;
    s.context_tokens = c.context_tokens;
    s.q_heads = c.q_heads;
    s.kv_heads = c.kv_heads;
    s.head_dim = c.head_dim;
    s.kv_dtype = c.kv_dtype;
    s.query_dtype = q_dtype;
    s.block_size_tokens = c.block_size_tokens;
    s.timing = TimeRuns(stream, ctx.warmup, ctx.iterations, &flusher, run);
    s.kv_bytes = DecodeKvBytes(c);
    s.moved_bytes =
        s.kv_bytes + 2 * int64_t{c.batch} * c.q_heads * c.head_dim * 2 + int64_t{c.batch} * blocks_per_seq * 4;
    s.bytes_per_second = static_cast<double>(s.moved_bytes) / s.timing.median_seconds;
    s.flops = 4.0 * c.batch * c.q_heads * static_cast<double>(c.context_tokens) * c.head_dim;
    s.kernel = kKernelName;
    out.push_back(s);
  });
  CUDA_CHECK(cudaStreamDestroy(stream));
  return out;
}

}  // namespace infergrid::calib
