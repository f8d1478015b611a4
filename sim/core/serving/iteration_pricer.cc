#include "sim/core/serving/iteration_pricer.h"

namespace infergrid {
namespace {

IterationCost Lerp(const IterationCost& a, const IterationCost& b, double f) {
  auto mix = [f](double x, double y) { return x + f * (y - x); };
  IterationCost c = a;
  c.duration_s = mix(a.duration_s, b.duration_s);
  c.flops = mix(a.flops, b.flops);
  c.hbm_bytes = mix(a.hbm_bytes, b.hbm_bytes);
  c.hbm_bound_s = mix(a.hbm_bound_s, b.hbm_bound_s);
  c.compute_bound_s = mix(a.compute_bound_s, b.compute_bound_s);
  c.overhead_s = mix(a.overhead_s, b.overhead_s);
  c.tensor_flops = mix(a.tensor_flops, b.tensor_flops);
  c.cuda_flops = mix(a.cuda_flops, b.cuda_flops);
  c.l2_bytes = mix(a.l2_bytes, b.l2_bytes);
  c.l2_bound_s = mix(a.l2_bound_s, b.l2_bound_s);
  c.network_s = mix(a.network_s, b.network_s);
  c.host_s = mix(a.host_s, b.host_s);
  c.host_hidden_s = mix(a.host_hidden_s, b.host_hidden_s);
  c.output_delay_s = mix(a.output_delay_s, b.output_delay_s);
  c.draft_s = mix(a.draft_s, b.draft_s);
  return c;
}

}  // namespace

bool IterationPricer::ContinuesRun(const ScheduledBatch& scheduled) const {
  if (members_.empty() || scheduled.work.size() != members_.size()) return false;
  for (size_t i = 0; i < members_.size(); ++i) {
    if (scheduled.work[i].seq != members_[i]) return false;
  }
  return PureDecode(scheduled);
}

IterationCost IterationPricer::Price(const ScheduledBatch& scheduled, const BatchShape& shape) {
  // Speculative steps advance contexts by the accepted tokens, not by one: priced exactly.
  if (stride_ == 1 || shape.speculative_tokens > 0) return Exact(shape);
  // A run also keeps how the engine launches the batch (graph size, launch mode, scheduling).
  const bool same_launch =
      shape.padding_rows == ahead_.padding_rows && shape.launch == ahead_.launch && shape.schedules == ahead_.schedules;
  if (same_launch && ContinuesRun(scheduled)) {
    ++step_;
    if (!have_next_) {
      // Priced only once the run lasts beyond its first batch.
      ahead_.prefill.clear();
      ahead_.decode_context_tokens.clear();
      for (int64_t context : anchor_contexts_) ahead_.decode_context_tokens.push_back(context + stride_);
      next_ = Exact(ahead_);
      have_next_ = true;
    }
    if (step_ < stride_) return Lerp(anchor_, next_, static_cast<double>(step_) / stride_);
    // This batch is the anchor's `stride_` steps ahead, priced already: the next anchor.
    anchor_ = next_;
  } else {
    members_.clear();
    if (PureDecode(scheduled)) {
      for (const ScheduledWork& w : scheduled.work) members_.push_back(w.seq);
    }
    anchor_ = Exact(shape);
  }
  step_ = 0;
  have_next_ = false;
  anchor_contexts_ = shape.decode_context_tokens;
  ahead_.padding_rows = shape.padding_rows;
  ahead_.launch = shape.launch;
  ahead_.schedules = shape.schedules;
  return anchor_;
}

}  // namespace infergrid
