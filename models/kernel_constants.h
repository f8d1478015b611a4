// Constants shared by the files that build an iteration's kernel list
// (models/iteration_kernels.cc, models/latent_attention_kernels.cc). Internal to models/.
#ifndef INFERGRID_MODELS_KERNEL_CONSTANTS_H_
#define INFERGRID_MODELS_KERNEL_CONSTANTS_H_

#include <cstdint>

namespace infergrid::kernel_constants {

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// CUDA-core FLOPs per element of the small kernels: RMSNorm squares, sums, scales and
// multiplies by the weight (4); RoPE rotates pairs (3 per element); SiLU-and-multiply (4,
// the exponential counted once); softmax per attention score (max, subtract, exp, sum: 4).
constexpr double kNormFlopsPerElement = 4;
constexpr double kRopeFlopsPerElement = 3;
constexpr double kActivationFlopsPerElement = 4;
constexpr double kSoftmaxFlopsPerScore = 4;
// Logit soft-capping (Gemma-2) per score: divide, tanh, multiply (tanh counted once).
constexpr double kSoftcapFlopsPerScore = 3;
constexpr double kDequantFlopsPerElement = 2;  // convert + scale (fp8 / int KV and weights)
constexpr double kLogitBytes = 4;  // logits are sampled in fp32

}  // namespace infergrid::kernel_constants

#endif  // INFERGRID_MODELS_KERNEL_CONSTANTS_H_
