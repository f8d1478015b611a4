// Training compute by the 6*N*D rule and wall time on a cluster. Per parameter and token, a
// forward pass costs 2 FLOPs (one multiply-add) and a backward pass 4 (2 for the gradient with
// respect to the activations, 2 for the gradient with respect to the weights), so training N
// parameters on D tokens costs C = 6*N*D. The rule counts the matrix multiplies against the
// weights only: attention scores, activation recomputation and the optimizer step are extra.
// Compute-optimal token counts follow Chinchilla (Hoffmann et al. 2022): N and D scaled in equal
// proportion, about 20 tokens per parameter, an empirical fit that is an assumption here.
#ifndef INFERGRID_MODELS_TRAINING_COMPUTE_H_
#define INFERGRID_MODELS_TRAINING_COMPUTE_H_

#include <cstdint>

namespace infergrid {

inline constexpr double kForwardFlopsPerParameterToken = 2;
inline constexpr double kBackwardFlopsPerParameterToken = 4;
inline constexpr double kTrainingFlopsPerParameterToken =
    kForwardFlopsPerParameterToken + kBackwardFlopsPerParameterToken;
inline constexpr double kChinchillaTokensPerParameter = 20;
inline constexpr double kSecondsPerDay = 86400;

// C = 6 * N * D.
double TrainingFlops(double parameters, double tokens);

// D = r * N, r tokens per parameter (Chinchilla: r ~ 20).
double ComputeOptimalTokens(double parameters, double tokens_per_parameter);

// The compute-optimal use of a budget C under D = r*N and C = 6*N*D: N = sqrt(C / (6 r)),
// D = r * N.
struct ParameterTokenSplit {
  double parameters = 0;
  double tokens = 0;
};
ParameterTokenSplit ComputeOptimalSplit(double flops, double tokens_per_parameter);

// Attention-score FLOPs of training per token that 6*N leaves out, as PaLM (Chowdhery et al.
// 2022, appendix B) counts them: 12 * L * H * Q * T for L layers, H query heads of width Q and
// sequence length T (forward and backward, the causal mask's skipped half included).
double AttentionTrainingFlopsPerToken(int64_t layers, int64_t heads, int64_t head_dim, int64_t sequence_length);

// Seconds to execute `flops` on `num_gpus` GPUs of `flops_per_gpu` achieved FLOP/s each,
// uninterrupted and at a constant rate.
double TrainingSeconds(double flops, double num_gpus, double flops_per_gpu);

// What would make a run of N parameters on D tokens take `seconds`, changing one input at a
// time and holding the others: the GPU count at the given rate, the rate on the given GPU
// count, the token count, and the FLOPs per parameter per token (the 6 of 6*N*D).
struct TrainingTimeSolution {
  double num_gpus = 0;
  double flops_per_gpu = 0;
  double tokens = 0;
  double flops_per_parameter_token = 0;
};
TrainingTimeSolution SolveForTrainingSeconds(double parameters, double tokens, double num_gpus, double flops_per_gpu,
                                             double seconds);

}  // namespace infergrid

#endif  // INFERGRID_MODELS_TRAINING_COMPUTE_H_
