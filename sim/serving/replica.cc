#include "sim/serving/replica.h"

#include <algorithm>

namespace infergrid {

Replica::Replica(int index, std::unique_ptr<Scheduler> scheduler, const BlockManagerOptions& blocks,
                 const IterationCostModel& cost_model, RequestLog& log, IterationSink& sink,
                 int cost_stride)
    : index_(index),
      scheduler_(std::move(scheduler)),
      blocks_(blocks),
      pricer_(cost_model, cost_stride),
      log_(log),
      sink_(sink) {
  published_ = LiveLoad();
}

Replica::~Replica() {
  for (Sequence* seq : queues_.waiting) delete seq;
  for (Sequence* seq : queues_.running) delete seq;
  for (Sequence* seq : queues_.swapped) delete seq;
}

void Replica::Enqueue(Sequence* seq) {
  seq->status = SequenceStatus::kWaiting;
  queues_.waiting.push_back(seq);
  ++published_.outstanding;
}

ReplicaLoad Replica::LiveLoad() const {
  ReplicaLoad load;
  load.outstanding = static_cast<int64_t>(queues_.waiting.size() + queues_.running.size() +
                                          queues_.swapped.size());
  load.kv_blocks_used = blocks_.used_blocks();
  load.kv_blocks_total = blocks_.total_blocks();
  return load;
}

bool Replica::Plan(double start_s) {
  plan_.Clear();
  scheduler_->Plan(queues_, blocks_, plan_);
  if (plan_.empty()) return false;
  shape_.prefill.clear();
  shape_.decode_context_tokens.clear();
  IterationRecord& r = record_;
  r = IterationRecord{};
  for (const ScheduledWork& w : plan_.work) {
    if (w.decode) {
      shape_.decode_context_tokens.push_back(w.seq->computed);
      ++r.decode_seqs;
    } else {
      shape_.prefill.push_back({w.new_tokens, w.seq->computed});
      ++r.prefill_seqs;
      r.prefill_tokens += w.new_tokens;
    }
    if (!w.seq->scheduled) {
      w.seq->scheduled = true;
      log_.OnScheduled(w.seq->record, start_s);
    }
  }
  for (int64_t context : plan_.padding_contexts) shape_.decode_context_tokens.push_back(context);
  r.padding_seqs = static_cast<int32_t>(plan_.padding_contexts.size());
  cost_ = pricer_.Price(plan_, shape_);
  r.replica = index_;
  r.index = iterations_;
  r.compute_s = cost_.duration_s - cost_.network_s;
  r.kv_blocks_used = blocks_.used_blocks();
  r.kv_blocks_total = blocks_.total_blocks();
  r.waiting = static_cast<int32_t>(queues_.waiting.size());
  r.running = static_cast<int32_t>(queues_.running.size());
  r.swapped = static_cast<int32_t>(queues_.swapped.size());
  r.preempted = plan_.preempted_recompute + plan_.preempted_swap;
  r.preempted_swap = plan_.preempted_swap;
  r.swap_out_blocks = plan_.swap_out_blocks;
  r.swap_in_blocks = plan_.swap_in_blocks;
  r.binding = cost_.binding;
  r.hbm_fraction = cost_.hbm_fraction();
  r.compute_fraction = cost_.compute_fraction();
  return true;
}

void Replica::Complete(double start_s, double end_s, double communication_s) {
  for (const ScheduledWork& w : plan_.work) {
    Sequence* seq = w.seq;
    seq->computed += w.new_tokens;
    if (!seq->prefix_keys.empty()) blocks_.PublishComputed(*seq);
    if (seq->computed == seq->TotalTokens()) {
      ++seq->generated;
      log_.OnToken(seq->record, end_s);
      if (seq->Finished()) log_.OnFinished(seq->record, end_s, seq->preemptions, seq->cached_tokens);
    }
  }
  scheduler_->Retire(queues_, blocks_, released_);
  for (Sequence* seq : released_) delete seq;
  released_.clear();
  IterationRecord& r = record_;
  r.start_s = start_s;
  r.end_s = end_s;
  r.communication_s = communication_s;
  if (communication_s > r.compute_s) r.binding = Resource::kNetwork;
  ++iterations_;
  sink_.OnIteration(r);
}

}  // namespace infergrid
