// How far a run has come, for whoever shows it (the `simulate` command's progress line on a
// terminal): the engine reports through EngineConfig::on_progress and prints nothing itself.
// Reports are sparse (one per 256 arrivals, iteration runs or steps) so that a report costs the
// hot loop an increment and a compare; the receiver throttles further by wall time.
#ifndef INFERGRID_SIM_CORE_ENGINE_RUN_PROGRESS_H_
#define INFERGRID_SIM_CORE_ENGINE_RUN_PROGRESS_H_

#include <cstdint>
#include <functional>

namespace infergrid {

struct RunProgress {
  int64_t arrived = 0;  // requests sent by the client so far
  int64_t iterations = 0;  // iterations completed, all replicas
  double simulated_s = 0;  // the simulation's clock
  bool finished = false;  // the last report of the run (after the engine stopped)
};

using ProgressCallback = std::function<void(const RunProgress&)>;

// The engine's side: calls `callback` (when set) on every 256th Update and once on Finish.
class ProgressReporter {
 public:
  explicit ProgressReporter(const ProgressCallback& callback) : callback_(callback ? &callback : nullptr) {}
  void Update(int64_t arrived, int64_t iterations, double simulated_s) {
    if (callback_ == nullptr || (++calls_ & 255) != 0) return;
    (*callback_)(RunProgress{arrived, iterations, simulated_s, false});
  }
  void Finish(int64_t arrived, int64_t iterations, double simulated_s) {
    if (callback_ != nullptr) (*callback_)(RunProgress{arrived, iterations, simulated_s, true});
  }

 private:
  const ProgressCallback* callback_;
  uint64_t calls_ = 0;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_ENGINE_RUN_PROGRESS_H_
