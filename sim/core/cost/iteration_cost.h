// The cost model's contract: the time of one engine iteration (one forward pass over a batch
// of prefill chunks and decode sequences, models/batch_shape.h) on one replica, with the lower
// bounds behind it and the binding resource. Implementations are pure functions of the batch
// shape: the roofline model (datasheet peaks, no calibration) and the calibrated model
// (kernel by kernel through hardware/resource_model.h), both in this folder.
#ifndef INFERGRID_SIM_CORE_COST_ITERATION_COST_H_
#define INFERGRID_SIM_CORE_COST_ITERATION_COST_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "hardware/resource.h"
#include "models/batch_shape.h"

namespace infergrid {

struct IterationCost {
  double duration_s = 0;
  double flops = 0;
  double hbm_bytes = 0;
  double hbm_bound_s = 0;  // hbm_bytes / peak bandwidth
  double compute_bound_s = 0;  // flops / peak tensor rate
  double overhead_s = 0;  // launch, CPU and fixed costs inside duration_s
  // Filled by the calibrated model (0 from the roofline model): flops = tensor + CUDA-core
  // FLOPs; hbm_bytes there is the predicted DRAM traffic after L2 hits; l2_bound_s is L2
  // bytes over the calibrated L2 rate (datasheets give no L2 peak); network_s is the time in
  // collectives.
  double tensor_flops = 0;
  double cuda_flops = 0;
  double l2_bytes = 0;
  double l2_bound_s = 0;
  double network_s = 0;
  int64_t kernel_launches = 0;
  // The engine's host work (ExecutionCostModel; 0 from a bare GPU model): host_s of duration_s
  // is host time the GPU waits for; host_hidden_s ran under the GPU's work; the tokens of the
  // iteration reach the client output_delay_s after it ends (output processing overlapped
  // with the next iteration, or done by another process).
  double host_s = 0;
  double host_hidden_s = 0;
  double output_delay_s = 0;
  // Speculative decoding (sim/core/cost/speculative_cost_model.h): of duration_s, the proposer's
  // time before the target's verification (draft passes, or n-gram lookup on the host).
  double draft_s = 0;
  // Achieved fraction of each peak over the whole iteration (bound / duration).
  double hbm_fraction() const { return duration_s > 0 ? hbm_bound_s / duration_s : 0; }
  double compute_fraction() const { return duration_s > 0 ? compute_bound_s / duration_s : 0; }
  double l2_fraction() const { return duration_s > 0 ? l2_bound_s / duration_s : 0; }
  Resource binding = Resource::kHbm;  // the resource with the largest share of duration_s
};

class IterationCostModel {
 public:
  virtual ~IterationCostModel() = default;
  // Thread-compatible, deterministic, and cheap: O(batch) per call, no allocation in steady state.
  virtual IterationCost Cost(const BatchShape& batch) const = 0;
  // "roofline (uncalibrated)", "calibrated h100-sxm", ... for reports.
  virtual absl::string_view Description() const = 0;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_COST_ITERATION_COST_H_
