// vLLM V0's default scheduler: continuous batching with prefills first. An iteration runs
// either whole prompts (as many as max_num_batched_tokens, max_num_seqs and the watermark
// admit, none while any sequence is swapped out) or one decode step of every running sequence,
// preempting the most recently admitted ones when blocks run out, then swapping sequences back
// in if nothing was preempted.
#include <cstdint>
#include <limits>

#include "sim/core/serving/schedulers.h"

namespace infergrid {
namespace {

class VllmScheduler final : public Scheduler {
 public:
  explicit VllmScheduler(const SchedulerLimits& limits) : limits_(limits) {}

  void Schedule(ReplicaQueues& queues, BlockManager& blocks, ScheduledBatch& scheduled) override {
    if (queues.swapped.empty()) {
      int64_t tokens = 0;
      while (!queues.waiting.empty() && static_cast<int64_t>(queues.running.size()) < limits_.max_num_seqs) {
        if (!scheduling::AdmitFront(queues, blocks, limits_.max_num_batched_tokens - tokens,
                                    /*allow_partial=*/false, scheduled)) {
          break;
        }
        tokens += scheduled.work.back().new_tokens;
      }
      if (!scheduled.work.empty()) return;
    }
    scheduling::ScheduleDecodes(queues, blocks, limits_.preemption, limits_.max_num_batched_tokens, scheduled,
                                limits_.lookahead_slots);
    if (scheduled.preempted_recompute + scheduled.preempted_swap == 0) {
      scheduling::ScheduleSwapIns(queues, blocks, limits_.max_num_seqs, std::numeric_limits<int64_t>::max(), scheduled,
                                  limits_.lookahead_slots);
    }
  }

 private:
  SchedulerLimits limits_;
};

}  // namespace

std::unique_ptr<Scheduler> MakeVllmScheduler(const SchedulerLimits& limits) {
  return std::make_unique<VllmScheduler>(limits);
}

}  // namespace infergrid
