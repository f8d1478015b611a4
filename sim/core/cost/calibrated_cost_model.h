// The calibrated cost model: an iteration's kernel list (models/iteration_kernels.h) timed
// kernel by kernel by the resource model (hardware/resource_model.h) from a calibration
// profile. Under CUDA graphs kernels replay back to back (GPU time + a graph gap each);
// eager, the host issues every kernel and a kernel starts only once issued, so short kernels
// wait for their launch (eager is never faster than graphs); piecewise (vLLM V1's prefill and
// mixed batches), the host issues the attention kernels and one graph per piece between them. Lower bounds are the seed lesson's (section 9): predicted HBM bytes
// over the datasheet HBM peak, tensor FLOPs over the datasheet tensor peak of their dtype, L2
// bytes over the calibrated L2 rate; achieved fractions are bound / duration, and the binding
// resource is the one with the highest achieved fraction (network and overhead count by their
// share of the duration).
#ifndef INFERGRID_SIM_CORE_COST_CALIBRATED_COST_MODEL_H_
#define INFERGRID_SIM_CORE_COST_CALIBRATED_COST_MODEL_H_

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "calibration/calibration.pb.h"
#include "hardware/hardware_spec.pb.h"
#include "hardware/peer_all_reduce.h"
#include "hardware/resource_model.h"
#include "models/iteration_kernels.h"
#include "models/model_spec.pb.h"
#include "sim/core/cost/iteration_cost.h"

namespace infergrid {

// The engine's own all-reduce for small messages (hardware/peer_all_reduce.h) instead of the
// measured NCCL tables.
struct CustomAllReduceOptions {
  bool enabled = false;
  double max_bytes = 0;  // this size and above: NCCL
  // Torch symmetric memory at this TP (0: none): the custom kernel below custom_max_bytes
  // (where set), symmetric memory from there to symmetric_max_bytes, two-shot or multimem.
  double custom_max_bytes = 0;
  double symmetric_max_bytes = 0;
  bool symmetric_multimem = false;
  // (largest TP, one-shot below this many bytes), in increasing TP; two-shot otherwise.
  std::vector<std::pair<int, double>> one_shot_below;
  PeerLink link;
  // The engine's all-reduce fused with the residual add and the RMSNorm after it
  // (Kernel::fused_rms_norm: FlashInfer's kernel, which runs with or without the custom
  // all-reduce, so `link` is set without `enabled`): one-shot below this many bytes, two-shot
  // above, plus the fused norm's bytes at the link's copy rate.
  double fused_one_shot_below = 0;
};

struct CalibratedCostOptions {
  IterationKernelOptions kernels;
  bool cuda_graphs = true;
  CustomAllReduceOptions custom_all_reduce;
};

class CalibratedCostModel final : public IterationCostModel {
 public:
  static absl::StatusOr<std::unique_ptr<CalibratedCostModel>> Create(const ModelSpec& model, const GpuSpec& gpu,
                                                                     const Calibration& calibration,
                                                                     const CalibratedCostOptions& options);

  IterationCost Cost(const BatchShape& batch) const override;
  absl::string_view Description() const override { return description_; }
  const ResourceModel& resources() const { return resources_; }

 private:
  static uint64_t NextId();
  CalibratedCostModel(IterationKernelBuilder builder, ResourceModel resources, const CalibratedCostOptions& options,
                      std::string description)
      : id_(NextId()),
        builder_(std::move(builder)),
        resources_(std::move(resources)),
        options_(options),
        description_(std::move(description)) {}

  // Replaces an all-reduce's NCCL time by the engine's own kernel's where that one runs.
  void CustomAllReduce(const Kernel& kernel, bool in_graph, KernelTime* time) const;

  // One kernel's terms of the iteration's sums (each already times its repeat), so that an
  // iteration sums them in slot order whichever way they were found.
  struct SlotTerms {
    double gpu_s = 0, fixed_s = 0, network_s = 0, launches = 0;
    double tensor_flops = 0, cuda_flops = 0, hbm_bytes = 0, l2_bytes = 0, compute_bound_s = 0;
  };
  // The kernels of one batch with their times and terms, and what the batch was without its
  // contexts. Consecutive iterations of a batch repeat every kernel but attention (same rows
  // through the same layers): a decode batch of the same key rebuilds and times only its
  // attention kernels (IterationKernelBuilder::RebuildDecodeAttention); any other batch is
  // built whole and takes, slot by slot, the time of a kernel equal in every field to the one
  // there before. Either way the result is exactly what timing every kernel anew gives.
  struct MemoEntry {
    bool valid = false;
    IterationKernels kernels;
    std::array<double, kMaxIterationKernels> seconds{};  // one launch, before the custom all-reduce
    std::array<KernelTime, kMaxIterationKernels> time;
    std::array<SlotTerms, kMaxIterationKernels> terms;
    // The terms of the slots before the first decode attention kernel, summed (the part of
    // the sums a decode batch of the same key keeps).
    SlotTerms prefix;
    int prefix_slots = 0;
    bool decode_only = false;
    int64_t sequences = 0, padding_rows = 0, extra_sampled_rows = 0;
    LaunchMode launch = LaunchMode::kGraph;
  };
  // Per thread: decode batches by their size (a batch's size moves by a few sequences as
  // requests finish and join, and each size keeps its entry), and one entry for batches with a
  // prefill.
  static constexpr size_t kDecodeEntries = 8;
  struct StepMemo {
    uint64_t model_id = 0;  // 0: empty
    std::array<MemoEntry, kDecodeEntries + 1> entries;
    IterationKernels next;  // scratch for a whole build
  };
  // This thread's memo, emptied when it last served another model (looked up once an
  // iteration: a thread_local with a constructor costs a guarded call per access).
  StepMemo& ThreadMemo() const;
  // Whether `entry` holds the kernels of a decode batch with the same key as `batch`.
  static bool SameDecodeKey(const MemoEntry& entry, const BatchShape& batch, LaunchMode launch);
  // Builds `batch` (through `scratch`) into entry.kernels, timing the slots that changed.
  void BuildAndTime(const BatchShape& batch, LaunchMode launch, IterationKernels& scratch, MemoEntry& entry) const;
  SlotTerms Terms(const Kernel& kernel, KernelTime time, LaunchMode launch) const;
  // Adds the terms of slots [from, to) to `total`, in slot order.
  static void AddTerms(const MemoEntry& entry, int from, int to, SlotTerms& total);
  // The iteration's cost from the entry's kernels, times and terms.
  IterationCost Sum(const MemoEntry& entry, LaunchMode launch) const;

  uint64_t id_;  // unique per model, for the per-thread memos
  IterationKernelBuilder builder_;
  ResourceModel resources_;
  CalibratedCostOptions options_;
  std::string description_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_COST_CALIBRATED_COST_MODEL_H_
