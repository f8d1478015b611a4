// The engine's host (CPU) work in one iteration: the phases of a fitted host calibration
// (calibration/host_calibration.proto: schedule, prepare inputs, launch, sample, process
// outputs, each base + per-sequence cost, sampling's growing with the vocabulary) placed around the GPU's work the way one engine version
// runs them (its personality's execution.host: before or after the forward on the critical
// path, under the forward, under the next iteration's forward, or in another process), scaled by
// the host's speed relative to the calibration's host.
#ifndef INFERGRID_SIM_CORE_COST_HOST_TIME_MODEL_H_
#define INFERGRID_SIM_CORE_COST_HOST_TIME_MODEL_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "calibration/host_calibration.pb.h"
#include "models/batch_shape.h"
#include "sim/core/personality/engine_personality.pb.h"

namespace infergrid {

// Host seconds of one iteration by where they sit.
struct HostTimes {
  double before_s = 0;  // critical path, before the forward
  double after_s = 0;  // critical path, after it
  double under_gpu_s = 0;  // overlapped with this iteration's forward
  double under_next_s = 0;  // overlapped with the next iteration's forward
  double off_path_s = 0;  // another process
};

struct HostTimeOptions {
  int tensor_parallel = 1;
  double host_speed = 1;  // relative to the calibration's host (2: twice as fast)
  bool overlap = true;  // false: the engine's overlap is switched off (see Create)
  int64_t vocab_size = 0;  // the model's vocabulary (sampling's per-sequence term)
  bool multi_step = false;  // --num-scheduler-steps > 1: per_sequence_placement_multi_step applies
};

class HostTimeModel {
 public:
  // Resolves every phase the execution model names in `calibration`; without overlap, phases
  // placed UNDER_GPU or UNDER_NEXT_STEP move to execution.placement_without_overlap.
  // InvalidArgument naming the phase when the calibration lacks it or a placement is unset.
  static absl::StatusOr<HostTimeModel> Create(const ExecutionModel& execution, const HostCalibration& calibration,
                                              const HostTimeOptions& options);
  // O(phases), no allocation.
  HostTimes Times(const BatchShape& batch) const;

 private:
  struct Phase {
    double base_s = 0;
    double per_sequence_s = 0;  // at `placement`, with the vocabulary term
    double moved_per_sequence_s = 0;  // at `moved_placement` (multi-step)
    HostPlacement placement = BEFORE_GPU;
    HostPlacement moved_placement = BEFORE_GPU;
    bool once_per_schedule = false;
  };
  static void Add(HostPlacement placement, double seconds, HostTimes& t);
  std::vector<Phase> phases_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_COST_HOST_TIME_MODEL_H_
