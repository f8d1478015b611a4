// Faulting a range of memory's pages in up front, by one system call, for buffers a hot loop
// will write: touched one page at a time instead, each 4 KiB page is a trap on the writing
// thread (expensive in a virtual machine).
#ifndef INFERGRID_BASE_PREFAULT_H_
#define INFERGRID_BASE_PREFAULT_H_

#include <cstddef>

namespace infergrid {

// Faults in, writable, the whole pages inside [begin, begin + bytes) (MADV_POPULATE_WRITE,
// Linux 5.14); their contents are unchanged. Returns false where the kernel cannot (then the
// pages fault as they are first written; the caller may touch them itself).
bool PrefaultPages(void* begin, size_t bytes);

}  // namespace infergrid

#endif  // INFERGRID_BASE_PREFAULT_H_
