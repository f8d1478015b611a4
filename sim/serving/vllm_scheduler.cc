// Prefill-first continuous batching, in two variants.
//   vllm (vLLM V0's default): an iteration runs either whole prompts (as many as
//     max_num_batched_tokens, max_num_seqs and the watermark admit, none while any sequence is
//     swapped out) or one decode step of every running sequence, preempting the most recently
//     admitted ones when blocks run out, then swapping sequences back in if nothing was
//     preempted.
//   sglang (SGLang's chunked prefill without --enable-mixed-chunk): the same, but a prefill
//     iteration holds at most chunk_size new tokens: the prompt that does not fit whole is cut
//     to what is left, and its next chunk goes first in the next iteration (the scheduler's
//     chunked_req, PrefillAdder.add_chunked_req), so decodes wait until the last chunk has run.
//     A prompt is started only when the KV for all of it is free.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "sim/serving/schedulers.h"

namespace infergrid {
namespace {

class PrefillFirstScheduler final : public Scheduler {
 public:
  PrefillFirstScheduler(const SchedulerLimits& limits, bool chunk_prompts)
      : limits_(limits),
        chunk_prompts_(chunk_prompts),
        budget_(chunk_prompts ? std::max<int64_t>(1, limits.chunk_size) : limits.max_num_batched_tokens) {}

  void Plan(ReplicaQueues& queues, BlockManager& blocks, BatchPlan& plan) override {
    if (queues.swapped.empty()) {
      int64_t tokens = chunk_prompts_ ? scheduling::ContinuePrefills(queues, blocks, budget_, plan) : 0;
      while (!queues.waiting.empty() && tokens < budget_ &&
             static_cast<int64_t>(queues.running.size()) < limits_.max_num_seqs) {
        // SGLang counts a prompt's whole length against the free KV before it cuts one
        // (PrefillAdder.add_one_req), so a cut prompt never stalls mid-way for blocks.
        if (chunk_prompts_ && !blocks.CanAdmit(blocks.BlocksFor(queues.waiting.front()->TotalTokens()))) break;
        if (!scheduling::AdmitFront(queues, blocks, budget_ - tokens, /*allow_partial=*/chunk_prompts_, plan)) {
          break;
        }
        tokens += plan.work.back().new_tokens;
      }
      if (!plan.work.empty()) return;
    }
    scheduling::ScheduleDecodes(queues, blocks, limits_.preemption,
                                limits_.max_num_batched_tokens, plan, limits_.lookahead_slots);
    if (plan.preempted_recompute + plan.preempted_swap == 0) {
      scheduling::ScheduleSwapIns(queues, blocks, limits_.max_num_seqs,
                                  std::numeric_limits<int64_t>::max(), plan, limits_.lookahead_slots);
    }
  }

 private:
  SchedulerLimits limits_;
  bool chunk_prompts_;
  int64_t budget_;  // new tokens of one prefill iteration
};

}  // namespace

std::unique_ptr<Scheduler> MakeVllmScheduler(const SchedulerLimits& limits) {
  return std::make_unique<PrefillFirstScheduler>(limits, /*chunk_prompts=*/false);
}

std::unique_ptr<Scheduler> MakeSglangScheduler(const SchedulerLimits& limits) {
  return std::make_unique<PrefillFirstScheduler>(limits, /*chunk_prompts=*/true);
}

}  // namespace infergrid
