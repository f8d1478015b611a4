#include "sim/cost/cost_model_factory.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "calibration/profile_catalog.h"
#include "sim/cost/calibrated_cost_model.h"
#include "sim/cost/roofline_cost_model.h"

namespace infergrid {
namespace {

std::unique_ptr<IterationCostModel> MakeRoofline(const CostModelRequest& request, double* overhead_s) {
  RooflineCostOptions options;
  options.compute_dtype = request.compute_dtype;
  options.weight_bytes = request.weight_bytes_per_gpu;
  options.kv_bytes_per_token = request.kv.bytes_per_token;
  options.active_parameters = request.active_parameters;
  options.tensor_parallel = request.tensor_parallel;
  options.overhead_s = kRooflineOverheadCudaGraphsS;
  if (!request.enable_cuda_graphs) {
    options.overhead_s += kRooflineLaunchPerLayerEagerS * request.model.num_layers();
  }
  *overhead_s = options.overhead_s;
  return std::make_unique<RooflineCostModel>(request.model, request.gpu, options);
}

}  // namespace

double RooflineAllReduceLatency(int tensor_parallel) {
  if (tensor_parallel < 2) return 0;
  return 7e-6 + 8e-6 * (std::log2(static_cast<double>(tensor_parallel)) - 1);
}

absl::StatusOr<CostModelChoice> MakeCostModel(const CostModelRequest& request) {
  CostModelChoice choice;
  if (request.kind != CostModelKind::kRoofline) {
    absl::StatusOr<Calibration> calibration = ResolveCalibration(request.gpu, request.calibration_path);
    if (calibration.ok()) {
      CalibratedCostOptions options;
      options.kernels.tensor_parallel = request.tensor_parallel;
      options.kernels.weights = request.weights;
      options.kernels.kv_dtype = request.kv.dtype;
      options.kernels.compute_dtype = request.compute_dtype;
      options.kernels.kv_block_tokens = request.kv.block_size;
      options.cuda_graphs = request.enable_cuda_graphs;
      absl::StatusOr<std::unique_ptr<CalibratedCostModel>> model =
          CalibratedCostModel::Create(request.model, request.gpu, *calibration, options);
      if (!model.ok()) return model.status();
      choice.kind = CostModelKind::kCalibrated;
      choice.reason = absl::StrCat("calibration profile ", CalibrationLabel(*calibration));
      choice.model = *std::move(model);
      return choice;
    }
    // A profile named on the command line must load; a missing bundled one falls back.
    if (request.kind == CostModelKind::kCalibrated || !request.calibration_path.empty() ||
        calibration.status().code() != absl::StatusCode::kNotFound) {
      return calibration.status();
    }
  }
  choice.kind = CostModelKind::kRoofline;
  choice.allreduce_latency_s = RooflineAllReduceLatency(request.tensor_parallel);
  choice.reason = request.kind == CostModelKind::kRoofline
                      ? "requested with --cost-model=roofline"
                      : absl::StrCat("no calibration profile for ", request.gpu.name());
  choice.model = MakeRoofline(request, &choice.overhead_s);
  return choice;
}

}  // namespace infergrid
