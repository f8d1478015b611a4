#include "sim/core/cost/calibrated_cost_model.h"

#include <algorithm>
#include <array>
#include <atomic>

#include "absl/strings/str_cat.h"
#include "calibration/profile_catalog.h"
#include "hardware/launch_model.h"
#include "hardware/lower_bounds.h"

namespace infergrid {

absl::StatusOr<std::unique_ptr<CalibratedCostModel>> CalibratedCostModel::Create(const ModelSpec& model,
                                                                                 const GpuSpec& gpu,
                                                                                 const Calibration& calibration,
                                                                                 const CalibratedCostOptions& options) {
  absl::StatusOr<IterationKernelBuilder> builder = IterationKernelBuilder::Create(model, options.kernels);
  if (!builder.ok()) return builder.status();
  absl::StatusOr<ResourceModel> resources = ResourceModel::Create(gpu, ResourcesOf(calibration));
  if (!resources.ok()) return resources.status();
  const int gpus = options.kernels.tensor_parallel * options.kernels.attention_data_parallel;
  if (gpus > 1 && !resources->HasAllReduceTable()) {
    return absl::InvalidArgumentError(
        absl::StrCat("calibration '", calibration.gpu(), "' has no all-reduce table: ", gpus,
                     " GPUs (tensor parallel x attention data parallel) cannot be costed with it"));
  }
  std::string description = calibration.extrapolated() ? absl::StrCat("calibrated ", gpu.name(), " (extrapolated from ",
                                                                      calibration.extrapolated_from(), ")")
                                                       : absl::StrCat("calibrated ", gpu.name());
  if (!options.cuda_graphs) absl::StrAppend(&description, ", eager");
  return std::unique_ptr<CalibratedCostModel>(
      new CalibratedCostModel(std::move(*builder), std::move(*resources), options, std::move(description)));
}

void CalibratedCostModel::CustomAllReduce(const Kernel& kernel, bool in_graph, KernelTime* time) const {
  const CustomAllReduceOptions& c = options_.custom_all_reduce;
  if (kernel.fused_rms_norm) {
    const PeerAllReduce fused =
        kernel.collective_bytes < c.fused_one_shot_below ? PeerAllReduce::kOneShot : PeerAllReduce::kTwoShot;
    const double norm_s = c.link.copy_bytes_per_s > 0 ? kernel.hbm_bytes / c.link.copy_bytes_per_s : 0;
    time->seconds = time->busy_s = time->network_s =
        PeerAllReduceSeconds(fused, kernel.ranks, kernel.collective_bytes, c.link, in_graph) + norm_s;
    return;
  }
  if (!c.enabled) return;
  const double custom_max = c.custom_max_bytes > 0 ? c.custom_max_bytes : c.max_bytes;
  if (kernel.collective_bytes >= custom_max) {
    if (kernel.collective_bytes >= c.symmetric_max_bytes) return;  // NCCL
    const PeerAllReduce symmetric = c.symmetric_multimem ? PeerAllReduce::kMultimem : PeerAllReduce::kTwoShot;
    // Symmetric memory copies the input into its registered buffer on every call, in a graph too.
    time->seconds = time->busy_s = time->network_s =
        PeerAllReduceSeconds(symmetric, kernel.ranks, kernel.collective_bytes, c.link, /*in_graph=*/false);
    return;
  }
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

CalibratedCostModel::StepMemo& CalibratedCostModel::ThreadMemo() const {
  thread_local StepMemo memo;
  if (memo.model_id != id_) {
    memo.model_id = id_;
    for (MemoEntry& entry : memo.entries) entry.valid = false;
  }
  return memo;
}

bool CalibratedCostModel::SameDecodeKey(const MemoEntry& entry, const BatchShape& batch, LaunchMode launch) {
  return entry.valid && entry.decode_only && batch.prefill.empty() &&
         entry.sequences == static_cast<int64_t>(batch.decode_context_tokens.size()) &&
         entry.padding_rows == batch.padding_rows && entry.extra_sampled_rows == batch.extra_sampled_rows &&
         entry.launch == launch;
}

CalibratedCostModel::SlotTerms CalibratedCostModel::Terms(const Kernel& k, KernelTime t, LaunchMode launch) const {
  if (k.kind == KernelKind::kAllReduce) CustomAllReduce(k, launch != LaunchMode::kEager, &t);
  const double repeat = k.repeat;
  SlotTerms terms;
  terms.gpu_s = repeat * t.seconds;
  terms.fixed_s = repeat * t.fixed_s;
  terms.network_s = repeat * t.network_s;
  terms.launches = repeat;
  terms.tensor_flops = repeat * k.tensor_flops;
  terms.cuda_flops = repeat * k.cuda_flops;
  terms.hbm_bytes = repeat * t.hbm_bytes;
  terms.l2_bytes = repeat * t.l2_bytes;
  double peak = PeakTensorFlops(resources_.gpu(), k.tensor_dtype);
  if (peak <= 0) peak = resources_.gpu().tensor_peaks().fp16_flops();
  if (k.tensor_flops > 0) terms.compute_bound_s = repeat * k.tensor_flops / peak;
  return terms;
}

void CalibratedCostModel::BuildAndTime(const BatchShape& batch, LaunchMode launch, IterationKernels& scratch,
                                       MemoEntry& entry) const {
  builder_.Build(batch, &scratch);
  IterationKernels& kernels = entry.kernels;
  const bool same_launch = entry.valid && entry.launch == launch;
  for (int slot = 0; slot < scratch.size; ++slot) {
    const size_t i = static_cast<size_t>(slot);
    const Kernel& k = scratch.kernels[i];
    if (entry.valid && slot < kernels.size && kernels.kernels[i] == k) {
      if (!same_launch) entry.terms[i] = Terms(k, entry.time[i], launch);
      continue;
    }
    kernels.kernels[i] = k;
    entry.time[i] = resources_.Time(k);
    entry.seconds[i] = entry.time[i].seconds;
    entry.terms[i] = Terms(k, entry.time[i], launch);
  }
  kernels.size = scratch.size;
  kernels.new_tokens = scratch.new_tokens;
  kernels.sampled_rows = scratch.sampled_rows;
  kernels.decode_attention_slot = scratch.decode_attention_slot;
  entry.prefix_slots = kernels.size;
  for (const int slot : kernels.decode_attention_slot) {
    if (slot >= 0) entry.prefix_slots = std::min(entry.prefix_slots, slot);
  }
  entry.prefix = SlotTerms{};
  AddTerms(entry, 0, entry.prefix_slots, entry.prefix);
  entry.valid = true;
  entry.decode_only = batch.prefill.empty();
  entry.sequences = static_cast<int64_t>(batch.decode_context_tokens.size());
  entry.padding_rows = batch.padding_rows;
  entry.extra_sampled_rows = batch.extra_sampled_rows;
  entry.launch = launch;
}

IterationCost CalibratedCostModel::Cost(const BatchShape& batch) const {
  if (batch.empty()) return IterationCost{};
  const LaunchMode launch = options_.cuda_graphs ? batch.launch : LaunchMode::kEager;
  StepMemo& memo = ThreadMemo();
  const size_t n = batch.decode_context_tokens.size();
  MemoEntry& entry = memo.entries[batch.prefill.empty() ? n % kDecodeEntries : kDecodeEntries];
  if (SameDecodeKey(entry, batch, launch) && builder_.RebuildDecodeAttention(batch, &entry.kernels)) {
    for (const int slot : entry.kernels.decode_attention_slot) {
      if (slot < 0) continue;
      const size_t i = static_cast<size_t>(slot);
      entry.time[i] = resources_.Time(entry.kernels.kernels[i]);
      entry.seconds[i] = entry.time[i].seconds;
      entry.terms[i] = Terms(entry.kernels.kernels[i], entry.time[i], launch);
    }
  } else {
    BuildAndTime(batch, launch, memo.next, entry);
  }
  return Sum(entry, launch);
}

void CalibratedCostModel::AddTerms(const MemoEntry& entry, int from, int to, SlotTerms& total) {
  for (int slot = from; slot < to; ++slot) {
    const SlotTerms& t = entry.terms[static_cast<size_t>(slot)];
    total.gpu_s += t.gpu_s;
    total.fixed_s += t.fixed_s;
    total.network_s += t.network_s;
    total.launches += t.launches;
    total.tensor_flops += t.tensor_flops;
    total.cuda_flops += t.cuda_flops;
    total.hbm_bytes += t.hbm_bytes;
    total.l2_bytes += t.l2_bytes;
    total.compute_bound_s += t.compute_bound_s;
  }
}

IterationCost CalibratedCostModel::Sum(const MemoEntry& entry, LaunchMode launch) const {
  // The same additions in the same order as summing every slot from zero.
  SlotTerms total = entry.prefix;
  AddTerms(entry, entry.prefix_slots, entry.kernels.size, total);
  const GpuSpec& gpu = resources_.gpu();
  IterationCost cost;
  // Replayed from a graph, kernels run back to back with a small gap; issued by the host, a
  // kernel also waits for its launch (hardware/launch_model.h).
  cost.duration_s = launch == LaunchMode::kGraph
                        ? total.gpu_s + total.launches * resources_.launch_graph_s()
                        : LaunchedSeconds(entry.kernels, entry.seconds.data(), launch,
                                          {resources_.launch_graph_s(), resources_.launch_eager_s()});
  const double launch_s = cost.duration_s - total.gpu_s;
  cost.flops = total.tensor_flops + total.cuda_flops;
  cost.tensor_flops = total.tensor_flops;
  cost.cuda_flops = total.cuda_flops;
  cost.hbm_bytes = total.hbm_bytes;
  cost.l2_bytes = total.l2_bytes;
  cost.hbm_bound_s = total.hbm_bytes / gpu.hbm_bytes_per_s();
  cost.compute_bound_s = total.compute_bound_s;
  cost.l2_bound_s = total.l2_bytes / resources_.PeakL2Rate();
  cost.network_s = total.network_s;
  cost.overhead_s = total.fixed_s + launch_s;
  cost.kernel_launches = static_cast<int64_t>(total.launches);
  // Section 9: the binding resource has the highest achieved fraction of its ceiling; time
  // spent in collectives and fixed costs competes by its share of the duration.
  const std::pair<double, Resource> candidates[] = {
      {cost.hbm_fraction(), Resource::kHbm},
      {cost.compute_fraction(), Resource::kCompute},
      {cost.l2_fraction(), Resource::kL2},
      {total.network_s / cost.duration_s, Resource::kNetwork},
      {cost.overhead_s / cost.duration_s, Resource::kOverhead},
  };
  cost.binding = std::max_element(std::begin(candidates), std::end(candidates), [](const auto& a, const auto& b) {
                   return a.first < b.first;
                 })->second;
  return cost;
}

}  // namespace infergrid
