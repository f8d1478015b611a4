#include "base/prefault.h"

#include <sys/mman.h>

#include <cstdint>

namespace infergrid {

bool PrefaultPages(void* begin, size_t bytes) {
#if defined(MADV_POPULATE_WRITE)
  constexpr uintptr_t kPage = 4096;
  const auto first = (reinterpret_cast<uintptr_t>(begin) + kPage - 1) & ~(kPage - 1);
  const auto last = (reinterpret_cast<uintptr_t>(begin) + bytes) & ~(kPage - 1);
  if (last <= first) return true;  // no whole page inside
  return madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE) == 0;
#else
  (void)begin;
  (void)bytes;
  return false;
#endif
}

}  // namespace infergrid
