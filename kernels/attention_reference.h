// CPU references (double precision) for the calibration attention kernels, used by the
// startup correctness checks and by tests. Inputs are already-dequantized floats, so a check
// compares the GPU kernel with the exact function of the values it was given.
#ifndef INFERGRID_KERNELS_ATTENTION_REFERENCE_H_
#define INFERGRID_KERNELS_ATTENTION_REFERENCE_H_

#include <cstdint>
#include <vector>

namespace infergrid::calib {

// Paged decode attention, one query token per sequence.
//   q:           [batch][q_heads][head_dim]
//   k_cache, v_cache: [num_blocks][kv_heads][block_size][head_dim]
//   block_table: [batch][max_blocks_per_seq], physical block of each logical block
//   context_lens: [batch], tokens of each sequence (>= 1)
// Query head h reads KV head h / (q_heads / kv_heads). Returns [batch][q_heads][head_dim]:
// softmax(scale * q.k) . v over the sequence's tokens.
struct PagedDecodeProblem {
  int batch = 0, q_heads = 0, kv_heads = 0, head_dim = 0, block_size = 0;
  int max_blocks_per_seq = 0;
  float scale = 1.0f;
  std::vector<float> q, k_cache, v_cache;
  std::vector<int32_t> block_table, context_lens;
};
std::vector<double> PagedDecodeAttentionReference(const PagedDecodeProblem& p);

// Prefill attention over contiguous tensors.
//   q, out: [batch][query_tokens][q_heads][head_dim]
//   k, v:   [batch][context_tokens + query_tokens][kv_heads][head_dim]
// Query i sits at position context_tokens + i; causal: it sees keys 0 .. context_tokens + i,
// otherwise all keys.
struct PrefillProblem {
  int batch = 0, query_tokens = 0, context_tokens = 0, q_heads = 0, kv_heads = 0, head_dim = 0;
  bool causal = true;
  float scale = 1.0f;
  std::vector<float> q, k, v;
};
std::vector<double> PrefillAttentionReference(const PrefillProblem& p);

// ||out - ref||_2 / ||ref||_2; NaN anywhere in out gives +inf.
double RelativeError(const std::vector<float>& out, const std::vector<double>& ref);

// Attended (query, key) pairs per head and sequence: causal n*c + n(n+1)/2, else n*(c+n).
double AttendedPairs(int64_t query_tokens, int64_t context_tokens, bool causal);

}  // namespace infergrid::calib

#endif  // INFERGRID_KERNELS_ATTENTION_REFERENCE_H_
