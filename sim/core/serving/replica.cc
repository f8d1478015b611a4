#include "sim/core/serving/replica.h"

#include <algorithm>

#include "sim/core/serving/speculation.h"

namespace infergrid {

Replica::Replica(int index, std::unique_ptr<Scheduler> scheduler, const BlockManagerOptions& blocks,
                 const IterationCostModel& cost_model, RequestLog& log, IterationSink& sink, SequencePool& sequences,
                 int cost_stride, const ExecutionPolicy* policy)
    : index_(index),
      scheduler_(std::move(scheduler)),
      blocks_(blocks),
      pricer_(cost_model, cost_stride),
      log_(log),
      sink_(sink),
      sequences_(sequences),
      policy_(policy) {
  published_ = LiveLoad();
}

Replica::~Replica() = default;  // the pool owns the sequences still queued

void Replica::Enqueue(Sequence* seq, double time_s) {
  seq->enqueued_s = time_s;
  if (speculative_tokens() > 0) {
    const SpeculationPolicy& s = policy_->speculation;
    seq->speculation_state = SpeculationStream::Seed(s.seed, seq->record);
    seq->acceptance_rate = SpeculationStream::DrawRate(s.acceptance, seq->speculation_state);
  }
  seq->status = SequenceStatus::kWaiting;
  queues_.waiting.push_back(seq);
  ++published_.outstanding;
}

ReplicaLoad Replica::LiveLoad() const {
  ReplicaLoad load;
  load.outstanding =
      static_cast<int64_t>(queues_.waiting.size() + queues_.running.size() + queues_.swapped.size()) + incoming_;
  const BlockManager::PoolUsage kv = blocks_.FullestPool();
  load.kv_blocks_used = kv.used;
  load.kv_blocks_total = kv.total;
  return load;
}

bool Replica::ContinueGroup() {
  if (policy_ == nullptr || policy_->num_scheduler_steps <= 1 || group_step_ == 0 ||
      group_step_ >= policy_->num_scheduler_steps) {
    return false;
  }
  // The members still running take one more token each, if their KV can grow.
  int64_t needed = 0;
  for (const ScheduledWork& w : scheduled_.work) needed += blocks_.Needed(*w.seq, w.seq->computed + 1);
  if (!blocks_.CanGrow(needed)) return false;
  for (const ScheduledWork& w : scheduled_.work) blocks_.Grow(*w.seq, blocks_.Needed(*w.seq, w.seq->computed + 1));
  scheduled_.swap_out_blocks = scheduled_.swap_in_blocks = 0;
  scheduled_.preempted_recompute = scheduled_.preempted_swap = 0;
  scheduled_.padding_contexts.clear();
  for (int64_t& context : group_finished_) scheduled_.padding_contexts.push_back(++context);
  return true;
}

void Replica::ScheduleFromQueues(double start_s) {
  scheduled_.Clear();
  // Back to back with the last iteration (to the engine clock's rounding): this batch was
  // formed when that one started.
  if (policy_ != nullptr && policy_->schedules_ahead && last_end_s_ >= start_s - 1e-9) {
    std::deque<Sequence*>& waiting = queues_.waiting;
    while (!waiting.empty() && waiting.back()->enqueued_s > last_start_s_) {
      held_.push_back(waiting.back());
      waiting.pop_back();
    }
  }
  scheduler_->Schedule(queues_, blocks_, scheduled_);
  if (held_.empty()) return;
  for (auto it = held_.rbegin(); it != held_.rend(); ++it) queues_.waiting.push_back(*it);
  held_.clear();
  // Nothing was formed ahead: the engine waited on its last batch, then scheduled afresh.
  if (scheduled_.empty()) {
    scheduled_.Clear();
    scheduler_->Schedule(queues_, blocks_, scheduled_);
  }
}

bool Replica::Schedule(double start_s) {
  const bool continues = ContinueGroup();
  if (!continues) {
    FlushPending(last_delivered_s_);  // a group cut short (its KV could not grow): at its last step
    group_step_ = 0;
    group_finished_.clear();
    ScheduleFromQueues(start_s);
    if (scheduled_.empty()) return false;
    if (policy_ != nullptr && policy_->num_scheduler_steps > 1 && PureDecode(scheduled_)) group_step_ = 1;
  } else {
    ++group_step_;
  }
  shape_.prefill.clear();
  shape_.decode_context_tokens.clear();
  // Every field is assigned below, in RecordScheduled() or in Complete(); the counts start from
  // zero (clearing the whole record each iteration cost measurably more instructions).
  static_assert(sizeof(IterationRecord) == 192, "a new IterationRecord field must be reset or assigned here");
  IterationRecord& r = record_;
  r.prefill_seqs = r.decode_seqs = 0;
  r.prefill_tokens = 0;
  r.speculative_seqs = r.draft_tokens = r.accepted_tokens = r.emitted_tokens = 0;
  emitting_ = 0;
  for (const ScheduledWork& w : scheduled_.work) {
    emitting_ += w.seq->computed + w.new_tokens == w.seq->TotalTokens() ? 1 : 0;  // drafts ride along
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
  for (int64_t context : scheduled_.padding_contexts) shape_.decode_context_tokens.push_back(context);
  r.padding_seqs = static_cast<int32_t>(scheduled_.padding_contexts.size());
  shape_.schedules = !continues;
  shape_.speculative_tokens = speculative_tokens();
  if (policy_ != nullptr) {
    policy_->ApplyGraphs(shape_);
  } else {  // no policy: the cost model's own setting (graphs unless it runs eagerly)
    shape_.launch = LaunchMode::kGraph;
    shape_.padding_rows = 0;
  }
  cost_ = pricer_.Price(scheduled_, shape_);
  IterationVariation variation;
  if (noise_ != nullptr) variation.noise_factor = noise_->IterationFactor();
  if (front_end_ != nullptr) variation.front_end_work_s = front_end_->TakeEngineWork();
  // Only a ring needs the batch's new tokens (summing them is a loop over its prefill chunks).
  const int64_t ring_tokens = collectives_.tensor_parallel > 1 ? shape_.TotalNewTokens() : 0;
  duration_ = DecideIterationDuration(cost_, variation, ring_tokens, collectives_);
  RecordScheduled();
  return true;
}

void Replica::RecordScheduled() {
  IterationRecord& r = record_;
  r.replica = index_;
  r.index = iterations_;
  r.compute_s = cost_.duration_s - cost_.network_s;
  r.draft_s = cost_.draft_s;
  r.host_s = cost_.host_s;
  r.host_hidden_s = cost_.host_hidden_s;
  const BlockManager::PoolUsage kv = blocks_.FullestPool();
  r.kv_blocks_used = kv.used;
  r.kv_blocks_total = kv.total;
  r.waiting = static_cast<int32_t>(queues_.waiting.size());
  r.running = static_cast<int32_t>(queues_.running.size());
  r.swapped = static_cast<int32_t>(queues_.swapped.size());
  r.preempted = scheduled_.preempted_recompute + scheduled_.preempted_swap;
  r.preempted_swap = scheduled_.preempted_swap;
  r.swap_out_blocks = scheduled_.swap_out_blocks;
  r.swap_in_blocks = scheduled_.swap_in_blocks;
  r.binding = cost_.binding;
  r.hbm_fraction = cost_.hbm_fraction();
  r.compute_fraction = cost_.compute_fraction();
}

void Replica::FlushPending(double time_s) {
  for (const PendingToken& t : pending_) {
    log_.OnToken(t.record, time_s);
    if (t.finished) log_.OnFinished(t.record, time_s, t.preemptions, t.cached_tokens);
  }
  pending_.clear();
}

void Replica::Speculate(Sequence& seq, double time_s) {
  const int k = shape_.speculative_tokens;
  const int accepted = SpeculationStream::AcceptedDrafts(seq.acceptance_rate, k, seq.speculation_state);
  IterationRecord& r = record_;
  ++r.speculative_seqs;
  r.draft_tokens += k;
  r.accepted_tokens += accepted;
  ++r.emitted_tokens;  // the target's own token, delivered already
  // The accepted drafts' K/V stay in the cache; none is emitted past the output length.
  for (int i = 0; i < accepted && !seq.Finished(); ++i) {
    ++seq.computed;
    ++seq.generated;
    ++r.emitted_tokens;
    DeliverToken(seq, time_s);
  }
}

void Replica::Complete(double start_s, double end_s, double communication_s) {
  double delivered_s = end_s + cost_.output_delay_s;
  if (front_end_ != nullptr && !handoff_ && emitting_ > 0) delivered_s = front_end_->Outbound(delivered_s, emitting_);
  if (record_.decode_seqs > 0) ++decode_batches_;
  bool finished = false;
  for (const ScheduledWork& w : scheduled_.work) {
    Sequence* seq = w.seq;
    seq->computed += w.new_tokens;
    if (!seq->prefix_keys.empty()) blocks_.PublishComputed(*seq);
    if (seq->computed == seq->TotalTokens()) {
      ++seq->generated;
      DeliverToken(*seq, delivered_s);
      if (w.decode && shape_.speculative_tokens > 0) Speculate(*seq, delivered_s);
      if (seq->Finished()) {
        finished = true;
        if (group_step_ > 0) group_finished_.push_back(seq->computed);
      }
    }
  }
  // Sequences finish only here: when none did, the running set is what the last Retire left.
  if (finished) scheduler_->Retire(queues_, blocks_, released_);
  // Finished members leave the group's batch; the rest continue.
  if (group_step_ > 0 && !released_.empty()) {
    size_t kept = 0;
    for (const ScheduledWork& w : scheduled_.work) {
      if (std::find(released_.begin(), released_.end(), w.seq) == released_.end()) scheduled_.work[kept++] = w;
    }
    scheduled_.work.resize(kept);
    if (scheduled_.work.empty()) group_step_ = policy_->num_scheduler_steps;  // nothing left to continue
  }
  // The group's held tokens leave with its last step, also when its last members finished
  // early (the replica may then have nothing left to schedule).
  last_delivered_s_ = delivered_s;
  if (group_step_ > 0 && group_step_ >= policy_->num_scheduler_steps) FlushPending(delivered_s);
  for (Sequence* seq : released_) {
    if (handoff_) {
      handoff_(seq, end_s);
    } else {
      sequences_.Release(seq);
    }
  }
  released_.clear();
  last_start_s_ = start_s;
  last_end_s_ = end_s;
  IterationRecord& r = record_;
  r.start_s = start_s;
  r.end_s = end_s;
  r.communication_s = communication_s;
  if (communication_s > r.compute_s) r.binding = Resource::kNetwork;
  ++iterations_;
  sink_.OnIteration(r);
}

}  // namespace infergrid
