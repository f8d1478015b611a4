#include "sim/engine/cost_model_factory.h"

#include "absl/strings/str_cat.h"
#include "hardware/roofline_cost_model.h"

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
  // No calibration profile is bundled yet (calibration/profiles/); when one is, `auto` and
  // `calibrated` build the calibrated model here.
  if (request.choice == "calibrated") {
    return absl::FailedPreconditionError(absl::StrCat(
        "--cost-model=calibrated: no calibration profile for ", request.gpu.name(),
        " is built in (use --cost-model=roofline)"));
  }
  CostModelChoice choice;
  choice.kind = "roofline";
  choice.reason = request.choice == "roofline"
                      ? "requested with --cost-model=roofline"
                      : absl::StrCat("no calibration profile for ", request.gpu.name());
  choice.model = MakeRoofline(request, &choice.overhead_s);
  return choice;
}

}  // namespace infergrid
