// Byte units. Every memory figure InferGrid prints says which one it is in: GB = 1e9 bytes,
// GiB = 2^30 bytes (the accounting lesson, section 2); engines log GiB even where they write
// "GB".
#ifndef INFERGRID_BASE_UNITS_H_
#define INFERGRID_BASE_UNITS_H_

namespace infergrid {

inline constexpr double kGB = 1e9;
inline constexpr double kGiB = 1073741824.0;
inline constexpr double kMiB = 1048576.0;
inline constexpr double kKiB = 1024.0;

}  // namespace infergrid

#endif  // INFERGRID_BASE_UNITS_H_
