#include "traces/shared_prefix.h"

#include <cstddef>

namespace infergrid {
namespace {

// SplitMix64's finalizer: distinct inputs give well-spread, distinct-looking outputs.
uint64_t MixPrefixHash(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace

std::vector<uint64_t> SharedPrefixHashes(uint64_t group, int64_t prefix_tokens) {
  std::vector<uint64_t> hashes;
  if (prefix_tokens < kSharedPrefixHashTokens) return hashes;
  const int64_t blocks = prefix_tokens / kSharedPrefixHashTokens;
  hashes.reserve(static_cast<size_t>(blocks));
  const uint64_t seed = MixPrefixHash(group ^ 0x5348415245440000ULL);  // "SHARED"
  for (int64_t k = 0; k < blocks; ++k) hashes.push_back(MixPrefixHash(seed + static_cast<uint64_t>(k)));
  return hashes;
}

}  // namespace infergrid
