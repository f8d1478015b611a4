// The uncalibrated cost model: per iteration, time = max(FLOPs / peak tensor rate, HBM bytes /
// peak bandwidth) + a fixed per-iteration overhead. FLOPs and bytes follow the accounting
// lesson per sequence (linear 2*N per new token; attention 4*L*H_q*D per (query, key) pair
// with causal halving inside a chunk; weights read once per iteration, KV read for every
// sequence's context, KV written for every new token). Peaks are ceilings, so this model is
// optimistic by construction; it exists so the engine runs before calibration, and as the
// "roofline" baseline the calibrated model is compared against.
#ifndef INFERGRID_SIM_CORE_COST_ROOFLINE_COST_MODEL_H_
#define INFERGRID_SIM_CORE_COST_ROOFLINE_COST_MODEL_H_

#include <string>

#include "base/dtype.pb.h"
#include "hardware/hardware_spec.pb.h"
#include "models/model_spec.pb.h"
#include "sim/core/cost/iteration_cost.h"

namespace infergrid {

struct RooflineCostOptions {
  DType compute_dtype = DType::BF16;
  double weight_bytes = 0;  // per GPU
  int64_t kv_bytes_per_token = 0;  // per GPU, over all its layers
  double active_parameters = 0;  // N in 2*N FLOPs per token (per GPU: divided by TP)
  int tensor_parallel = 1;
  double overhead_s = 0;  // fixed cost per iteration (launches, scheduling)
  // Added to iterations that run eagerly (LaunchMode::kEager) although CUDA graphs are in use;
  // 0 when overhead_s already counts eager launches.
  double eager_overhead_s = 0;
};

// Piecewise graphs leave the attention kernels to the host: about one launch in six of a
// transformer layer (norm, QKV, RoPE, KV write, attention, O, add, norm, MLP x3, add).
inline constexpr double kPiecewiseEagerShare = 1.0 / 6;

class RooflineCostModel final : public IterationCostModel {
 public:
  RooflineCostModel(const ModelSpec& model, const GpuSpec& gpu, const RooflineCostOptions& options);
  IterationCost Cost(const BatchShape& batch) const override;
  absl::string_view Description() const override { return description_; }

 private:
  // Replaces the full-attention pair and KV-read counts with their layer-weighted mix of full,
  // sliding-window and chunked local layers.
  void WindowedDemands(const BatchShape& batch, double* prefill_pairs, double* decode_pairs,
                       double* kv_read_tokens) const;
  double attention_flops_per_pair_;  // 4 * L * H_q * D / TP (models/pass_accounting.h)
  double decode_extra_flops_per_pair_;  // what a decode pair costs beyond that (MLA only)
  double peak_flops_;
  double peak_hbm_bytes_per_s_;
  // Sliding-window layers (models/attention_layout.h): their share of the layers, whose
  // queries see and whose KV reads cover at most window_tokens_ keys.
  double window_share_ = 0;
  int64_t window_tokens_ = 0;
  double chunk_share_ = 0;  // chunked local layers, whose queries see their own chunk
  int64_t chunk_tokens_ = 0;
  RooflineCostOptions options_;
  std::string description_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_COST_ROOFLINE_COST_MODEL_H_
