#include "sim/app/bench/python_random.h"

#include <bit>

namespace infergrid::bench {

void PythonRandom::Seed(int64_t seed) {
  uint64_t magnitude = seed < 0 ? 0 - static_cast<uint64_t>(seed) : static_cast<uint64_t>(seed);
  std::vector<uint32_t> key;
  while (magnitude != 0) {
    key.push_back(static_cast<uint32_t>(magnitude & 0xffffffffU));
    magnitude >>= 32;
  }
  if (key.empty()) key.push_back(0);
  mt_.SeedByArray(key);
}

uint64_t PythonRandom::GetRandBits(int k) {
  if (k <= 32) return mt_.Next32() >> (32 - k);
  // Least significant word first, the last one cut to the bits left (CPython's order).
  const uint64_t low = mt_.Next32();
  const uint64_t high = mt_.Next32() >> (64 - k);
  return low | (high << 32);
}

uint64_t PythonRandom::RandBelow(uint64_t n) {
  const int k = std::bit_width(n);
  uint64_t r = GetRandBits(k);
  while (r >= n) r = GetRandBits(k);
  return r;
}

}  // namespace infergrid::bench
