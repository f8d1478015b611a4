// Chooses and builds the IterationCostModel a simulation runs on: `--cost-model=auto` (the
// default) takes the calibrated model when a calibration profile exists for the GPU (bundled,
// or --calibration=FILE) and the roofline model otherwise; `roofline` and `calibrated` force
// one. The summary reports which model ran and why. This is the one place that knows the
// concrete models.
//
// The model prices one tensor-parallel shard's forward pass (per-GPU weights, KV and FLOPs)
// including the per-iteration launch and fixed overheads. Tensor-parallel collectives: the
// calibrated model reports their measured time as IterationCost::network_s; the engine moves
// the ring's bytes over the simulated links and keeps the rest of network_s as fixed latency,
// so an uncontended iteration takes exactly duration_s. The roofline model has no collectives
// (network_s = 0); the engine adds a per-all-reduce latency and the ring's bytes.
#ifndef INFERGRID_SIM_CORE_COST_COST_MODEL_FACTORY_H_
#define INFERGRID_SIM_CORE_COST_COST_MODEL_FACTORY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "base/dtype.h"
#include "base/dtype.pb.h"
#include "base/enum_names.h"
#include "calibration/calibration.pb.h"
#include "hardware/hardware_spec.pb.h"
#include "models/iteration_kernels.h"
#include "models/kv_cache_size.h"
#include "models/model_spec.pb.h"
#include "sim/core/personality/engine_personality.pb.h"
#include "sim/core/cost/iteration_cost.h"

namespace infergrid {

// --cost-model: auto takes the calibrated model where a profile exists.
enum class CostModelKind { kAuto, kRoofline, kCalibrated };
inline constexpr EnumName<CostModelKind> kCostModelNames[] = {
    {CostModelKind::kAuto, "auto"}, {CostModelKind::kRoofline, "roofline"}, {CostModelKind::kCalibrated, "calibrated"}};

// Speculative decoding (sim/core/cost/speculative_cost_model.h): the proposer's model on the same
// GPUs, priced by the same kind of cost model as the target, without host time of its own (the
// step's host work is the engine's, once). A roofline draft pays no fixed per-pass overhead (its
// passes run inside the target's step). No draft: n-gram lookup on the host.
struct SpeculativeCostRequest {
  std::optional<ModelSpec> draft;  // unset: n-gram
  double draft_weight_bytes_per_gpu = 0;
  int64_t draft_kv_bytes_per_token = 0;  // per GPU
  double draft_active_parameters = 0;
  double ngram_host_s_per_sequence = 0;
  std::string proposer = "n-gram lookup";  // for descriptions: "llama-3-8b draft", "eagle head"
};

struct CostModelRequest {
  CostModelKind kind = CostModelKind::kAuto;
  ModelSpec model;
  GpuSpec gpu;
  DType compute_dtype = DType::BF16;
  WeightFormat weights;
  double weight_bytes_per_gpu = 0;
  KvCacheLayout kv;  // dtype, block size and bytes per token per GPU
  double active_parameters = 0;  // whole model; divided by TP inside
  int tensor_parallel = 1;
  bool enable_cuda_graphs = true;
  std::string calibration_path;  // --calibration=FILE; empty: the bundled profile
  // The engine's execution (its personality's): with a host calibration named there, the
  // calibrated model is wrapped with the engine's host time (ExecutionCostModel), and its
  // all-reduces use the engine's custom kernels where the engine would. The roofline model
  // keeps its fixed per-iteration overhead instead.
  std::optional<ExecutionModel> execution;
  std::string engine;  // "vllm-v1@0.21", for descriptions
  double cpu_speed = 1;  // host speed relative to the host calibration's host
  bool overlap = true;  // false: the engine's overlap switched off
  int num_scheduler_steps = 1;  // > 1: multi-step scheduling (host phases move)
  bool custom_all_reduce = true;  // false: NCCL only (--disable-custom-all-reduce)
  ExpertParallelism expert_parallel;  // experts whole per GPU; their dispatch (calibrated model)
  // Attention data parallelism: ranks of tensor_parallel GPUs, each priced on its own batch, the
  // routed experts over all of them (IterationKernelOptions::attention_data_parallel).
  int attention_data_parallel = 1;
  std::optional<SpeculativeCostRequest> speculation;  // unset: no speculative decoding
};

struct CostModelChoice {
  std::unique_ptr<IterationCostModel> model;
  CostModelKind kind = CostModelKind::kRoofline;  // the one built: roofline or calibrated
  std::string reason;  // why this one ("no calibration profile for h100-sxm")
  double overhead_s = 0;  // the per-iteration overhead the model includes
  // A model without collectives (roofline): the fixed time of one tensor-parallel all-reduce,
  // which the engine adds per all-reduce on top of the ring's bytes. 0 for the calibrated
  // model, whose collectives are inside IterationCost::network_s.
  double allreduce_latency_s = 0;
};

// Per-iteration CPU and launch overhead of the uncalibrated model, from the published step
// times in shared/data/measurements (serving_reference.csv F21, microbenchmarks.csv F42):
// Llama-3-8B bs1 decode on an H100-class GPU takes 7.06 ms with CUDA graphs and 9.28 ms
// without, against a 4.80 ms HBM roofline.
inline constexpr double kRooflineOverheadCudaGraphsS = 2.26e-3;
inline constexpr double kRooflineLaunchPerLayerEagerS = 2.22e-3 / 32;

// The roofline model's per-all-reduce latency: the NCCL all-reduce floor on DGX-H100
// (microbenchmarks.csv F41: 7 us at TP2, 23 us at TP8 for small messages), interpolated in
// log2(TP); 0 without tensor parallelism.
double RooflineAllReduceLatency(int tensor_parallel);

// Which model MakeCostModel builds for `request`, and from what: the calibration profile it reads
// (kind kCalibrated), or why it prices with the roofline model (a --cost-model=roofline request, or
// auto on a GPU without a bundled profile). A profile that must load and does not is the error.
struct CostModelSource {
  CostModelKind kind = CostModelKind::kRoofline;
  std::optional<Calibration> calibration;  // set when kind is kCalibrated
  std::string reason;  // "calibration profile h100-sxm (measured)", "no calibration profile for X", ...
};
absl::StatusOr<CostModelSource> ChooseCostModelSource(const CostModelRequest& request);

absl::StatusOr<CostModelChoice> MakeCostModel(const CostModelRequest& request);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_COST_COST_MODEL_FACTORY_H_
