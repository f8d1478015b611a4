// One serving replica (one model instance on its tensor-parallel GPUs) as the scheduler sees
// it, without time: its queues, KV block manager and scheduling policy. The engine drives it
// at iteration boundaries: Schedule() forms and prices the next batch, Complete() applies the
// tokens that batch produced once the engine knows when it ended. The engine may Complete a
// scheduled iteration before simulated time reaches its end (running ahead through iterations
// nothing can interrupt), so the load a router sees is the published one, not the live one.
#ifndef INFERGRID_SIM_CORE_SERVING_REPLICA_H_
#define INFERGRID_SIM_CORE_SERVING_REPLICA_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/cost/iteration_cost.h"
#include "sim/core/metrics/iteration_record.h"
#include "sim/core/metrics/request_log.h"
#include "sim/core/serving/scheduled_batch.h"
#include "sim/core/serving/block_manager.h"
#include "sim/core/serving/execution_policy.h"
#include "sim/core/serving/front_end.h"
#include "sim/core/serving/iteration_duration.h"
#include "sim/core/serving/run_noise.h"
#include "sim/core/serving/iteration_pricer.h"
#include "sim/core/serving/scheduler.h"
#include "sim/core/serving/sequence.h"
#include "sim/core/serving/sequence_pool.h"

namespace infergrid {

// What a router compares.
struct ReplicaLoad {
  int64_t outstanding = 0;  // waiting + running + swapped requests
  int64_t kv_blocks_used = 0;
  int64_t kv_blocks_total = 0;
  double kv_fraction() const {
    return kv_blocks_total > 0 ? static_cast<double>(kv_blocks_used) / static_cast<double>(kv_blocks_total) : 0;
  }
};

class Replica {
 public:
  // `cost_stride`: see IterationPricer (1 prices every iteration exactly). `policy` (CUDA
  // graphs, multi-step) must outlive the replica. `sequences` owns every sequence the replica
  // is given; a sequence that finishes here goes back to it.
  Replica(int index, std::unique_ptr<Scheduler> scheduler, const BlockManagerOptions& blocks,
          const IterationCostModel& cost_model, RequestLog& log, IterationSink& sink, SequencePool& sequences,
          int cost_stride = 1, const ExecutionPolicy* policy = nullptr);
  ~Replica();
  Replica(const Replica&) = delete;
  Replica& operator=(const Replica&) = delete;

  int index() const { return index_; }
  const BlockManager& blocks() const { return blocks_; }
  const ReplicaQueues& queues() const { return queues_; }
  const Scheduler& scheduler() const { return *scheduler_; }
  const IterationPricer& pricer() const { return pricer_; }

  // Queues an arriving sequence (from the pool the replica was given).
  // `time_s`: when it reaches the replica (a schedule-ahead engine holds it back from the batch
  // formed while an iteration that started before it runs).
  void Enqueue(Sequence* seq, double time_s = 0);

  // Prefill/decode disaggregation: makes this a prefill-only replica. A sequence finishing its
  // prefill here (it runs with output_tokens = 1) delivers no token; it leaves the replica, its
  // KV blocks freed, and `handoff` takes it (still the pool's) at the iteration's end time.
  using Handoff = std::function<void(Sequence* seq, double time_s)>;
  void SetPrefillHandoff(Handoff handoff) { handoff_ = std::move(handoff); }
  bool prefill_only() const { return static_cast<bool>(handoff_); }
  // The serving front end this replica's tokens pass on their way to the client (and, for a
  // front end in the engine's process, whose CPU time delays the next step); not owned.
  void SetFrontEnd(FrontEnd* front_end) { front_end_ = front_end; }
  // The devices' collectives, for the scheduled iteration's duration (default: none).
  void SetCollectives(const CollectiveTiming& collectives) { collectives_ = collectives; }
  // Run-to-run variation: every iteration's time times a seeded random factor of mean 1.
  void SetNoise(const RunNoiseSpec& spec) {
    if (spec.iteration_sigma > 0) noise_ = std::make_unique<RunNoise>(spec, "replica" + std::to_string(index_));
  }
  // A decode replica: a sequence on its way (its KV in transfer) counts in the load from the
  // moment it is routed here; it then arrives (EnqueueIncoming, ownership taken) or finishes
  // on the way (DropIncoming).
  void ReserveIncoming() {
    ++incoming_;
    ++published_.outstanding;
  }
  void EnqueueIncoming(Sequence* seq, double time_s = 0) {
    --incoming_;
    seq->status = SequenceStatus::kWaiting;
    seq->enqueued_s = time_s;
    queues_.waiting.push_back(seq);
  }
  void DropIncoming() {
    --incoming_;
    --published_.outstanding;
  }
  bool HasWork() const { return !queues_.waiting.empty() || !queues_.running.empty() || !queues_.swapped.empty(); }

