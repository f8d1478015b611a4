// `simulate`'s progress on a terminal: "simulate: 1234 arrived, 56789 iterations, 512.3 s
// simulated, 0.8 s wall" on one stderr line, redrawn at most five times a second from the
// engine's progress reports (EngineConfig::on_progress), and cleared when the run finishes.
#ifndef INFERGRID_SIM_APP_OUTPUT_PROGRESS_LINE_H_
#define INFERGRID_SIM_APP_OUTPUT_PROGRESS_LINE_H_

#include <chrono>

#include "sim/core/engine/run_progress.h"

namespace infergrid {

class ProgressLine {
 public:
  // The wall clock counts from here.
  ProgressLine() : start_(std::chrono::steady_clock::now()) {}
  // Redraws the line (at most every 200 ms of wall time), or clears it at the run's finish.
  void Report(const RunProgress& progress);
  // A callback for EngineConfig::on_progress reporting to this line (which must outlive the run).
  ProgressCallback Callback() {
    return [this](const RunProgress& progress) { Report(progress); };
  }

 private:
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_PROGRESS_LINE_H_
