#include "models/training_compute.h"

#include <cmath>

namespace infergrid {

double TrainingFlops(double parameters, double tokens) { return kTrainingFlopsPerParameterToken * parameters * tokens; }

double ComputeOptimalTokens(double parameters, double tokens_per_parameter) {
  return tokens_per_parameter * parameters;
}

ParameterTokenSplit ComputeOptimalSplit(double flops, double tokens_per_parameter) {
  ParameterTokenSplit split;
  split.parameters = std::sqrt(flops / (kTrainingFlopsPerParameterToken * tokens_per_parameter));
  split.tokens = tokens_per_parameter * split.parameters;
  return split;
}

double AttentionTrainingFlopsPerToken(int64_t layers, int64_t heads, int64_t head_dim, int64_t sequence_length) {
  return 12.0 * static_cast<double>(layers) * static_cast<double>(heads) * static_cast<double>(head_dim) *
         static_cast<double>(sequence_length);
}

double TrainingSeconds(double flops, double num_gpus, double flops_per_gpu) {
  return flops / (num_gpus * flops_per_gpu);
}

TrainingTimeSolution SolveForTrainingSeconds(double parameters, double tokens, double num_gpus, double flops_per_gpu,
                                             double seconds) {
  const double flops = TrainingFlops(parameters, tokens);
  const double cluster_flops_in_time = num_gpus * flops_per_gpu * seconds;
  TrainingTimeSolution solution;
  solution.num_gpus = flops / (flops_per_gpu * seconds);
  solution.flops_per_gpu = flops / (num_gpus * seconds);
  solution.tokens = cluster_flops_in_time / (kTrainingFlopsPerParameterToken * parameters);
  solution.flops_per_parameter_token = cluster_flops_in_time / (parameters * tokens);
  return solution;
}

}  // namespace infergrid
