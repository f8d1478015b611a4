#include "sim/app/output/progress_line.h"

#include <cstdio>

namespace infergrid {

void ProgressLine::Report(const RunProgress& progress) {
  if (progress.finished) {
    if (shown_) std::fprintf(stderr, "\r%80s\r", "");
    shown_ = false;
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  const double wall = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "\rsimulate: %lld arrived, %lld iterations, %.1f s simulated, %.1f s wall   ",
               static_cast<long long>(progress.arrived), static_cast<long long>(progress.iterations),
               progress.simulated_s, wall);
  std::fflush(stderr);
  shown_ = true;
}

}  // namespace infergrid
