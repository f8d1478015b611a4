// Portable random numbers for the synthetic workloads. std::mt19937_64 is specified exactly by
// the standard, but the std:: distributions are not (libstdc++ and libc++ differ), so every
// variate here is derived from the engine's raw 64-bit outputs by our own transforms: the same
// seed gives the same workload with any compiler. Independent streams (arrivals, lengths) are
// seeded from the experiment seed and a stream name, so changing the arrival process leaves
// the length sequence unchanged.
#ifndef INFERGRID_TRACES_RANDOM_STREAMS_H_
#define INFERGRID_TRACES_RANDOM_STREAMS_H_

#include <cmath>
#include <cstdint>
#include <random>

#include "absl/strings/string_view.h"

namespace infergrid {

class RandomStream {
 public:
  // The engine is seeded with SplitMix64(seed ^ FNV-1a(stream)).
  RandomStream(uint64_t seed, absl::string_view stream);

  // Uniform in (0, 1): 53 random bits, never exactly 0 or 1.
  double Uniform() { return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53; }
  // Exponential with mean 1 (inverse transform).
  double Exponential() { return -std::log(Uniform()); }
  // Standard normal (Box-Muller; the second variate is kept for the next call).
  double Normal();
  // Gamma with the given shape and scale 1 (Marsaglia-Tsang; shape < 1 by the boost
  // U^(1/shape) trick).
  double Gamma(double shape);

 private:
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0;
};

// The standard normal CDF.
inline double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

}  // namespace infergrid

#endif  // INFERGRID_TRACES_RANDOM_STREAMS_H_
