#include "sim/app/bench/mt19937.h"

#include <algorithm>

namespace infergrid::bench {
namespace {
constexpr int kM = 397;
constexpr uint32_t kMatrixA = 0x9908b0dfU;
constexpr uint32_t kUpperMask = 0x80000000U;
constexpr uint32_t kLowerMask = 0x7fffffffU;
}  // namespace

void Mt19937::SeedGenrand(uint32_t seed) {
  mt_[0] = seed;
  for (int i = 1; i < kN; ++i) {
    mt_[i] = 1812433253U * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  }
  index_ = kN;
}

void Mt19937::SeedByArray(const std::vector<uint32_t>& key) {
  SeedGenrand(19650218U);
  const int length = std::max<int>(1, static_cast<int>(key.size()));
  int i = 1;
  int j = 0;
  for (int k = std::max(kN, length); k > 0; --k) {
    const uint32_t word = key.empty() ? 0 : key[static_cast<size_t>(j)];
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525U)) + word + static_cast<uint32_t>(j);
    ++i;
    ++j;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
    if (j >= length) j = 0;
  }
  for (int k = kN - 1; k > 0; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941U)) - static_cast<uint32_t>(i);
    ++i;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
  }
  mt_[0] = 0x80000000U;
  index_ = kN;
}

uint32_t Mt19937::Next32() {
  if (index_ >= kN) {
    if (index_ == kN + 1) SeedGenrand(5489U);  // never seeded: the reference default
    for (int k = 0; k < kN; ++k) {
      const uint32_t y = (mt_[k] & kUpperMask) | (mt_[(k + 1) % kN] & kLowerMask);
      mt_[k] = mt_[(k + kM) % kN] ^ (y >> 1) ^ ((y & 1U) != 0 ? kMatrixA : 0U);
    }
    index_ = 0;
  }
  uint32_t y = mt_[index_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= y >> 18;
  return y;
}

double Mt19937::NextDouble() {
  const uint32_t a = Next32() >> 5;
  const uint32_t b = Next32() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

}  // namespace infergrid::bench
