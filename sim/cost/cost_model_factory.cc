#include "sim/cost/cost_model_factory.h"

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
  options.kv_bytes_per_token = request.kv_bytes_per_token_per_gpu;
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

absl::StatusOr<CostModelChoice> MakeCostModel(const CostModelRequest& request) {
  if (request.choice != "auto" && request.choice != "roofline" && request.choice != "calibrated") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--cost-model: expected auto, roofline or calibrated, got '", request.choice, "'"));
  }
  CostModelChoice choice;
  if (request.choice != "roofline") {
    absl::StatusOr<Calibration> calibration = ResolveCalibration(request.gpu, request.calibration_path);
    if (calibration.ok()) {
      CalibratedCostOptions options;
      options.kernels.tensor_parallel = request.tensor_parallel;
      options.kernels.weights = request.weights;
      options.kernels.kv_dtype = request.kv_dtype;
      options.kernels.compute_dtype = request.compute_dtype;
      options.kernels.kv_block_tokens = request.block_size;
      options.cuda_graphs = request.enable_cuda_graphs;
      absl::StatusOr<std::unique_ptr<CalibratedCostModel>> model =
          CalibratedCostModel::Create(request.model, request.gpu, *calibration, options);
      if (!model.ok()) return model.status();
      choice.kind = "calibrated";
      choice.reason = absl::StrCat("calibration profile ", CalibrationLabel(*calibration));
      choice.model = *std::move(model);
      return choice;
    }
    // A profile named on the command line must load; a missing bundled one falls back.
    if (request.choice == "calibrated" || !request.calibration_path.empty() ||
        calibration.status().code() != absl::StatusCode::kNotFound) {
      return calibration.status();
    }
  }
  choice.kind = "roofline";
  choice.reason = request.choice == "roofline"
                      ? "requested with --cost-model=roofline"
                      : absl::StrCat("no calibration profile for ", request.gpu.name());
  choice.model = MakeRoofline(request, &choice.overhead_s);
  return choice;
}

}  // namespace infergrid
