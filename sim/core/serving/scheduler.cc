#include "sim/core/serving/scheduler.h"

#include <algorithm>

#include "sim/core/serving/schedulers.h"

namespace infergrid {

void Scheduler::Retire(ReplicaQueues& queues, BlockManager& blocks, std::vector<Sequence*>& released) {
  size_t kept = 0;
  for (Sequence* seq : queues.running) {
    if (seq->Finished()) {
      blocks.Release(*seq);
      seq->status = SequenceStatus::kFinished;
      released.push_back(seq);
    } else {
      queues.running[kept++] = seq;
    }
  }
  queues.running.resize(kept);
}

std::unique_ptr<Scheduler> MakeScheduler(SchedulerKind kind, const SchedulerLimits& limits) {
  switch (kind) {
    case SchedulerKind::kVllm: return MakeVllmScheduler(limits);
    case SchedulerKind::kSglang: return MakeSglangScheduler(limits);
    case SchedulerKind::kSarathi: return MakeSarathiScheduler(limits);
    case SchedulerKind::kOrca: return MakeOrcaScheduler(limits);
    case SchedulerKind::kStatic: return MakeStaticScheduler(limits);
  }
  return MakeVllmScheduler(limits);
}

namespace scheduling {

bool ContinuePrefill(Sequence& seq, BlockManager& blocks, int64_t max_tokens, ScheduledBatch& scheduled) {
  const int64_t room = (seq.gpu_blocks + blocks.GrowthRoom(seq)) * blocks.block_size() - seq.computed;
  const int64_t new_tokens = std::min({seq.Remaining(), max_tokens, room});
  if (new_tokens <= 0) return false;
  blocks.Grow(seq, blocks.Needed(seq, seq.computed + new_tokens));
  scheduled.Add(&seq, new_tokens);
  return true;
}

int64_t ContinuePrefills(ReplicaQueues& queues, BlockManager& blocks, int64_t max_tokens, ScheduledBatch& scheduled) {
  int64_t tokens = 0;
  for (Sequence* seq : queues.running) {
    if (tokens >= max_tokens) break;
    if (seq->InDecode()) continue;
    if (ContinuePrefill(*seq, blocks, max_tokens - tokens, scheduled)) tokens += scheduled.work.back().new_tokens;
  }
  return tokens;
}

bool AdmitFront(ReplicaQueues& queues, BlockManager& blocks, int64_t max_tokens, bool allow_partial,
                ScheduledBatch& scheduled) {
  Sequence* seq = queues.waiting.front();
  const int64_t total = seq->TotalTokens();
  if (seq->computed > 0) {
    // KV that arrived with the sequence (a disaggregated prefill's): blocks for it and for the
    // tokens still to compute, which are all that runs.
    int64_t fresh = seq->Remaining();
    if (fresh > max_tokens) {
      if (!allow_partial) return false;
      fresh = max_tokens;
    }
    if (fresh <= 0) return false;
    const int64_t needed = blocks.BlocksFor(seq->computed + fresh);
    if (!blocks.CanAdmit(needed)) return false;
    queues.waiting.pop_front();
    blocks.Grow(*seq, needed);
    seq->status = SequenceStatus::kRunning;
    queues.running.push_back(seq);
    scheduled.Add(seq, fresh);
    return true;
  }
  // At least one token must be computed to sample from, so a hit never covers the whole
  // sequence.
  const BlockManager::PrefixMatch match = blocks.MatchPrefix(*seq, (total - 1) / blocks.block_size());
  const int64_t hit_tokens = match.blocks * blocks.block_size();
  int64_t new_tokens = total - hit_tokens;
  if (new_tokens > max_tokens) {
    if (!allow_partial) return false;
    new_tokens = max_tokens;
  }
  if (new_tokens <= 0) return false;
  const int64_t needed = blocks.BlocksFor(hit_tokens + new_tokens) - match.blocks;
  if (!blocks.CanAdmit(needed + match.evictable)) return false;
  queues.waiting.pop_front();
  if (match.blocks > 0) {
    blocks.AcquirePrefix(*seq, match.blocks);
    seq->computed = hit_tokens;
    seq->cached_tokens += hit_tokens;
  }
  blocks.Grow(*seq, needed);
  seq->status = SequenceStatus::kRunning;
  queues.running.push_back(seq);
  scheduled.Add(seq, new_tokens);
  return true;
}

Sequence* PreemptLast(ReplicaQueues& queues, BlockManager& blocks, PreemptionMode mode, ScheduledBatch& scheduled) {
  Sequence* victim = queues.running.back();
  queues.running.pop_back();
  if (mode == PreemptionMode::kSwap && blocks.CanSwapOut(*victim)) {
    ++victim->preemptions;
    scheduled.swap_out_blocks += victim->gpu_blocks;
    blocks.SwapOut(*victim);
    victim->status = SequenceStatus::kSwapped;
    // Keep the swapped queue in arrival order: the earliest request resumes first.
    auto at = std::upper_bound(queues.swapped.begin(), queues.swapped.end(), victim,
                               [](const Sequence* a, const Sequence* b) { return a->record < b->record; });
    queues.swapped.insert(at, victim);
    ++scheduled.preempted_swap;
  } else {
    ReleaseForRecompute(*victim, blocks, scheduled);
    queues.waiting.push_front(victim);
  }
  return victim;
}

void ReleaseForRecompute(Sequence& victim, BlockManager& blocks, ScheduledBatch& scheduled) {
  ++victim.preemptions;
  blocks.Release(victim);
  victim.computed = 0;
  victim.status = SequenceStatus::kWaiting;
  ++scheduled.preempted_recompute;
}

int64_t ScheduleDecodes(ReplicaQueues& queues, BlockManager& blocks, PreemptionMode mode, int64_t max_tokens,
                        ScheduledBatch& scheduled, int64_t lookahead, bool* all_decoding) {
  int64_t tokens = 0;
  bool decoding = true;
  // Index loop: preemption pops from the back, never before `i`.
  size_t i = 0;
  for (; i < queues.running.size() && tokens < max_tokens; ++i) {
    Sequence* seq = queues.running[i];
    if (!seq->InDecode()) {
      decoding = false;
      continue;
    }
    const int64_t needed = blocks.Needed(*seq, seq->computed + 1 + lookahead);
    bool preempted_itself = false;
    // Growing by nothing always fits (most steps fill a block already held).
    while (needed > 0 && !blocks.CanGrow(*seq, needed)) {
      if (PreemptLast(queues, blocks, mode, scheduled) == seq) {
        preempted_itself = true;
        break;
      }
    }
    if (preempted_itself) break;
    if (needed > 0) blocks.Grow(*seq, needed);
    scheduled.AddDecode(seq);
    tokens += 1 + lookahead;
  }
  if (all_decoding != nullptr) *all_decoding = decoding && i >= queues.running.size();
  return tokens;
}

int64_t ScheduleSwapIns(ReplicaQueues& queues, BlockManager& blocks, int64_t max_num_seqs, int64_t max_tokens,
                        ScheduledBatch& scheduled, int64_t lookahead) {
  int64_t tokens = 0;
  while (!queues.swapped.empty() && tokens < max_tokens && static_cast<int64_t>(queues.running.size()) < max_num_seqs) {
    Sequence* seq = queues.swapped.front();
    const int64_t new_tokens = seq->InDecode() ? 1 : std::min(seq->Remaining(), max_tokens - tokens);
    const int64_t slots = seq->InDecode() ? lookahead : 0;
    const int64_t gpu_blocks = std::max(blocks.BlocksFor(seq->computed + new_tokens + slots), seq->cpu_blocks);
    if (!blocks.CanAdmit(gpu_blocks)) break;
    queues.swapped.pop_front();
    scheduled.swap_in_blocks += seq->cpu_blocks;
    blocks.SwapIn(*seq);
    blocks.Grow(*seq, gpu_blocks - seq->gpu_blocks);
    seq->status = SequenceStatus::kRunning;
    queues.running.push_back(seq);
    scheduled.Add(seq, new_tokens);
    tokens += new_tokens + slots;
  }
  return tokens;
}

}  // namespace scheduling
}  // namespace infergrid
