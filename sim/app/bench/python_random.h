// CPython's `random` module for the calls vLLM's benchmark datasets make, draw for draw:
// random.seed(int), random(), getrandbits, the rejection-sampled randbelow behind shuffle and
// choice, and choices(k). With the same seed a dataset here picks the same conversations in the
// same order as vLLM's ShareGPT/custom shuffle, oversampling and sonnet line choices.
#ifndef INFERGRID_SIM_APP_BENCH_PYTHON_RANDOM_H_
#define INFERGRID_SIM_APP_BENCH_PYTHON_RANDOM_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/app/bench/mt19937.h"

namespace infergrid::bench {

class PythonRandom {
 public:
  explicit PythonRandom(int64_t seed) { Seed(seed); }
  // random.seed(n) for an int n (its absolute value, in 32-bit words).
  void Seed(int64_t seed);
  double Random() { return mt_.NextDouble(); }
  // getrandbits(k) for 0 < k <= 64.
  uint64_t GetRandBits(int k);
  // _randbelow(n): uniform in [0, n) by rejection on n.bit_length() bits; n > 0.
  uint64_t RandBelow(uint64_t n);
  // random.shuffle(x): Fisher-Yates from the end.
  template <typename T>
  void Shuffle(std::vector<T>& x) {
    for (size_t i = x.size(); i-- > 1;) {
      const size_t j = static_cast<size_t>(RandBelow(i + 1));
      std::swap(x[i], x[j]);
    }
  }
  // random.choice(seq): the index it picks in a sequence of `size` (> 0).
  size_t ChoiceIndex(size_t size) { return static_cast<size_t>(RandBelow(size)); }
  // random.choices(seq, k=1) without weights: floor(random() * size).
  size_t ChoicesIndex(size_t size) { return static_cast<size_t>(Random() * static_cast<double>(size)); }

 private:
  Mt19937 mt_;
};

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_PYTHON_RANDOM_H_
