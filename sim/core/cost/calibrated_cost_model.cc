#include "sim/core/cost/calibrated_cost_model.h"

#include <algorithm>
#include <array>
#include <atomic>

#include "absl/strings/str_cat.h"
#include "calibration/profile_catalog.h"
#include "hardware/launch_model.h"
#include "hardware/lower_bounds.h"

namespace infergrid {

absl::StatusOr<std::unique_ptr<CalibratedCostModel>> CalibratedCostModel::Create(
    const ModelSpec& model, const GpuSpec& gpu, const Calibration& calibration,
    const CalibratedCostOptions& options) {
  absl::StatusOr<IterationKernelBuilder> builder = IterationKernelBuilder::Create(model, options.kernels);
  if (!builder.ok()) return builder.status();
  absl::StatusOr<ResourceModel> resources = ResourceModel::Create(gpu, ResourcesOf(calibration));
  if (!resources.ok()) return resources.status();
  if (options.kernels.tensor_parallel > 1 && !resources->HasAllReduceTable()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "calibration '", calibration.gpu(), "' has no all-reduce table: tensor parallel ",
        options.kernels.tensor_parallel, " cannot be costed with it"));
  }
  std::string description =
      calibration.extrapolated()
          ? absl::StrCat("calibrated ", gpu.name(), " (extrapolated from ",
                         calibration.extrapolated_from(), ")")
          : absl::StrCat("calibrated ", gpu.name());
  if (!options.cuda_graphs) absl::StrAppend(&description, ", eager");
  return std::unique_ptr<CalibratedCostModel>(new CalibratedCostModel(
      std::move(*builder), std::move(*resources), options, std::move(description)));
}

void CalibratedCostModel::CustomAllReduce(const Kernel& kernel, bool in_graph, KernelTime* time) const {
  const CustomAllReduceOptions& c = options_.custom_all_reduce;
  if (!c.enabled || kernel.collective_bytes >= c.max_bytes) return;
  PeerAllReduce algorithm = PeerAllReduce::kTwoShot;
  for (const auto& [max_world, below] : c.one_shot_below) {
    if (kernel.ranks <= max_world) {
      if (kernel.collective_bytes < below) algorithm = PeerAllReduce::kOneShot;
      break;
    }
  }
  const double seconds = PeerAllReduceSeconds(algorithm, kernel.ranks, kernel.collective_bytes, c.link, in_graph);
  time->seconds = time->busy_s = time->network_s = seconds;
}

uint64_t CalibratedCostModel::NextId() {
  static std::atomic<uint64_t> next{1};
  return next++;
}

CalibratedCostModel::SlotMemo& CalibratedCostModel::ThreadMemo() const {
  thread_local SlotMemo memo;
  if (memo.model_id != id_) {
    memo.model_id = id_;
    memo.valid.fill(false);
  }
  return memo;
}

KernelTime CalibratedCostModel::SlotTime(const Kernel& kernel, size_t slot, SlotMemo& memo) const {
  if (memo.valid[slot] && memo.kernel[slot] == kernel) return memo.time[slot];
  memo.valid[slot] = true;
  memo.kernel[slot] = kernel;
  memo.time[slot] = resources_.Time(kernel);
  return memo.time[slot];
}

IterationCost CalibratedCostModel::Cost(const BatchShape& batch) const {
  return CostWithKernels(batch, nullptr);
}

IterationCost CalibratedCostModel::CostWithKernels(const BatchShape& batch,
                                                   std::vector<KernelCost>* detail) const {
  IterationCost cost;
  if (detail != nullptr) detail->clear();
  if (batch.empty()) return cost;
  thread_local IterationKernels kernels;  // reused: its 40 slots are not rebuilt per call
  builder_.Build(batch, &kernels);
  const GpuSpec& gpu = resources_.gpu();
  double gpu_s = 0, fixed_s = 0, network_s = 0, launches = 0;
  double tensor_flops = 0, cuda_flops = 0, hbm_bytes = 0, l2_bytes = 0, compute_bound = 0;
  const LaunchMode launch = options_.cuda_graphs ? batch.launch : LaunchMode::kEager;
  std::array<double, kMaxIterationKernels> seconds{};
  SlotMemo& memo = ThreadMemo();
  for (const Kernel& k : kernels) {
    const size_t slot = static_cast<size_t>(&k - kernels.begin());
    KernelTime t = SlotTime(k, slot, memo);
    seconds[slot] = t.seconds;
    if (k.kind == KernelKind::kAllReduce) CustomAllReduce(k, launch != LaunchMode::kEager, &t);
    const double repeat = k.repeat;
    gpu_s += repeat * t.seconds;
    fixed_s += repeat * t.fixed_s;
    network_s += repeat * t.network_s;
    launches += repeat;
    tensor_flops += repeat * k.tensor_flops;
    cuda_flops += repeat * k.cuda_flops;
    hbm_bytes += repeat * t.hbm_bytes;
    l2_bytes += repeat * t.l2_bytes;
    double peak = PeakTensorFlops(gpu, k.tensor_dtype);
    if (peak <= 0) peak = gpu.tensor_peaks().fp16_flops();
    if (k.tensor_flops > 0) compute_bound += repeat * k.tensor_flops / peak;
    if (detail != nullptr) detail->push_back({k, t, repeat * t.seconds});
  }
  // Replayed from a graph, kernels run back to back with a small gap; issued by the host, a
  // kernel also waits for its launch (hardware/launch_model.h).
  cost.duration_s = launch == LaunchMode::kGraph
                        ? gpu_s + launches * resources_.launch_graph_s()
                        : LaunchedSeconds(kernels, seconds.data(), launch,
                                          {resources_.launch_graph_s(), resources_.launch_eager_s()});
  const double launch_s = cost.duration_s - gpu_s;
  cost.flops = tensor_flops + cuda_flops;
  cost.tensor_flops = tensor_flops;
  cost.cuda_flops = cuda_flops;
  cost.hbm_bytes = hbm_bytes;
  cost.l2_bytes = l2_bytes;
  cost.hbm_bound_s = hbm_bytes / gpu.hbm_bytes_per_s();
  cost.compute_bound_s = compute_bound;
  cost.l2_bound_s = l2_bytes / resources_.PeakL2Rate();
  cost.network_s = network_s;
  cost.overhead_s = fixed_s + launch_s;
  cost.kernel_launches = static_cast<int64_t>(launches);
  // Section 9: the binding resource has the highest achieved fraction of its ceiling; time
  // spent in collectives and fixed costs competes by its share of the duration.
  const std::pair<double, Resource> candidates[] = {
      {cost.hbm_fraction(), Resource::kHbm},
      {cost.compute_fraction(), Resource::kCompute},
      {cost.l2_fraction(), Resource::kL2},
      {network_s / cost.duration_s, Resource::kNetwork},
      {cost.overhead_s / cost.duration_s, Resource::kOverhead},
  };
  cost.binding = std::max_element(std::begin(candidates), std::end(candidates),
                                  [](const auto& a, const auto& b) { return a.first < b.first; })
                     ->second;
  return cost;
}

}  // namespace infergrid
