// Writes a whole file so that readers see either the old file or the new one, never a part:
// the text goes to a temporary name beside PATH, which is then renamed over PATH (a device, a
// FIFO or a symbolic link given as PATH is written as output_file.h says). Errors name the path.
#ifndef INFERGRID_BASE_ATOMIC_FILE_H_
#define INFERGRID_BASE_ATOMIC_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace infergrid {

// A temporary unique to the run, renamed over PATH (output_file.h). Atomic against readers and
// against another process writing the same PATH (the last rename wins, every version whole), not
// against a crash of the machine (nothing is flushed).
absl::Status WriteFileAtomically(const std::string& path, absl::string_view text);

// Atomic and durable, for results that a killed or crashed run must find whole or not at all
// (`sweep`): the text goes to PATH.tmp.<host>.<pid>, is fsync'ed, renamed over PATH, and the
// folder is fsync'ed so the rename itself survives a power loss. The temporary name is unique
// per process, so processes on several hosts may write the same PATH at once (the last rename
// wins, every version complete).
absl::Status WriteFileDurably(const std::string& path, absl::string_view text);

// Whether `filename` (a name, not a path) is the temporary of a WriteFileDurably call that
// will never finish: its writer ran on this host and is no longer alive. Temporaries of live
// writers, or of other hosts (a shared file system), are not abandoned.
bool IsAbandonedTemporary(absl::string_view filename);

}  // namespace infergrid

#endif  // INFERGRID_BASE_ATOMIC_FILE_H_
