#include "sim/serving/run_noise.h"

#include <cmath>

namespace infergrid {
namespace {

// splitmix64: decorrelates (seed, stream) pairs before they seed the generator.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

RunNoise::RunNoise(const RunNoiseSpec& spec, uint64_t stream)
    : spec_(spec),
      rng_(Mix(Mix(spec.seed) ^ stream)),
      exponential_(spec.send_jitter_s > 0 ? 1.0 / spec.send_jitter_s : 1.0) {}

double RunNoise::IterationFactor() {
  if (spec_.iteration_sigma <= 0) return 1;
  const double s = spec_.iteration_sigma;
  return std::exp(s * normal_(rng_) - 0.5 * s * s);
}

double RunNoise::SendDelay() {
  if (spec_.send_jitter_s <= 0) return 0;
  return exponential_(rng_);
}

}  // namespace infergrid
