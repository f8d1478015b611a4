#include "sim/app/sweep/point_hash.h"

#include "absl/strings/str_format.h"

namespace infergrid::sweep {

uint64_t Fnv1a64(absl::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ULL;  // FNV offset basis
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;  // FNV prime
  }
  return hash;
}

std::string PointHash(absl::string_view configuration) { return absl::StrFormat("%016x", Fnv1a64(configuration)); }

}  // namespace infergrid::sweep
