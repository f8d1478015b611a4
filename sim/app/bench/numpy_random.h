// NumPy's random streams for the calls vLLM's benchmark scripts make, draw for draw:
//  - LegacyRandomState: np.random.seed(int) / RandomState(int) (MT19937 by init_genrand):
//    gamma (vLLM's request intervals: shape = burstiness), permutation (pandas
//    DataFrame.sample without replacement: BurstGPT rows) and randint (with replacement).
//  - Pcg64Generator: np.random.default_rng(int) (SeedSequence, PCG64 XSL-RR) and
//    Generator.integers (Lemire's bounded draw on 32-bit halves): the random dataset's lengths.
#ifndef INFERGRID_SIM_APP_BENCH_NUMPY_RANDOM_H_
#define INFERGRID_SIM_APP_BENCH_NUMPY_RANDOM_H_

#include <cstdint>
#include <vector>

#include "absl/numeric/int128.h"
#include "sim/app/bench/mt19937.h"

namespace infergrid::bench {

class LegacyRandomState {
 public:
  explicit LegacyRandomState(uint32_t seed) { mt_.SeedGenrand(seed); }
  double Double() { return mt_.NextDouble(); }
  double StandardExponential();
  double Gauss();  // the polar method, caching its second value
  double StandardGamma(double shape);
  double Gamma(double shape, double scale) { return scale * StandardGamma(shape); }
  // permutation(n): arange(n) shuffled with random_interval.
  std::vector<int64_t> Permutation(int64_t n);
  // randint(0, high) one value at a time (masked rejection on 32 bits); 0 < high <= 2^32.
  int64_t RandInt(int64_t high);

 private:
  uint64_t RandomInterval(uint64_t max);
  Mt19937 mt_;
  bool has_gauss_ = false;
  double gauss_ = 0;
};

class Pcg64Generator {
 public:
  explicit Pcg64Generator(uint64_t seed);
  uint64_t Next64();
  uint32_t Next32();
  // integers(low, high + 1): uniform on [low, high], high - low < 2^32.
  int64_t IntegersInclusive(int64_t low, int64_t high);

 private:
  absl::uint128 state_ = 0;
  absl::uint128 increment_ = 0;
  bool has_uint32_ = false;
  uint32_t uint32_ = 0;
};

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_NUMPY_RANDOM_H_
