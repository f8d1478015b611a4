#include "sim/core/engine/run_context.h"

#include <utility>

namespace infergrid {

void RunContext::WakeIdleWorkers() {
  for (WorkerWake& w : workers) {
    if (w.idle) {
      w.idle = false;
      w.wake->release();
    }
  }
}

void RunContext::Fail(absl::Status status) {
  if (error.ok()) error = std::move(status);
  arrivals_done = true;
  next_arrival_s = kRunNever;
  WakeIdleWorkers();
}

}  // namespace infergrid
