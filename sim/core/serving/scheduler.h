// A replica's scheduling policy: at each iteration boundary it forms the next batch from the
// replica's queues under its limits, admitting, preempting and swapping through the block
// manager. Policies (docs/simulation.md, "Serving model", has their semantics):
//   vllm     continuous batching, prefill first: an iteration is either all prefills (whole
//            prompts, under max_num_batched_tokens) or all decodes (vLLM V0's default);
//   sglang   as vllm, but a prefill iteration holds at most chunk_size new tokens: a prompt
//            that does not fit is cut, and its next chunk runs first in the next iteration,
//            before any decode; admission keeps KV for the running requests' outputs x
//            new_token_ratio (SGLang's scheduler without mixed chunks);
//   sarathi  chunked prefill: every running decode plus prefill chunks filling a token budget
//            of min(chunk_size, max_num_batched_tokens) (Sarathi-Serve; vLLM's chunked prefill;
//            with guaranteed_no_evict, TensorRT-LLM's in-flight batching);
//   orca     iteration-level batching: decodes and whole new prompts in one batch, KV reserved
//            for prompt + output at admission (no paging, no preemption);
//   static   static batches: a batch is formed when the replica is idle, prefilled, and decoded
//            until its longest member finishes; finished members keep computing padding.
#ifndef INFERGRID_SIM_CORE_SERVING_SCHEDULER_H_
#define INFERGRID_SIM_CORE_SERVING_SCHEDULER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/enum_names.h"
#include "sim/core/serving/scheduled_batch.h"
#include "sim/core/serving/block_manager.h"
#include "sim/core/serving/sequence.h"

namespace infergrid {

// What happens to a running sequence when KV blocks run out: drop it and prefill it again
// later, or move its blocks to host memory.
enum class PreemptionMode { kRecompute, kSwap };
inline constexpr EnumName<PreemptionMode> kPreemptionModeNames[] = {{PreemptionMode::kRecompute, "recompute"},
                                                                    {PreemptionMode::kSwap, "swap"}};

// The batching policies (see MakeScheduler).
enum class SchedulerKind { kVllm, kSglang, kSarathi, kOrca, kStatic };
inline constexpr EnumName<SchedulerKind> kSchedulerNames[] = {{SchedulerKind::kVllm, "vllm"},
                                                              {SchedulerKind::kSglang, "sglang"},
                                                              {SchedulerKind::kSarathi, "sarathi"},
                                                              {SchedulerKind::kOrca, "orca"},
                                                              {SchedulerKind::kStatic, "static"}};

struct SchedulerLimits {
  int64_t max_num_seqs = 256;
  int64_t max_num_batched_tokens = 8192;
  int64_t chunk_size = 512;  // sarathi's token budget per iteration; sglang's per prefill
  PreemptionMode preemption = PreemptionMode::kRecompute;
  // Speculative decoding: KV slots each decode step reserves beyond its own token for the k
  // draft tokens it verifies (vLLM's lookahead slots); each also takes k more tokens of the
  // iteration's token budget.
  int64_t lookahead_slots = 0;
  // sarathi: admit a request only when the blocks for its whole prompt + output fit beside what
  // every running sequence still needs (TensorRT-LLM's GUARANTEED_NO_EVICT).
  bool guaranteed_no_evict = false;
  // sglang with chunking off (--chunked-prefill-size=-1): prompts are never cut; a prefill
  // holds whole prompts up to chunk_size tokens (max_prefill_tokens), a longer one alone.
  bool whole_prompts = false;
};

// The queues of one replica. Sequences are owned by the engine.
struct ReplicaQueues {
  std::deque<Sequence*> waiting;  // FCFS; recompute-preempted sequences return to the front
      // (sglang: retracted ones to the back)
  std::vector<Sequence*> running;  // admission order; the last one is preempted first
  std::deque<Sequence*> swapped;  // in arrival order; swapped back in from the front
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Whether KV is reserved for prompt + output at admission (orca, static) rather than paged.
  virtual bool reserves_kv() const { return false; }
  // Forms the next batch into `scheduled` (cleared by the caller). An empty batch means nothing can
  // run until a sequence arrives.
  virtual void Schedule(ReplicaQueues& queues, BlockManager& blocks, ScheduledBatch& scheduled) = 0;
  // After an iteration's tokens were applied: takes finished sequences out of the queues,
  // frees their blocks and appends them to `released` (the engine deletes them).
  virtual void Retire(ReplicaQueues& queues, BlockManager& blocks, std::vector<Sequence*>& released);
};

std::unique_ptr<Scheduler> MakeScheduler(SchedulerKind kind, const SchedulerLimits& limits);

namespace scheduling {

// Admits the waiting sequence at the front if the budget and the blocks allow, linking the
// longest cached prefix (prefix caching). It is scheduled for all its remaining tokens, or for
// max_tokens of them when `allow_partial` (chunked prefill). Returns false (nothing changed)
// otherwise.
bool AdmitFront(ReplicaQueues& queues, BlockManager& blocks, int64_t max_tokens, bool allow_partial,
                ScheduledBatch& scheduled);

// Schedules the next chunk of `seq`, whose prompt is under way: up to `max_tokens` of it, as
// many as the free blocks hold. Returns false (nothing changed) when none fits.
bool ContinuePrefill(Sequence& seq, BlockManager& blocks, int64_t max_tokens, ScheduledBatch& scheduled);
// Schedules the next chunk of every running sequence whose prompt is under way (a chunked
// prefill), front to back, as much of `max_tokens` as the free blocks hold. Returns the tokens
// scheduled.
int64_t ContinuePrefills(ReplicaQueues& queues, BlockManager& blocks, int64_t max_tokens, ScheduledBatch& scheduled);
// Preempts the last running sequence (swap if the mode and host space allow, else recompute).
// Returns the victim.
Sequence* PreemptLast(ReplicaQueues& queues, BlockManager& blocks, PreemptionMode mode, ScheduledBatch& scheduled);
// Frees a preempted sequence's blocks so that it is prefilled again (prompt and the tokens it
// generated) and counts the preemption, the sequence's and the batch's; the caller has taken it out of `running` and puts it
// back in a queue.
void ReleaseForRecompute(Sequence& victim, BlockManager& blocks, ScheduledBatch& scheduled);

// Schedules one decode token for every running sequence in decode, front to back, preempting
// from the back when blocks run out (vLLM's _schedule_running). Stops at `max_tokens`. Each
// decode reserves KV for 1 + `lookahead` tokens and counts that many against the budget.
// Returns the tokens scheduled. `all_decoding`, when given, is set to whether every running
// sequence was seen and in decode (then ContinuePrefills has nothing to do).
int64_t ScheduleDecodes(ReplicaQueues& queues, BlockManager& blocks, PreemptionMode mode, int64_t max_tokens,
                        ScheduledBatch& scheduled, int64_t lookahead = 0, bool* all_decoding = nullptr);

// Swaps sequences back in, front first, while the watermark and max_num_seqs allow; each is
// scheduled for its next step (a decode with its `lookahead` slots). Returns the tokens scheduled.
int64_t ScheduleSwapIns(ReplicaQueues& queues, BlockManager& blocks, int64_t max_num_seqs, int64_t max_tokens,
                        ScheduledBatch& scheduled, int64_t lookahead = 0);

}  // namespace scheduling

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SERVING_SCHEDULER_H_
