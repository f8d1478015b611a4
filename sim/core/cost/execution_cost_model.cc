#include "sim/core/cost/execution_cost_model.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace infergrid {

ExecutionCostModel::ExecutionCostModel(std::unique_ptr<IterationCostModel> gpu, HostTimeModel host, std::string engine)
    : gpu_(std::move(gpu)),
      host_(std::move(host)),
      description_(absl::StrCat(gpu_->Description(), " + ", engine, " host time")) {}

IterationCost ExecutionCostModel::Cost(const BatchShape& batch) const {
  IterationCost cost = gpu_->Cost(batch);
  if (batch.empty()) return cost;
  const HostTimes h = host_.Times(batch);
  const double gpu_s = cost.duration_s;
  const double hidden = h.under_gpu_s + h.under_next_s;
  cost.duration_s = h.before_s + std::max(gpu_s, hidden) + h.after_s;
  cost.host_s = cost.duration_s - gpu_s;
  cost.host_hidden_s = std::min(gpu_s, hidden);
  cost.output_delay_s = h.under_next_s + h.off_path_s;
  // The host binds when the GPU waits for it longer than any GPU resource's share.
  const double host_share = cost.duration_s > 0 ? cost.host_s / cost.duration_s : 0;
  const double gpu_share = [&] {
    switch (cost.binding) {
      case Resource::kHbm: return cost.hbm_fraction();
      case Resource::kCompute: return cost.compute_fraction();
      case Resource::kL2: return cost.l2_fraction();
      case Resource::kNetwork: return cost.network_s / cost.duration_s;
      default: return cost.overhead_s / cost.duration_s;
    }
  }();
  if (host_share > gpu_share) cost.binding = Resource::kHost;
  return cost;
}

}  // namespace infergrid
