// The GEMM shapes of the catalog models' linear layers under tensor parallelism, as the
// calibration sweep times them. Each shape is Y[M,N] = X[M,K] * W[N,K]^T with M the number of
// tokens; the model table mirrors models/catalog/*.textproto (hidden size, heads, KV heads,
// head dim, FFN width, vocabulary) and the projections are derived from it the way
// Megatron-style TP shards them (see gemm_shapes.cc).
#ifndef INFERGRID_KERNELS_GEMM_SHAPES_H_
#define INFERGRID_KERNELS_GEMM_SHAPES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace infergrid::calib {

// Hyperparameters of one catalog model (values as in models/catalog/<name>.textproto).
struct ModelDims {
  const char* name;
  int64_t hidden_size;
  int64_t num_attention_heads;
  int64_t num_kv_heads;
  int64_t head_dim;
  int64_t ffn_dim;  // per expert for MoE models
  int64_t vocab_size;
};

// The models the sweep covers: llama-3-8b, llama-3-70b, mistral-7b, mixtral-8x7b,
// qwen2.5-7b, qwen2.5-72b.
const std::vector<ModelDims>& CalibrationModels();

// One projection of one model at one TP degree.
struct ProjectionShape {
  std::string model;
  std::string projection;  // "qkv", "o", "gate_up", "down", "lm_head"
  int tp = 1;
  int64_t n = 0;
  int64_t k = 0;
};

// The projections of `model` at TP `tp`, or none when the model cannot be split that way
// (attention heads not divisible by tp).
std::vector<ProjectionShape> ModelProjections(const ModelDims& model, int tp);

// A distinct (N, K) with every projection that has it ("llama-3-8b qkv tp2").
struct GemmShape {
  int64_t n = 0;
  int64_t k = 0;
  std::vector<std::string> sources;
};

// All distinct (N, K) over CalibrationModels() x TP {1, 2, 4, 8}, sorted by (N, K).
std::vector<GemmShape> CalibrationGemmShapes();

// M values of the full sweep: 1, 2, 4, ..., 8192. The quick sweep keeps every other one.
std::vector<int64_t> GemmMValues(bool quick);

}  // namespace infergrid::calib

#endif  // INFERGRID_KERNELS_GEMM_SHAPES_H_
