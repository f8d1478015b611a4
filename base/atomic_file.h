// Writes a whole file so that readers see either the old file or the new one, never a part:
// the text goes to PATH.tmp, which is then renamed over PATH. Errors name the path.
#ifndef INFERGRID_BASE_ATOMIC_FILE_H_
#define INFERGRID_BASE_ATOMIC_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace infergrid {

absl::Status WriteFileAtomically(const std::string& path, absl::string_view text);

}  // namespace infergrid

#endif  // INFERGRID_BASE_ATOMIC_FILE_H_
