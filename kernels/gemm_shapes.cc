#include "kernels/gemm_shapes.h"

#include <algorithm>
#include <map>
#include <utility>

namespace infergrid::calib {

const std::vector<ModelDims>& CalibrationModels() {
  // name, hidden, heads, kv heads, head dim, ffn (per expert), vocab. Copied from the catalog
  // textprotos; tests/kernels_test.cc compares each row with the catalog file.
  static const std::vector<ModelDims> kModels = {
      {"llama-3-8b", 4096, 32, 8, 128, 14336, 128256}, {"llama-3-70b", 8192, 64, 8, 128, 28672, 128256},
      {"mistral-7b", 4096, 32, 8, 128, 14336, 32000},  {"mixtral-8x7b", 4096, 32, 8, 128, 14336, 32000},
      {"qwen2.5-7b", 3584, 28, 4, 128, 18944, 152064}, {"qwen2.5-72b", 8192, 64, 8, 128, 29568, 152064},
  };
  return kModels;
}

std::vector<ProjectionShape> ModelProjections(const ModelDims& m, int tp) {
  // Megatron-style TP, as vLLM and SGLang shard dense layers:
  //   qkv     column-parallel: N = (heads/tp + 2 * max(kv_heads/tp, 1)) * head_dim, K = hidden.
  //           KV heads are replicated when tp exceeds them (one KV head per rank).
  //   o       row-parallel:    N = hidden, K = heads/tp * head_dim.
  //   gate_up column-parallel, gate and up fused: N = 2 * ffn/tp, K = hidden.
  //   down    row-parallel:    N = hidden, K = ffn/tp.
  //   lm_head vocab-parallel:  N = vocab/tp, K = hidden.
  // MoE experts (mixtral) are sharded the same way inside each expert (TP, not EP), so their
  // GEMMs have the dense shapes with fewer tokens each; the router (N = num_experts) is tiny
  // and left out.
  std::vector<ProjectionShape> out;
  if (tp < 1 || m.num_attention_heads % tp != 0 || m.ffn_dim % tp != 0 || m.vocab_size % tp != 0) {
    return out;
  }
  const int64_t q_heads = m.num_attention_heads / tp;
  const int64_t kv_heads = std::max<int64_t>(m.num_kv_heads / tp, 1);
  auto add = [&](const char* projection, int64_t n, int64_t k) { out.push_back({m.name, projection, tp, n, k}); };
  add("qkv", (q_heads + 2 * kv_heads) * m.head_dim, m.hidden_size);
  add("o", m.hidden_size, q_heads * m.head_dim);
  add("gate_up", 2 * m.ffn_dim / tp, m.hidden_size);
  add("down", m.hidden_size, m.ffn_dim / tp);
  add("lm_head", m.vocab_size / tp, m.hidden_size);
  return out;
}

std::vector<GemmShape> CalibrationGemmShapes() {
  std::map<std::pair<int64_t, int64_t>, std::vector<std::string>> by_shape;
  for (const ModelDims& model : CalibrationModels()) {
    for (int tp : {1, 2, 4, 8}) {
      for (const ProjectionShape& p : ModelProjections(model, tp)) {
        by_shape[{p.n, p.k}].push_back(p.model + " " + p.projection + " tp" + std::to_string(p.tp));
      }
    }
  }
  std::vector<GemmShape> out;
  out.reserve(by_shape.size());
  for (auto& [nk, sources] : by_shape) out.push_back({nk.first, nk.second, std::move(sources)});
  return out;
}

std::vector<int64_t> GemmMValues(bool quick) {
  std::vector<int64_t> out;
  for (int64_t m = 1; m <= 8192; m *= 2) out.push_back(m);
  if (quick) {
    std::vector<int64_t> thinned;
    for (size_t i = 0; i < out.size(); i += 2) thinned.push_back(out[i]);  // 1, 4, 16, ..., 4096
    thinned.push_back(8192);
    return thinned;
  }
  return out;
}

}  // namespace infergrid::calib
