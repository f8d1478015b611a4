// What an interrupted run leaves: nothing of its own. Temporaries are registered while they
// exist; on SIGINT or SIGTERM the handler removes every registered one, prints one line and exits
// 128 + the signal (130, 143). While files are being committed (renamed into place) the signal is
// held until the commit has finished, so a commit is never cut in half.
//
// The handler uses only async-signal-safe calls (unlink, write, _exit) on a fixed table.
#ifndef INFERGRID_BASE_INTERRUPT_CLEANUP_H_
#define INFERGRID_BASE_INTERRUPT_CLEANUP_H_

#include <string>

#include "absl/strings/string_view.h"

namespace infergrid {

// Installs the handlers for SIGINT and SIGTERM. The handler prints WHO, ": interrupted by SIGINT"
// (or SIGTERM) and WHAT, e.g. "infergrid simulate: interrupted by SIGINT; nothing was written".
void InstallInterruptCleanup(absl::string_view who, absl::string_view what);

// A temporary the handler removes (a file; or a folder the run created, removed if empty). Paths longer than the table's slots, or past its size, are not
// registered (the run still removes them itself when it ends normally).
void RegisterTemporary(const std::string& path);
void UnregisterTemporary(const std::string& path);

// Holds SIGINT/SIGTERM from the constructor to the destructor; a signal that arrived meanwhile
// takes effect (removal, line, exit) at the destructor, with a line saying the files were written.
class CommitSection {
 public:
  CommitSection();
  ~CommitSection();
  CommitSection(const CommitSection&) = delete;
  CommitSection& operator=(const CommitSection&) = delete;
};

}  // namespace infergrid

#endif  // INFERGRID_BASE_INTERRUPT_CLEANUP_H_
