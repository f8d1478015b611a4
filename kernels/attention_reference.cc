#include "kernels/attention_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace infergrid::calib {
namespace {

// softmax(scores) . values for one query; values(j) returns a pointer to key j's value row.
template <typename ValueRow>
void SoftmaxCombine(const std::vector<double>& scores, ValueRow values, int head_dim, double* out) {
  const double max_score = *std::max_element(scores.begin(), scores.end());
  double sum = 0;
  std::fill(out, out + head_dim, 0.0);
  for (size_t j = 0; j < scores.size(); ++j) {
    const double w = std::exp(scores[j] - max_score);
    sum += w;
    const float* v = values(j);
    for (int d = 0; d < head_dim; ++d) out[d] += w * v[d];
  }
  for (int d = 0; d < head_dim; ++d) out[d] /= sum;
}

}  // namespace

std::vector<double> PagedDecodeAttentionReference(const PagedDecodeProblem& p) {
  if (p.kv_heads <= 0 || p.q_heads % p.kv_heads != 0) {
    throw std::invalid_argument("q_heads must be a multiple of kv_heads");
  }
  const int group = p.q_heads / p.kv_heads;
  const int hd = p.head_dim;
  std::vector<double> out(static_cast<size_t>(p.batch) * p.q_heads * hd);
  auto kv_row = [&](const std::vector<float>& cache, int seq, int kvh, int token) {
    const int32_t block = p.block_table[static_cast<size_t>(seq) * p.max_blocks_per_seq + token / p.block_size];
    const size_t offset = ((static_cast<size_t>(block) * p.kv_heads + kvh) * p.block_size + token % p.block_size) * hd;
    return cache.data() + offset;
  };
  for (int s = 0; s < p.batch; ++s) {
    const int ctx = p.context_lens[s];
    for (int h = 0; h < p.q_heads; ++h) {
      const int kvh = h / group;
      const float* q = p.q.data() + (static_cast<size_t>(s) * p.q_heads + h) * hd;
      std::vector<double> scores(ctx);
      for (int t = 0; t < ctx; ++t) {
        const float* k = kv_row(p.k_cache, s, kvh, t);
        double dot = 0;
        for (int d = 0; d < hd; ++d) dot += static_cast<double>(q[d]) * k[d];
        scores[t] = dot * p.scale;
      }
      SoftmaxCombine(
          scores, [&](size_t t) { return kv_row(p.v_cache, s, kvh, static_cast<int>(t)); }, hd,
          out.data() + (static_cast<size_t>(s) * p.q_heads + h) * hd);
    }
  }
  return out;
}

std::vector<double> PrefillAttentionReference(const PrefillProblem& p) {
  if (p.kv_heads <= 0 || p.q_heads % p.kv_heads != 0) {
    throw std::invalid_argument("q_heads must be a multiple of kv_heads");
  }
  const int group = p.q_heads / p.kv_heads;
  const int hd = p.head_dim;
  const int keys = p.context_tokens + p.query_tokens;
  std::vector<double> out(static_cast<size_t>(p.batch) * p.query_tokens * p.q_heads * hd);
  for (int b = 0; b < p.batch; ++b) {
    for (int i = 0; i < p.query_tokens; ++i) {
      const int visible = p.causal ? p.context_tokens + i + 1 : keys;
      for (int h = 0; h < p.q_heads; ++h) {
        const int kvh = h / group;
        const float* q = p.q.data() + ((static_cast<size_t>(b) * p.query_tokens + i) * p.q_heads + h) * hd;
        auto row = [&](const std::vector<float>& t, size_t j) {
          return t.data() + ((static_cast<size_t>(b) * keys + j) * p.kv_heads + kvh) * hd;
        };
        std::vector<double> scores(visible);
        for (int j = 0; j < visible; ++j) {
          const float* k = row(p.k, j);
          double dot = 0;
          for (int d = 0; d < hd; ++d) dot += static_cast<double>(q[d]) * k[d];
          scores[j] = dot * p.scale;
        }
        SoftmaxCombine(
            scores, [&](size_t j) { return row(p.v, j); }, hd,
            out.data() + ((static_cast<size_t>(b) * p.query_tokens + i) * p.q_heads + h) * hd);
      }
    }
  }
  return out;
}

double RelativeError(const std::vector<float>& out, const std::vector<double>& ref) {
  if (out.size() != ref.size()) return std::numeric_limits<double>::infinity();
  double diff = 0, norm = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i])) return std::numeric_limits<double>::infinity();
    const double d = out[i] - ref[i];
    diff += d * d;
    norm += ref[i] * ref[i];
  }
  if (norm == 0) return diff == 0 ? 0 : std::numeric_limits<double>::infinity();
  return std::sqrt(diff / norm);
}

double AttendedPairs(int64_t query_tokens, int64_t context_tokens, bool causal) {
  const double n = static_cast<double>(query_tokens);
  const double c = static_cast<double>(context_tokens);
  return causal ? n * c + n * (n + 1) / 2 : n * (c + n);
}

}  // namespace infergrid::calib
