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
  double max_bytes = 0;                          // this size and above: NCCL
  // (largest TP, one-shot below this many bytes), in increasing TP; two-shot otherwise.
  std::vector<std::pair<int, double>> one_shot_below;
  PeerLink link;
};

struct CalibratedCostOptions {
  IterationKernelOptions kernels;
  bool cuda_graphs = true;
  CustomAllReduceOptions custom_all_reduce;
};

// One kernel's share of an iteration, for reports.
struct KernelCost {
  Kernel kernel;
  KernelTime time;       // one launch
  double total_s = 0;    // time.seconds * kernel.repeat
};

class CalibratedCostModel final : public IterationCostModel {
 public:
  static absl::StatusOr<std::unique_ptr<CalibratedCostModel>> Create(
      const ModelSpec& model, const GpuSpec& gpu, const Calibration& calibration,
      const CalibratedCostOptions& options);

  IterationCost Cost(const BatchShape& batch) const override;
  // The same, with every kernel's time (allocates; for reports, not the engine).
  IterationCost CostWithKernels(const BatchShape& batch, std::vector<KernelCost>* kernels) const;
  absl::string_view Description() const override { return description_; }
  const ResourceModel& resources() const { return resources_; }

 private:
  static uint64_t NextId();
  CalibratedCostModel(IterationKernelBuilder builder, ResourceModel resources,
                      const CalibratedCostOptions& options, std::string description)
      : id_(NextId()),
        builder_(std::move(builder)), resources_(std::move(resources)), options_(options),
        description_(std::move(description)) {}

  // Replaces an all-reduce's NCCL time by the engine's own kernel's where that one runs.
  void CustomAllReduce(const Kernel& kernel, bool in_graph, KernelTime* time) const;
  // The previous iteration's kernels and their times, slot by slot, per thread: consecutive
  // iterations of a batch repeat every kernel but attention (same rows through the same
  // layers), so most kernels are found there.
  struct SlotMemo {
    uint64_t model_id = 0;  // 0: empty
    std::array<bool, kMaxIterationKernels> valid{};
    std::array<Kernel, kMaxIterationKernels> kernel;
    std::array<KernelTime, kMaxIterationKernels> time;
  };
  // This thread's memo, emptied when it last served another model (looked up once an
  // iteration: a thread_local with a constructor costs a guarded call per access).
  SlotMemo& ThreadMemo() const;
  // resources_.Time(kernel) for the kernel at `slot`, through `memo`. A hit requires the whole
  // Kernel to be equal, so it returns exactly what Time would compute.
  KernelTime SlotTime(const Kernel& kernel, size_t slot, SlotMemo& memo) const;

  uint64_t id_;  // unique per model, for the per-thread memos
  IterationKernelBuilder builder_;
  ResourceModel resources_;
  CalibratedCostOptions options_;
  std::string description_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_COST_CALIBRATED_COST_MODEL_H_
