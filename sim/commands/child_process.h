// Runs a function in a forked child process and returns the bytes it produced. SimGrid allows
// one engine per process, ever, so every simulation of `compare` (and of tests) runs in a child
// of its own; the parent never starts an engine.
#ifndef INFERGRID_SIM_COMMANDS_CHILD_PROCESS_H_
#define INFERGRID_SIM_COMMANDS_CHILD_PROCESS_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"

namespace infergrid {

// The child runs `body` and exits; its result (value or error, code and message) comes back
// through a pipe. A child that dies is an Internal error naming the signal or exit code.
absl::StatusOr<std::string> RunInChildProcess(const std::function<absl::StatusOr<std::string>()>& body);

}  // namespace infergrid

#endif  // INFERGRID_SIM_COMMANDS_CHILD_PROCESS_H_
