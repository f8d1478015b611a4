// Runs a function in a forked child process and returns the bytes it produced. SimGrid allows
// one engine per process, ever, so every simulation of `compare`, `bench`, `sweep` and `plan` (and of
// tests) runs in a child of its own; the parent never starts an engine. A child dies with its
// parent (PR_SET_PDEATHSIG), so killing a command stops its simulations too.
#ifndef INFERGRID_SIM_APP_RUN_CHILD_PROCESS_H_
#define INFERGRID_SIM_APP_RUN_CHILD_PROCESS_H_

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "sim/app/cli/command_line.h"

namespace infergrid {

// How many simulations sweep and plan run at once.
struct JobsFlags {
  int32_t jobs = 0;
};
const cli::FlagGroup<JobsFlags>& JobsFlagGroup();

// The child runs `body` and exits; its result (value or error, code and message) comes back
// through a pipe. A child that dies is an Internal error naming the signal or exit code.
absl::StatusOr<std::string> RunInChildProcess(const std::function<absl::StatusOr<std::string>()>& body);

// A child started and not yet reaped, for running several at once (`sweep --jobs`): poll fd()
// for input, call ReadAvailable() when it is readable until it reports the end, then Finish().
// A ChildProcess destroyed before Finish() kills and reaps its child.
class ChildProcess {
 public:
  static absl::StatusOr<ChildProcess> Start(const std::function<absl::StatusOr<std::string>()>& body);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ~ChildProcess();

  int fd() const { return fd_; }
  // One read of what the child sent; true once its output has ended (it exited or died).
  bool ReadAvailable();
  // After the end of the output: reaps the child and decodes its result as RunInChildProcess.
  absl::StatusOr<std::string> Finish();

 private:
  ChildProcess(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  void Abandon();  // kills and reaps a child still running
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string received_;
};

// Runs `body(i)` for i in [0, count), each in a child process, at most `jobs` at once (sweep's
// runs, plan's candidates). In the parent: `prepare(i)` just before child i starts, `finished(i,
// result)` as each one ends (in the order they end), `tick()` after every wait of at most a
// second. A child that cannot be started (the machine, not the body) or an error from `prepare`
// or `finished` stops everything (running children are killed) and is returned.
struct ConcurrentRuns {
  size_t count = 0;
  int jobs = 1;
  std::function<absl::Status(size_t)> prepare;  // may be empty
  std::function<absl::StatusOr<std::string>(size_t)> body;
  std::function<absl::Status(size_t, absl::StatusOr<std::string>)> finished;
  std::function<void()> tick;  // may be empty
};
absl::Status RunConcurrently(const ConcurrentRuns& runs);

// --jobs: children at once; 0 (the default) is the CPUs this process may run on (a Slurm or
// container CPU set, not the machine's). Out of range is a usage error.
absl::StatusOr<int> JobsFromFlags(const cli::FlagValues& flags);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_RUN_CHILD_PROCESS_H_
