#include "sim/app/bench/numpy_random.h"

#include <cmath>
#include <numeric>

namespace infergrid::bench {

double LegacyRandomState::StandardExponential() { return -std::log(1.0 - Double()); }

double LegacyRandomState::Gauss() {
  if (has_gauss_) {
    has_gauss_ = false;
    return gauss_;
  }
  double x1 = 0;
  double x2 = 0;
  double r2 = 0;
  do {
    x1 = 2.0 * Double() - 1.0;
    x2 = 2.0 * Double() - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  const double f = std::sqrt(-2.0 * std::log(r2) / r2);
  gauss_ = f * x1;
  has_gauss_ = true;
  return f * x2;
}

// legacy_standard_gamma: exponential at shape 1, Johnk-style rejection below 1,
// Marsaglia-Tsang above.
double LegacyRandomState::StandardGamma(double shape) {
  if (shape == 1.0) return StandardExponential();
  if (shape == 0.0) return 0.0;
  if (shape < 1.0) {
    for (;;) {
      const double u = Double();
      const double v = StandardExponential();
      if (u <= 1.0 - shape) {
        const double x = std::pow(u, 1.0 / shape);
        if (x <= v) return x;
      } else {
        const double y = -std::log((1 - u) / shape);
        const double x = std::pow(1.0 - shape + shape * y, 1.0 / shape);
        if (x <= v + y) return x;
      }
    }
  }
  const double b = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9 * b);
  for (;;) {
    double x = 0;
    double v = 0;
    do {
      x = Gauss();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = Double();
    if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return b * v;
    if (std::log(u) < 0.5 * x * x + b * (1.0 - v + std::log(v))) return b * v;
  }
}

uint64_t LegacyRandomState::RandomInterval(uint64_t max) {
  if (max == 0) return 0;
  uint64_t mask = max;
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  mask |= mask >> 32;
  uint64_t value = 0;
  while ((value = (mt_.Next32() & mask)) > max) {
  }
  return value;
}

std::vector<int64_t> LegacyRandomState::Permutation(int64_t n) {
  std::vector<int64_t> values(static_cast<size_t>(n));
  std::iota(values.begin(), values.end(), int64_t{0});
  for (int64_t i = n - 1; i >= 1; --i) {
    const auto j = static_cast<int64_t>(RandomInterval(static_cast<uint64_t>(i)));
    std::swap(values[static_cast<size_t>(i)], values[static_cast<size_t>(j)]);
  }
  return values;
}

int64_t LegacyRandomState::RandInt(int64_t high) {
  return static_cast<int64_t>(RandomInterval(static_cast<uint64_t>(high - 1)));
}

namespace {

// SeedSequence's hash constants (numpy/random/bit_generator.pyx).
constexpr uint32_t kInitA = 0x43b0d7e5U;
constexpr uint32_t kMultA = 0x931e8875U;
constexpr uint32_t kInitB = 0x8b51f9ddU;
constexpr uint32_t kMultB = 0x58f38dedU;
constexpr uint32_t kMixMultL = 0xca01f9ddU;
constexpr uint32_t kMixMultR = 0x4973f715U;
constexpr int kPoolSize = 4;

uint32_t HashMix(uint32_t value, uint32_t& hash_const) {
  value ^= hash_const;
  hash_const *= kMultA;
  value *= hash_const;
  value ^= value >> 16;
  return value;
}

uint32_t Mix(uint32_t x, uint32_t y) {
  uint32_t result = kMixMultL * x - kMixMultR * y;
  result ^= result >> 16;
  return result;
}

// SeedSequence(seed).generate_state(4, uint64): the PCG64 seed and increment words.
std::vector<uint64_t> SeedSequenceState(uint64_t seed) {
  std::vector<uint32_t> entropy;
  for (uint64_t v = seed; v != 0; v >>= 32) entropy.push_back(static_cast<uint32_t>(v & 0xffffffffU));
  if (entropy.empty()) entropy.push_back(0);
  uint32_t pool[kPoolSize];
  uint32_t hash_const = kInitA;
  for (int i = 0; i < kPoolSize; ++i) {
    pool[i] = HashMix(i < static_cast<int>(entropy.size()) ? entropy[static_cast<size_t>(i)] : 0U, hash_const);
  }
  for (int src = 0; src < kPoolSize; ++src) {
    for (int dst = 0; dst < kPoolSize; ++dst) {
      if (src != dst) pool[dst] = Mix(pool[dst], HashMix(pool[src], hash_const));
    }
  }
  for (size_t src = kPoolSize; src < entropy.size(); ++src) {
    for (int dst = 0; dst < kPoolSize; ++dst) pool[dst] = Mix(pool[dst], HashMix(entropy[src], hash_const));
  }
  uint32_t words[8];
  uint32_t hash_b = kInitB;
  for (int i = 0; i < 8; ++i) {
    uint32_t value = pool[i % kPoolSize];
    value ^= hash_b;
    hash_b *= kMultB;
    value *= hash_b;
    value ^= value >> 16;
    words[i] = value;
  }
  std::vector<uint64_t> state(4);
  for (int i = 0; i < 4; ++i) state[static_cast<size_t>(i)] = words[2 * i] | (uint64_t{words[2 * i + 1]} << 32);
  return state;
}

const absl::uint128 kPcgMultiplier = absl::MakeUint128(2549297995355413924ULL, 4865540595714422341ULL);

}  // namespace

Pcg64Generator::Pcg64Generator(uint64_t seed) {
  const std::vector<uint64_t> words = SeedSequenceState(seed);
  const absl::uint128 initial = absl::MakeUint128(words[0], words[1]);
  const absl::uint128 sequence = absl::MakeUint128(words[2], words[3]);
  // pcg_setseq_128_srandom_r
  state_ = 0;
  increment_ = (sequence << 1) | 1;
  state_ = state_ * kPcgMultiplier + increment_;
  state_ += initial;
  state_ = state_ * kPcgMultiplier + increment_;
}

uint64_t Pcg64Generator::Next64() {
  state_ = state_ * kPcgMultiplier + increment_;
  const uint64_t high = absl::Uint128High64(state_);
  const uint64_t low = absl::Uint128Low64(state_);
  const auto rotation = static_cast<unsigned>(high >> 58U);
  const uint64_t x = high ^ low;
  return (x >> rotation) | (x << ((64U - rotation) & 63U));
}

uint32_t Pcg64Generator::Next32() {
  if (has_uint32_) {
    has_uint32_ = false;
    return uint32_;
  }
  const uint64_t next = Next64();
  has_uint32_ = true;
  uint32_ = static_cast<uint32_t>(next >> 32);
  return static_cast<uint32_t>(next & 0xffffffffU);
}

int64_t Pcg64Generator::IntegersInclusive(int64_t low, int64_t high) {
  const auto range = static_cast<uint32_t>(high - low);
  if (range == 0) return low;
  if (range == 0xffffffffU) return low + Next32();
  // buffered_bounded_lemire_uint32
  const uint32_t range_excl = range + 1;
  uint64_t m = static_cast<uint64_t>(Next32()) * range_excl;
  auto leftover = static_cast<uint32_t>(m & 0xffffffffU);
  if (leftover < range_excl) {
    const uint32_t threshold = (0xffffffffU - range) % range_excl;
    while (leftover < threshold) {
      m = static_cast<uint64_t>(Next32()) * range_excl;
      leftover = static_cast<uint32_t>(m & 0xffffffffU);
    }
  }
  return low + static_cast<int64_t>(m >> 32);
}

}  // namespace infergrid::bench
