#include "sim/core/simulator/one_pass_cost.h"

#include <memory>

#include "sim/core/cost/calibrated_cost_model.h"

namespace infergrid {

absl::StatusOr<OnePassCost> PriceOnePass(const AccountingSetup& setup, const BatchShape& batch,
                                         const Calibration& calibration) {
  CalibratedCostOptions options;
  options.kernels.weights = setup.weights;
  options.kernels.kv_dtype = setup.kv_dtype;
  options.kernels.compute_dtype = setup.compute_dtype;
  const DType native = setup.model.dtype();
  options.kernels.activation_dtype = native == DType::FP16 ? DType::FP16 : DType::BF16;
  if (setup.compute_dtype == DType::FP16 || setup.compute_dtype == DType::BF16) {
    options.kernels.activation_dtype = setup.compute_dtype;
  }
  absl::StatusOr<std::unique_ptr<CalibratedCostModel>> graphs =
      CalibratedCostModel::Create(setup.model, setup.gpu, calibration, options);
  if (!graphs.ok()) return graphs.status();
  options.cuda_graphs = false;
  absl::StatusOr<std::unique_ptr<CalibratedCostModel>> eager =
      CalibratedCostModel::Create(setup.model, setup.gpu, calibration, options);
  if (!eager.ok()) return eager.status();
  OnePassCost cost;
  cost.graphs = (*graphs)->Cost(batch);
  cost.eager_duration_s = (*eager)->Cost(batch).duration_s;
  return cost;
}

}  // namespace infergrid
