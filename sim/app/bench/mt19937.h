// The Mersenne Twister MT19937 exactly as CPython's `random` and NumPy's legacy `RandomState`
// run it (both are Matsumoto and Nishimura's reference code): seeded by init_genrand (NumPy's
// np.random.seed(int)) or init_by_array (CPython's random.seed(int)), 32-bit outputs, and the
// 53-bit double both build from two outputs. std::mt19937 has the same recurrence but neither
// seeding, which is why the benchmark datasets need this one to draw what vLLM draws.
#ifndef INFERGRID_SIM_APP_BENCH_MT19937_H_
#define INFERGRID_SIM_APP_BENCH_MT19937_H_

#include <array>
#include <cstdint>
#include <vector>

namespace infergrid::bench {

class Mt19937 {
 public:
  // init_genrand(seed).
  void SeedGenrand(uint32_t seed);
  // init_by_array(key): CPython seeds an int with its 32-bit words, least significant first.
  void SeedByArray(const std::vector<uint32_t>& key);
  uint32_t Next32();
  // [0, 1) with 53 random bits: (a >> 5, b >> 6) as both libraries build it.
  double NextDouble();

 private:
  static constexpr int kN = 624;
  std::array<uint32_t, kN> mt_{};
  int index_ = kN + 1;
};

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_MT19937_H_
