// Orca's iteration-level scheduling: at every iteration boundary new requests join the batch
// and run their whole prompt in the same iteration as the running sequences' decode steps
// (selective batching). KV space for prompt + output is reserved at admission, as Orca does
// without paging, so nothing is ever preempted; admission stops at max_num_seqs, at
// max_num_batched_tokens prompt tokens per iteration, or when the reservation does not fit.
#include <cstdint>

#include "sim/core/serving/schedulers.h"

namespace infergrid {
namespace {

class OrcaScheduler final : public Scheduler {
 public:
  explicit OrcaScheduler(const SchedulerLimits& limits) : limits_(limits) {}
  bool reserves_kv() const override { return true; }

  void Schedule(ReplicaQueues& queues, BlockManager& blocks, ScheduledBatch& scheduled) override {
    for (Sequence* seq : queues.running) scheduled.Add(seq, 1);
    int64_t tokens = 0;
    while (!queues.waiting.empty() && static_cast<int64_t>(queues.running.size()) < limits_.max_num_seqs) {
      Sequence* seq = queues.waiting.front();
      const int64_t reserve = blocks.BlocksFor(int64_t{seq->prompt_tokens} + seq->output_tokens);
      if (tokens + seq->Remaining() > limits_.max_num_batched_tokens || !blocks.CanAdmit(reserve)) break;
      queues.waiting.pop_front();
      blocks.Grow(*seq, reserve);
      seq->reserved_blocks = reserve;
      seq->status = SequenceStatus::kRunning;
      queues.running.push_back(seq);
      tokens += seq->Remaining();
      scheduled.Add(seq, seq->Remaining());
    }
  }

 private:
  SchedulerLimits limits_;
};

}  // namespace

std::unique_ptr<Scheduler> MakeOrcaScheduler(const SchedulerLimits& limits) {
  return std::make_unique<OrcaScheduler>(limits);
}

}  // namespace infergrid
