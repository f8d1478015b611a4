#include "sim/core/serving/run_noise.h"

#include <cmath>

namespace infergrid {

RunNoise::RunNoise(const RunNoiseSpec& spec, absl::string_view stream) : spec_(spec), random_(spec.seed, stream) {}

double RunNoise::IterationFactor() {
  if (spec_.iteration_sigma <= 0) return 1;
  const double s = spec_.iteration_sigma;
  return std::exp(s * random_.Normal() - 0.5 * s * s);
}

double RunNoise::SendDelay() {
  if (spec_.send_jitter_s <= 0) return 0;
  return spec_.send_jitter_s * random_.Exponential();
}

}  // namespace infergrid
