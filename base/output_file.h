// How an output file reaches the path the user gave, without harming what that path names.
//
// Every file InferGrid writes goes to a temporary first and reaches its path only when the whole
// output is ready. What the path names decides how (PlaceOutput):
//   - nothing, or a regular file: the temporary is written beside it and renamed over it, so a
//     reader sees the old file or the new one, never a part;
//   - a symbolic link (or a chain of them): followed; the file it finally names is replaced as
//     above and the link stays a link (a dangling link creates the file it names);
//   - a character device (/dev/null, /dev/full, a terminal) or a FIFO: written through with
//     open(2) and write(2), as any program would; the node is never replaced. The temporary is
//     then kept in the system's temporary folder, and a write error (ENOSPC from /dev/full) is
//     an error naming the path;
//   - a folder, a block device or a socket: an error.
// Temporaries are named per run, `.NAME.tmp.HOST.PID.RANDOM`, so two runs writing one folder
// never share one, and each is registered for removal on SIGINT/SIGTERM (interrupt_cleanup.h).
#ifndef INFERGRID_BASE_OUTPUT_FILE_H_
#define INFERGRID_BASE_OUTPUT_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace infergrid {

struct OutputPlacement {
  std::string path;  // as the user gave it; errors name it
  std::string target;  // the path that receives the bytes (symbolic links followed)
  std::string temporary;  // where the bytes are written first
  bool write_through = false;  // target is a device or a FIFO: written into, never renamed over
};

// Decides where PATH's bytes go and registers the temporary (nothing is created yet). Errors
// read "PATH: ...".
absl::StatusOr<OutputPlacement> PlaceOutput(const std::string& path);

// Writes `text` to `file` whole (open, write until done, close); errors name `shown`.
absl::Status WriteWholeFile(const std::string& file, absl::string_view text, const std::string& shown);

// Moves the temporary's bytes to the target (rename, or write-through) and removes the temporary.
absl::Status CommitOutput(const OutputPlacement& placement);

// Removes the temporary (if any) and forgets it.
void DiscardOutput(const OutputPlacement& placement);

// A name unique to this run for a hidden file beside NAME: ".NAME.<kind>.HOST.PID.RANDOM".
std::string RunUniqueName(absl::string_view name, absl::string_view kind);

// This host's name as temporaries carry it: one dot-separated part, so '.' and '/' become '_'
// ("localhost" when the name cannot be read).
std::string TemporaryHostName();

}  // namespace infergrid

#endif  // INFERGRID_BASE_OUTPUT_FILE_H_
