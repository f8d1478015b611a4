// Static batching (request-level, as in HF generate or FasterTransformer without in-flight
// batching): when the replica is idle, up to max_num_seqs waiting requests whose prompt +
// output KV reservation fits form a batch. Its prompts are prefilled (max_num_batched_tokens
// per iteration), then the batch decodes until its longest member finishes. A finished member
// streams its last token at once but keeps its slot, its KV and a padding token per step until
// the batch ends; requests arriving meanwhile wait for the next batch.
#include <cstdint>

#include "sim/core/serving/schedulers.h"

namespace infergrid {
namespace {

class StaticScheduler final : public Scheduler {
 public:
  explicit StaticScheduler(const SchedulerLimits& limits) : limits_(limits) {}
  bool reserves_kv() const override { return true; }

  void Schedule(ReplicaQueues& queues, BlockManager& blocks, ScheduledBatch& scheduled) override {
    if (queues.running.empty()) FormBatch(queues, blocks);
    int64_t tokens = 0;
    for (Sequence* seq : queues.running) {
      if (seq->generated > 0) continue;
      if (tokens > 0 && tokens + seq->Remaining() > limits_.max_num_batched_tokens) break;
      tokens += seq->Remaining();
      scheduled.Add(seq, seq->Remaining());
    }
    if (!scheduled.work.empty()) return;
    for (Sequence* seq : queues.running) {
      if (seq->Finished()) {
        scheduled.padding_contexts.push_back(seq->TotalTokens());
      } else {
        scheduled.Add(seq, 1);
      }
    }
    // A batch of finished members only is retired before planning, so padding never runs alone.
  }

  void Retire(ReplicaQueues& queues, BlockManager& blocks, std::vector<Sequence*>& released) override {
    for (const Sequence* seq : queues.running) {
      if (!seq->Finished()) return;
    }
    for (Sequence* seq : queues.running) {
      blocks.Release(*seq);
      seq->status = SequenceStatus::kFinished;
      released.push_back(seq);
    }
    queues.running.clear();
  }

 private:
  void FormBatch(ReplicaQueues& queues, BlockManager& blocks) {
    while (!queues.waiting.empty() && static_cast<int64_t>(queues.running.size()) < limits_.max_num_seqs) {
      Sequence* seq = queues.waiting.front();
      const int64_t reserve = blocks.BlocksFor(int64_t{seq->prompt_tokens} + seq->output_tokens);
      if (!blocks.CanAdmit(reserve)) break;
      queues.waiting.pop_front();
      blocks.Grow(*seq, reserve);
      seq->reserved_blocks = reserve;
      seq->status = SequenceStatus::kRunning;
      queues.running.push_back(seq);
    }
  }

  SchedulerLimits limits_;
};

}  // namespace

std::unique_ptr<Scheduler> MakeStaticScheduler(const SchedulerLimits& limits) {
  return std::make_unique<StaticScheduler>(limits);
}

}  // namespace infergrid
