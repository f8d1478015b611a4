#include "sim/core/cost/roofline_cost_model.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "hardware/lower_bounds.h"
#include "models/attention_layout.h"
#include "models/pass_accounting.h"

namespace infergrid {

RooflineCostModel::RooflineCostModel(const ModelSpec& model, const GpuSpec& gpu, const RooflineCostOptions& options)
    : attention_flops_per_pair_(AttentionFlopsPerPair(model, false) / std::max(1, options.tensor_parallel)),
      decode_extra_flops_per_pair_(AttentionFlopsPerPair(model, true) / std::max(1, options.tensor_parallel) -
                                   attention_flops_per_pair_),
      peak_flops_(PeakTensorFlops(gpu, options.compute_dtype)),
      peak_hbm_bytes_per_s_(gpu.hbm_bytes_per_s()),
      window_share_(ReachOf(model).window_share()),
      window_tokens_(ReachOf(model).window_tokens),
      chunk_share_(ReachOf(model).chunk_share()),
      chunk_tokens_(ReachOf(model).chunk_tokens),
      options_(options),
      description_(absl::StrCat("roofline (uncalibrated peaks of ", gpu.name(), ")")) {
  // Sparse attention reads at most top-k tokens a query, as a window of that size would (the
  // indexer's own scoring is left out of the roofline).
  if (model.has_sparse_attention()) {
    window_share_ = 1;
    window_tokens_ = model.sparse_attention().index_topk();
  }
}

void RooflineCostModel::WindowedDemands(const BatchShape& batch, double* prefill_pairs, double* decode_pairs,
                                        double* kv_read_tokens) const {
  // Recount what the windowed and chunked layers see, and weigh each kind by its share of the
  // layers.
  double window_prefill = 0, window_decode = 0, window_read = 0;
  double chunk_prefill = 0, chunk_decode = 0, chunk_read = 0;
  for (const PrefillChunk& chunk : batch.prefill) {
    if (window_share_ > 0) {
      window_prefill += PrefillPairs(chunk.new_tokens, chunk.context_tokens, window_tokens_);
      window_read += static_cast<double>(std::min(chunk.context_tokens, window_tokens_ - 1));
    }
    if (chunk_share_ > 0) {
      chunk_prefill += ChunkedPrefillPairs(chunk.new_tokens, chunk.context_tokens, chunk_tokens_);
      chunk_read += static_cast<double>(chunk.context_tokens % chunk_tokens_);
    }
  }
  for (int64_t context : batch.decode_context_tokens) {
    if (window_share_ > 0) {
      window_decode += static_cast<double>(AttendedKeys(context, window_tokens_));
      window_read += static_cast<double>(std::min(context, window_tokens_ - 1));
    }
    if (chunk_share_ > 0) {
      chunk_decode += static_cast<double>(ChunkedKeys(context, chunk_tokens_));
      chunk_read += static_cast<double>(context % chunk_tokens_);
    }
  }
  const double full = 1 - window_share_ - chunk_share_;
  *prefill_pairs = full * *prefill_pairs + window_share_ * window_prefill + chunk_share_ * chunk_prefill;
  *decode_pairs = full * *decode_pairs + window_share_ * window_decode + chunk_share_ * chunk_decode;
  *kv_read_tokens = full * *kv_read_tokens + window_share_ * window_read + chunk_share_ * chunk_read;
}

IterationCost RooflineCostModel::Cost(const BatchShape& batch) const {
  IterationCost cost;
  if (batch.empty()) return cost;
  double new_tokens = 0;
  double attention_pairs = 0;  // (query, key) pairs, causal within a chunk
  double kv_read_tokens = 0;
  for (const PrefillChunk& chunk : batch.prefill) {
    const double n = static_cast<double>(chunk.new_tokens);
    const double c = static_cast<double>(chunk.context_tokens);
    new_tokens += n;
    attention_pairs += n * c + n * (n + 1) / 2;
    kv_read_tokens += c;
  }
  double decode_pairs = 0;
  for (int64_t context : batch.decode_context_tokens) {
    new_tokens += 1;
    decode_pairs += static_cast<double>(context) + 1;
    kv_read_tokens += static_cast<double>(context);
  }
  if (window_share_ > 0 || chunk_share_ > 0) WindowedDemands(batch, &attention_pairs, &decode_pairs, &kv_read_tokens);
  attention_pairs += decode_pairs;
  const double per_gpu_params = options_.active_parameters / std::max(1, options_.tensor_parallel);
  // A captured graph's padding rows pass through the linear layers too.
  const double linear_rows = new_tokens + static_cast<double>(batch.padding_rows);
  // Latent attention's decode pairs cost more than its prefill pairs (0 extra otherwise).
  cost.flops = 2.0 * per_gpu_params * linear_rows + attention_flops_per_pair_ * attention_pairs +
               decode_extra_flops_per_pair_ * decode_pairs;
  cost.hbm_bytes =
      options_.weight_bytes + static_cast<double>(options_.kv_bytes_per_token) * (kv_read_tokens + new_tokens);
  cost.compute_bound_s = peak_flops_ > 0 ? cost.flops / peak_flops_ : 0;
  cost.hbm_bound_s = cost.hbm_bytes / peak_hbm_bytes_per_s_;
  cost.overhead_s = options_.overhead_s;
  // Iterations a graph does not cover pay the host's launches: all of them eager, the
  // attention's share of them piecewise.
  if (batch.launch == LaunchMode::kEager) cost.overhead_s += options_.eager_overhead_s;
  if (batch.launch == LaunchMode::kPiecewise) cost.overhead_s += options_.eager_overhead_s * kPiecewiseEagerShare;
  const double busy = std::max(cost.compute_bound_s, cost.hbm_bound_s);
  cost.duration_s = busy + cost.overhead_s;
  if (cost.overhead_s > busy) {
    cost.binding = Resource::kOverhead;
  } else {
    cost.binding = cost.hbm_bound_s >= cost.compute_bound_s ? Resource::kHbm : Resource::kCompute;
  }
  return cost;
}

}  // namespace infergrid
