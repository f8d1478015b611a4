// Sarathi-Serve's stall-free batching (vLLM's chunked prefill): every iteration carries one
// decode token of each running sequence first, then continues prefills already under way, then
// swaps sequences back in, then admits new prompts, chunking prefills so that the iteration
// holds at most min(chunk_size, max_num_batched_tokens) new tokens. Decodes never wait for a
// long prompt; a prompt is spread over as many iterations as the budget requires. With
// guaranteed_no_evict (TensorRT-LLM's default capacity scheduler) a prompt is admitted only
// when the blocks for its whole prompt and output fit beside what the running sequences still
// need, so decodes never run out of blocks.
#include <algorithm>
#include <array>
#include <cstdint>

#include "sim/core/serving/schedulers.h"

namespace infergrid {
namespace {

class SarathiScheduler final : public Scheduler {
 public:
  explicit SarathiScheduler(const SchedulerLimits& limits)
      : limits_(limits), budget_(std::max<int64_t>(1, std::min(limits.chunk_size, limits.max_num_batched_tokens))) {}

  void Schedule(ReplicaQueues& queues, BlockManager& blocks, ScheduledBatch& scheduled) override {
    bool all_decoding = false;
    int64_t tokens = scheduling::ScheduleDecodes(queues, blocks, limits_.preemption, budget_, scheduled,
                                                 limits_.lookahead_slots, &all_decoding);
    if (!all_decoding) tokens += scheduling::ContinuePrefills(queues, blocks, budget_ - tokens, scheduled);
    if (scheduled.preempted_recompute + scheduled.preempted_swap == 0) {
      tokens += scheduling::ScheduleSwapIns(queues, blocks, limits_.max_num_seqs, budget_ - tokens, scheduled,
                                            limits_.lookahead_slots);
    }
    // Without guaranteed_no_evict nothing is reserved: every pool's count stays 0. With window
    // pools each pool keeps its own reservations (one NoEvictScheduledBlocksManager count per
    // window size).
    const int pools = limits_.guaranteed_no_evict ? 1 + blocks.window_pool_count() : 0;
    std::array<int64_t, kMaxKvWindowPools> unreserved{};
    for (int p = 0; p < pools; ++p) unreserved[static_cast<size_t>(p)] = UnreservedBlocks(queues, blocks, p);
    while (!queues.waiting.empty() && tokens < budget_ &&
           static_cast<int64_t>(queues.running.size()) < limits_.max_num_seqs) {
      const int64_t whole = limits_.guaranteed_no_evict ? FullLengthBlocks(*queues.waiting.front(), blocks) : 0;
      bool fits = true;
      for (int p = 0; p < pools; ++p) fits = fits && blocks.PoolHeld(p, whole) <= unreserved[static_cast<size_t>(p)];
      if (!fits) break;
      if (!scheduling::AdmitFront(queues, blocks, budget_ - tokens, /*allow_partial=*/true, scheduled)) break;
      tokens += scheduled.work.back().new_tokens;
      for (int p = 0; p < pools; ++p) unreserved[static_cast<size_t>(p)] -= blocks.PoolHeld(p, whole);
    }
  }

 private:
  // Free blocks of pool `p` less what every running sequence still needs there to reach its
  // full length (NoEvictScheduledBlocksManager).
  static int64_t UnreservedBlocks(const ReplicaQueues& queues, const BlockManager& blocks, int p) {
    int64_t unreserved = blocks.PoolFree(p);
    for (const Sequence* seq : queues.running) {
      unreserved -= std::max<int64_t>(
          0, blocks.PoolHeld(p, FullLengthBlocks(*seq, blocks)) - blocks.PoolHeld(p, seq->gpu_blocks));
    }
    return unreserved;
  }
  // Blocks for the sequence's whole prompt and output (getRemainingBlocksToCompletion of a new
  // request).
  static int64_t FullLengthBlocks(const Sequence& seq, const BlockManager& blocks) {
    return blocks.BlocksFor(int64_t{seq.prompt_tokens} + seq.output_tokens);
  }

  SchedulerLimits limits_;
  int64_t budget_;
};

}  // namespace

std::unique_ptr<Scheduler> MakeSarathiScheduler(const SchedulerLimits& limits) {
  return std::make_unique<SarathiScheduler>(limits);
}

}  // namespace infergrid
