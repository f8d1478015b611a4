#include "sim/core/cost/cost_model_factory.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "calibration/host_profile.h"
#include "calibration/profile_catalog.h"
#include "sim/core/cost/calibrated_cost_model.h"
#include "sim/core/cost/execution_cost_model.h"
#include "sim/core/cost/roofline_cost_model.h"
#include "sim/core/cost/speculative_cost_model.h"

namespace infergrid {
namespace {

// The roofline's demands for a request, without any fixed per-iteration overhead.
RooflineCostOptions RooflineDemands(const CostModelRequest& request) {
  RooflineCostOptions options;
  options.compute_dtype = request.compute_dtype;
  options.weight_bytes = request.weight_bytes_per_gpu;
  // With window groups a block spans one group's layers: the roofline reads every layer's.
  // With TensorRT-LLM's window pools bytes_per_token is the first pool's: the roofline reads every pool's layers.
  const KvCacheGroups& groups = request.kv.groups;
  options.kv_bytes_per_token = groups.hybrid()
                                   ? request.kv.bytes_per_token / groups.layers_per_group * request.model.num_layers()
                                   : request.kv.bytes_per_token;
  if (!request.kv.window_pools.empty()) {
    options.kv_bytes_per_token = 0;
    for (const KvWindowPool& pool : request.kv.window_pools) options.kv_bytes_per_token += pool.bytes_per_token;
  }
  options.active_parameters = request.active_parameters;
  options.tensor_parallel = request.tensor_parallel;
  return options;
}

std::unique_ptr<IterationCostModel> MakeRoofline(const CostModelRequest& request, double* overhead_s) {
  RooflineCostOptions options = RooflineDemands(request);
  options.overhead_s = kRooflineOverheadCudaGraphsS;
  const double eager = kRooflineLaunchPerLayerEagerS * request.model.num_layers();
  if (request.enable_cuda_graphs) {
    options.eager_overhead_s = eager;
  } else {
    options.overhead_s += eager;
  }
  *overhead_s = options.overhead_s;
  return std::make_unique<RooflineCostModel>(request.model, request.gpu, options);
}

// The request for the speculative proposer's own model: the target's deployment with the
// draft's spec, weights and KV.
CostModelRequest DraftRequest(const CostModelRequest& request) {
  CostModelRequest d = request;
  const SpeculativeCostRequest& s = *request.speculation;
  d.model = *s.draft;
  d.weight_bytes_per_gpu = s.draft_weight_bytes_per_gpu;
  d.kv.bytes_per_token = s.draft_kv_bytes_per_token;
  d.active_parameters = s.draft_active_parameters;
  d.speculation.reset();
  return d;
}

// `target` with the speculative proposer in front of it (unchanged without speculation).
std::unique_ptr<IterationCostModel> WithSpeculation(const CostModelRequest& request,
                                                    std::unique_ptr<IterationCostModel> target,
                                                    std::unique_ptr<IterationCostModel> draft) {
  if (!request.speculation.has_value()) return target;
  SpeculativeCostOptions options;
  options.ngram_host_s_per_sequence = request.speculation->ngram_host_s_per_sequence;
  options.proposer = request.speculation->proposer;
  return std::make_unique<SpeculativeCostModel>(std::move(target), std::move(draft), options);
}

// The engine's custom all-reduce over the GPU's NVLink, when the engine has one and the GPU
// has NVLink (vLLM and SGLang require a fully NVLink-connected node; PCIe falls back to NCCL).
// The peer link is set wherever the GPU has NVLink: the engine's fused all-reduce + norm reads
// its peers the same way, with or without the custom kernel (--disable-custom-all-reduce).
CustomAllReduceOptions CustomAllReduceFor(const CostModelRequest& request) {
  CustomAllReduceOptions options;
  if (!request.execution.has_value() || request.gpu.nvlink_bytes_per_s() <= 0) return options;
  const CustomAllReduce& c = request.execution->custom_all_reduce();
  options.link.bytes_per_s = request.gpu.nvlink_bytes_per_s() / 2 * c.nvlink_read_fraction();
  options.link.fixed_s = c.fixed_s();
  options.link.copy_bytes_per_s = request.gpu.hbm_bytes_per_s();
  if (!c.enabled() || !request.custom_all_reduce) return options;
  options.enabled = true;
  options.max_bytes = c.max_bytes();
  for (const CustomAllReduce::OneShot& o : c.one_shot())
    options.one_shot_below.emplace_back(o.max_world(), o.below_bytes());
  for (const CustomAllReduce::SymmetricMemory& m : c.symmetric_memory()) {
    if (m.architecture() != request.gpu.architecture() || m.world() != request.tensor_parallel) continue;
    options.custom_max_bytes = std::min(m.custom_max_bytes(), c.max_bytes());
    options.symmetric_max_bytes = m.max_bytes();
    options.symmetric_multimem = m.multimem();
    break;
  }
  return options;
}

// The kernels the engine fuses (its personality's KernelFusion): the add into the norm always;
// the all-reduce with the add and the norm only under tensor parallelism over NVLink on the
// architectures the engine runs its fused kernel on, below the size it allows at this TP, over
// the peer link CustomAllReduceFor set.
void FusionFor(const CostModelRequest& request, KernelFusionOptions* kernels, CustomAllReduceOptions* all_reduce) {
  if (!request.execution.has_value()) return;
  const KernelFusion& f = request.execution->fusion();
  kernels->add_rms_norm = f.add_rms_norm();
  if (request.tensor_parallel < 2 || request.gpu.nvlink_bytes_per_s() <= 0) return;
  for (const KernelFusion::AllReduceRmsNorm& entry : f.allreduce_rms_norm()) {
    if (entry.architecture() != request.gpu.architecture() || entry.world() != request.tensor_parallel) continue;
    kernels->allreduce_rms_norm_max_bytes = entry.max_bytes();
    all_reduce->fused_one_shot_below = entry.one_shot_below_bytes();
    return;
  }
}

// The calibrated model with the engine's host time around it.
absl::StatusOr<std::unique_ptr<IterationCostModel>> WithHostTime(const CostModelRequest& request,
                                                                 std::unique_ptr<IterationCostModel> gpu) {
  if (!request.execution.has_value() || request.execution->host_calibration().empty()) return gpu;
  absl::StatusOr<HostCalibration> calibration = ResolveHostCalibration(request.execution->host_calibration());
  if (!calibration.ok()) return calibration.status();
  HostTimeOptions options;
  options.tensor_parallel = request.tensor_parallel;
  options.host_speed = request.cpu_speed;
  options.overlap = request.overlap;
  options.vocab_size = request.model.vocab_size();
  options.multi_step = request.num_scheduler_steps > 1;
  absl::StatusOr<HostTimeModel> host = HostTimeModel::Create(*request.execution, *calibration, options);
  if (!host.ok()) return absl::InvalidArgumentError(absl::StrCat(request.engine, ": ", host.status().message()));
  return std::unique_ptr<IterationCostModel>(
      std::make_unique<ExecutionCostModel>(std::move(gpu), *std::move(host), request.engine));
}

}  // namespace

double RooflineAllReduceLatency(int tensor_parallel) {
  if (tensor_parallel < 2) return 0;
  return 7e-6 + 8e-6 * (std::log2(static_cast<double>(tensor_parallel)) - 1);
}

absl::StatusOr<CostModelSource> ChooseCostModelSource(const CostModelRequest& request) {
  CostModelSource source;
  if (request.kind == CostModelKind::kRoofline) {
    source.reason = "requested with --cost-model=roofline";
    return source;
  }
  absl::StatusOr<Calibration> calibration = ResolveCalibration(request.gpu, request.calibration_path);
  if (calibration.ok()) {
    source.kind = CostModelKind::kCalibrated;
    source.reason = absl::StrCat("calibration profile ", CalibrationLabel(*calibration));
    source.calibration = *std::move(calibration);
    return source;
  }
  // A profile named on the command line must load; a missing bundled one falls back.
  if (request.kind == CostModelKind::kCalibrated || !request.calibration_path.empty() ||
      calibration.status().code() != absl::StatusCode::kNotFound) {
    return calibration.status();
  }
  // An edited catalog GPU says so; a GPU without a profile keeps the short reason.
  const absl::string_view message = calibration.status().message();
  source.reason = absl::StartsWith(message, "the GPU spec named")
                      ? std::string(message.substr(0, message.find("; give a profile")))
                      : absl::StrCat("no calibration profile for ", request.gpu.name());
  return source;
}

absl::StatusOr<CostModelChoice> MakeCostModel(const CostModelRequest& request) {
  absl::StatusOr<CostModelSource> source = ChooseCostModelSource(request);
  if (!source.ok()) return source.status();
  CostModelChoice choice;
  choice.reason = source->reason;
  if (source->kind == CostModelKind::kCalibrated) {
    const Calibration& calibration = *source->calibration;
    CalibratedCostOptions options;
    options.kernels.tensor_parallel = request.tensor_parallel;
    options.kernels.expert_parallel = request.expert_parallel;
    options.kernels.attention_data_parallel = request.attention_data_parallel;
    options.kernels.weights = request.weights;
    options.kernels.kv_dtype = request.kv.dtype;
    options.kernels.compute_dtype = request.compute_dtype;
    options.kernels.kv_block_tokens = request.kv.block_size;
    options.cuda_graphs = request.enable_cuda_graphs;
    options.custom_all_reduce = CustomAllReduceFor(request);
    FusionFor(request, &options.kernels.fusion, &options.custom_all_reduce);
    absl::StatusOr<std::unique_ptr<CalibratedCostModel>> model =
        CalibratedCostModel::Create(request.model, request.gpu, calibration, options);
    if (!model.ok()) return model.status();
    std::unique_ptr<IterationCostModel> draft;
    if (request.speculation.has_value() && request.speculation->draft.has_value()) {
      absl::StatusOr<std::unique_ptr<CalibratedCostModel>> d =
          CalibratedCostModel::Create(*request.speculation->draft, request.gpu, calibration, options);
      if (!d.ok()) return d.status();
      draft = *std::move(d);
    }
    absl::StatusOr<std::unique_ptr<IterationCostModel>> wrapped =
        WithHostTime(request, WithSpeculation(request, *std::move(model), std::move(draft)));
    if (!wrapped.ok()) return wrapped.status();
    choice.kind = CostModelKind::kCalibrated;
    choice.model = *std::move(wrapped);
    return choice;
  }
  choice.kind = CostModelKind::kRoofline;
  choice.allreduce_latency_s = RooflineAllReduceLatency(request.tensor_parallel);
  choice.model = MakeRoofline(request, &choice.overhead_s);
  if (request.speculation.has_value()) {
    std::unique_ptr<IterationCostModel> draft;
    if (request.speculation->draft.has_value()) {
      const CostModelRequest d = DraftRequest(request);
      draft = std::make_unique<RooflineCostModel>(d.model, d.gpu, RooflineDemands(d));
    }
    choice.model = WithSpeculation(request, std::move(choice.model), std::move(draft));
  }
  return choice;
}

}  // namespace infergrid
