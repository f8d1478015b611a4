// The name of a run's folder: a stable hash of its resolved configuration, so that rerunning a
// sweep (or another spec reaching the same configuration) finds the run it already did. The
// configuration is simulate's own echo of it (SimulateOptions::command_line: every flag that
// differs from its default, canonical values, seed included), so "--rate=4" and "--rate=4.0"
// are one run, and a flag added to simulate later does not change existing hashes.
#ifndef INFERGRID_SIM_APP_SWEEP_POINT_HASH_H_
#define INFERGRID_SIM_APP_SWEEP_POINT_HASH_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace infergrid::sweep {

// 64-bit FNV-1a: specified to the bit, the same on every machine and compiler (absl::Hash and
// std::hash are seeded or unspecified and must not name files).
uint64_t Fnv1a64(absl::string_view text);

// 16 lower-case hex digits of Fnv1a64(configuration).
std::string PointHash(absl::string_view configuration);

}  // namespace infergrid::sweep

#endif  // INFERGRID_SIM_APP_SWEEP_POINT_HASH_H_
