// How long an iteration's kernels take on the GPU, given how they are put there (LaunchMode):
// replayed from a CUDA graph they run back to back, a small gap apart; issued one by one by
// the host (eager) a kernel also waits for its launch, so kernels shorter than the host's issue
// time leave the GPU idle; piecewise (graphs between attention kernels) the host issues the
// attention kernels and one graph replay per piece. Kernels run in list order: those before
// the layers, each layer's (the kernels with repeat > 1) layer after layer, those after.
#ifndef INFERGRID_HARDWARE_LAUNCH_MODEL_H_
#define INFERGRID_HARDWARE_LAUNCH_MODEL_H_

#include "models/batch_shape.h"
#include "models/iteration_kernels.h"

namespace infergrid {

struct LaunchCosts {
  double graph_gap_s = 0;  // between kernels replayed back to back
  double eager_issue_s = 0;  // host time to launch one kernel or one graph replay
};

// `kernel_seconds[i]` is the GPU time of one launch of kernels.kernels[i].
// O(kernels x layers) for eager and piecewise, O(kernels) for graphs.
double LaunchedSeconds(const IterationKernels& kernels, const double* kernel_seconds, LaunchMode launch,
                       const LaunchCosts& costs);

}  // namespace infergrid

#endif  // INFERGRID_HARDWARE_LAUNCH_MODEL_H_
