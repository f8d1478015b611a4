#include "sim/core/cost/speculative_cost_model.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace infergrid {
namespace {

// Per-thread scratch shapes: Cost stays const and allocation-free once their capacity grew.
BatchShape& Scratch() {
  thread_local BatchShape shape;
  return shape;
}

void AddDemands(const IterationCost& from, IterationCost& to) {
  to.flops += from.flops;
  to.hbm_bytes += from.hbm_bytes;
  to.hbm_bound_s += from.hbm_bound_s;
  to.compute_bound_s += from.compute_bound_s;
  to.overhead_s += from.overhead_s;
  to.tensor_flops += from.tensor_flops;
  to.cuda_flops += from.cuda_flops;
  to.l2_bytes += from.l2_bytes;
  to.l2_bound_s += from.l2_bound_s;
  to.network_s += from.network_s;
  to.kernel_launches += from.kernel_launches;
}

}  // namespace

SpeculativeCostModel::SpeculativeCostModel(std::unique_ptr<IterationCostModel> target,
                                           std::unique_ptr<IterationCostModel> draft,
                                           const SpeculativeCostOptions& options)
    : target_(std::move(target)), draft_(std::move(draft)), options_(options) {
  description_ = absl::StrCat(target_->Description(), " + speculative decoding (", options_.proposer, ")");
}

IterationCost SpeculativeCostModel::VerifyCost(const BatchShape& batch) const {
  BatchShape& verify = Scratch();
  verify.prefill.assign(batch.prefill.begin(), batch.prefill.end());
  const int64_t tokens = int64_t{batch.speculative_tokens} + 1;
  for (int64_t context : batch.decode_context_tokens) verify.prefill.push_back({tokens, context});
  verify.decode_context_tokens.clear();
  verify.padding_rows = batch.padding_rows;
  verify.launch = batch.launch;
  verify.schedules = batch.schedules;
  verify.speculative_tokens = 0;
  // The target scores every position of each verified sequence: k more LM-head rows each.
  verify.extra_sampled_rows = static_cast<int64_t>(batch.decode_context_tokens.size()) * batch.speculative_tokens;
  return target_->Cost(verify);
}

IterationCost SpeculativeCostModel::DraftCost(const BatchShape& batch) const {
  IterationCost total;
  if (draft_ == nullptr) {
    total.duration_s = options_.ngram_host_s_per_sequence * static_cast<double>(batch.decode_context_tokens.size());
    total.overhead_s = total.duration_s;
    return total;
  }
  BatchShape& pass = Scratch();
  const int k = batch.decode_context_tokens.empty() ? 1 : batch.speculative_tokens;
  for (int i = 0; i < k; ++i) {
    pass.prefill.clear();
    if (i == 0) pass.prefill.assign(batch.prefill.begin(), batch.prefill.end());
    pass.decode_context_tokens.assign(batch.decode_context_tokens.begin(), batch.decode_context_tokens.end());
    for (int64_t& context : pass.decode_context_tokens) context += i;
    pass.padding_rows = 0;
    pass.launch = pass.prefill.empty() ? LaunchMode::kGraph : batch.launch;
    pass.schedules = false;
    pass.speculative_tokens = 0;
    pass.extra_sampled_rows = 0;
    if (pass.empty()) break;
    const IterationCost c = draft_->Cost(pass);
    total.duration_s += c.duration_s;
    AddDemands(c, total);
  }
  return total;
}

IterationCost SpeculativeCostModel::Cost(const BatchShape& batch) const {
  if (batch.speculative_tokens <= 0 || batch.empty()) return target_->Cost(batch);
  const IterationCost draft = DraftCost(batch);
  IterationCost cost = VerifyCost(batch);
  cost.duration_s += draft.duration_s;
  AddDemands(draft, cost);
  cost.draft_s = draft.duration_s;
  return cost;
}

}  // namespace infergrid