  // Forms the next batch at `start_s` and prices it with the cost model; false when nothing
  // can run until another request arrives. With speculative decoding (the policy's
  // speculation) every decode step verifies k draft tokens and yields 1 + the accepted ones,
  // all reaching the client together. Under multi-step scheduling a decode batch runs
  // num_scheduler_steps steps before the scheduler runs again (arrivals wait; members that
  // finish keep their slot as padding until the group ends).
  bool Schedule(double start_s);
  const ScheduledBatch& scheduled() const { return scheduled_; }
  const BatchShape& shape() const { return shape_; }
  // The scheduled batch's price, varied by the run (noise, front-end work), and its duration
  // (DecideIterationDuration, decided once in Schedule).
  const IterationCost& cost() const { return cost_; }
  const IterationDuration& duration() const { return duration_; }
  // New tokens of the scheduled batch (for tensor-parallel all-reduce sizes).
  int64_t scheduled_tokens() const { return shape_.TotalNewTokens(); }

  // Applies the scheduled iteration, which ran from start_s to end_s (communication_s of it
  // spent in all-reduces and swap transfers): tokens are produced at end_s and reach the client
  // the cost's output_delay_s later, then through the front end (a multi-step group that does
  // not stream each step: all at its end), finished requests leave and the iteration goes to
  // the sink.
  void Complete(double start_s, double end_s, double communication_s);

  ReplicaLoad LiveLoad() const;
  const ReplicaLoad& published_load() const { return published_; }
  void Publish() { published_ = LiveLoad(); }

 private:
  // Multi-step: the next step of the running group, without the scheduler; false when there
  // is none (no group, its last step done, or a member's KV cannot grow).
  bool ContinueGroup();
  // The scheduler's batch at `start_s`; a schedule-ahead engine formed it when the iteration
  // before started, so requests that arrived after that wait (unless nothing else could run).
  void ScheduleFromQueues(double start_s);
  // Once per token of every iteration: inline. A token reaches the client in a message of its
  // own, with the other tokens of its multi-step group at the group's end, or (stream interval
  // K > 1) with the tokens held since the request's last message. Tokens that reach the client
  // together are one chunk to it: the log records the chunk's time once per token and counts
  // one inter-token gap per chunk.
  void DeliverToken(Sequence& seq, double time_s) {
    if (handoff_) return;  // the decode replica delivers the prefill's token
    if (group_step_ > 0 && !policy_->stream_each_step) {  // held until the group ends
      pending_.push_back({seq.record, seq.Finished(), seq.preemptions, seq.cached_tokens});
      return;
    }
    if (policy_ != nullptr && policy_->stream.interval > 1 && !SendsNow(seq)) return;  // rides with the next
    seq.sent = seq.generated;
    log_.OnToken(seq.record, time_s);
    if (seq.Finished()) log_.OnFinished(seq.record, time_s, seq.preemptions, seq.cached_tokens);
  }
  // Stream interval K > 1: whether the engine sends this request a message after the token it
  // just produced (its first and its last always; in between by the engine's rule).
  bool SendsNow(const Sequence& seq) const {
    if (seq.sent == 0 || seq.Finished()) return true;
    const int k = policy_->stream.interval;
    switch (policy_->stream.rule) {
      case StreamRule::kTokensSinceSent: return seq.generated - seq.sent >= k;
      case StreamRule::kTokenMultiple: return seq.generated % k == 0;
      case StreamRule::kDecodeBatchMultiple: return decode_batches_ % k == 0;
    }
    return true;
  }
  // Speculative decoding: after a decode step's own token, the accepted draft tokens (drawn
  // from the sequence's stream), delivered with it at `time_s`.
  void Speculate(Sequence& seq, double time_s);
  int speculative_tokens() const { return policy_ != nullptr ? policy_->speculation.num_speculative_tokens : 0; }
  void FlushPending(double time_s);
  // The scheduled iteration's record: its cost, the queues and KV use it starts with.
  void RecordScheduled();

  // A token held back until its multi-step group ends.
  struct PendingToken {
    int64_t record = 0;
    bool finished = false;
    int32_t preemptions = 0;
    int64_t cached_tokens = 0;
  };

  int index_;
  std::unique_ptr<Scheduler> scheduler_;
  BlockManager blocks_;
  IterationPricer pricer_;
  RequestLog& log_;
  IterationSink& sink_;
  SequencePool& sequences_;
  ReplicaQueues queues_;
  ScheduledBatch scheduled_;
  BatchShape shape_;
  IterationCost cost_;
  IterationDuration duration_;
  CollectiveTiming collectives_;
  IterationRecord record_;
  std::vector<Sequence*> released_;
  ReplicaLoad published_;
  int64_t iterations_ = 0;
  double last_start_s_ = 0;  // the last completed iteration's start and end
  double last_end_s_ = -1;
  double last_delivered_s_ = 0;  // when the last iteration's tokens reached the client
  std::vector<Sequence*> held_;  // late arrivals set aside while a batch is formed
  const ExecutionPolicy* policy_;
  int group_step_ = 0;  // steps run in the current multi-step group
  int64_t decode_batches_ = 0;  // batches with a decoding sequence (SGLang's forward_ct_decode)
  std::vector<int64_t> group_finished_;  // contexts of members that finished in it
  std::vector<PendingToken> pending_;
  Handoff handoff_;  // set on prefill-only replicas
  int64_t incoming_ = 0;  // sequences whose KV is in transfer to here
  FrontEnd* front_end_ = nullptr;
  int64_t emitting_ = 0;  // sequences of the scheduled batch that sample a token
  std::unique_ptr<RunNoise> noise_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SERVING_REPLICA_H_
