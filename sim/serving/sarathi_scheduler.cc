// Sarathi-Serve's stall-free batching (vLLM's chunked prefill): every iteration carries one
// decode token of each running sequence first, then continues prefills already under way, then
// swaps sequences back in, then admits new prompts, chunking prefills so that the iteration
// holds at most min(chunk_size, max_num_batched_tokens) new tokens. Decodes never wait for a
// long prompt; a prompt is spread over as many iterations as the budget requires.
#include <algorithm>
#include <cstdint>

#include "sim/serving/schedulers.h"

namespace infergrid {
namespace {

class SarathiScheduler final : public Scheduler {
 public:
  explicit SarathiScheduler(const SchedulerLimits& limits)
      : limits_(limits),
        budget_(std::max<int64_t>(1, std::min(limits.chunk_size, limits.max_num_batched_tokens))) {}

  void Plan(ReplicaQueues& queues, BlockManager& blocks, BatchPlan& plan) override {
    int64_t tokens =
        scheduling::ScheduleDecodes(queues, blocks, limits_.preemption, budget_, plan, limits_.lookahead_slots);
    tokens += scheduling::ContinuePrefills(queues, blocks, budget_ - tokens, plan);
    if (plan.preempted_recompute + plan.preempted_swap == 0) {
      tokens += scheduling::ScheduleSwapIns(queues, blocks, limits_.max_num_seqs, budget_ - tokens, plan,
                                            limits_.lookahead_slots);
    }
    while (!queues.waiting.empty() && tokens < budget_ &&
           static_cast<int64_t>(queues.running.size()) < limits_.max_num_seqs) {
      if (!scheduling::AdmitFront(queues, blocks, budget_ - tokens, /*allow_partial=*/true, plan)) break;
      tokens += plan.work.back().new_tokens;
    }
  }

 private:
  SchedulerLimits limits_;
  int64_t budget_;
};

}  // namespace

std::unique_ptr<Scheduler> MakeSarathiScheduler(const SchedulerLimits& limits) {
  return std::make_unique<SarathiScheduler>(limits);
}

}  // namespace infergrid
