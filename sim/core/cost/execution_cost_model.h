// A GPU cost model with the engine's host work around it: one iteration takes
//   before + max(GPU, under_gpu + under_next) + after
// where `before` and `after` are host phases on the critical path, `under_gpu` runs while the
// GPU computes (overlap schedulers), and `under_next` is the previous iteration's output
// processing hidden under this forward (async output processing; the previous iteration's
// batch stands in for its size). The tokens of an iteration reach the client `under_next` +
// `off_path` after it ends. The binding resource is the host when the host time the GPU waits
// for is the largest share of the iteration.
#ifndef INFERGRID_SIM_CORE_COST_EXECUTION_COST_MODEL_H_
#define INFERGRID_SIM_CORE_COST_EXECUTION_COST_MODEL_H_

#include <memory>
#include <string>

#include "sim/core/cost/host_time_model.h"
#include "sim/core/cost/iteration_cost.h"

namespace infergrid {

class ExecutionCostModel final : public IterationCostModel {
 public:
  ExecutionCostModel(std::unique_ptr<IterationCostModel> gpu, HostTimeModel host, std::string engine);
  IterationCost Cost(const BatchShape& batch) const override;
  absl::string_view Description() const override { return description_; }
  const IterationCostModel& gpu() const { return *gpu_; }

 private:
  std::unique_ptr<IterationCostModel> gpu_;
  HostTimeModel host_;
  std::string description_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_COST_EXECUTION_COST_MODEL_H_
