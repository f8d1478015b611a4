// What a scheduler decides for one iteration of one replica: which sequences run and how many
// new tokens each processes, which were preempted, and the KV traffic to and from host memory
// that must happen before the forward pass (swap in/out over PCIe).
#ifndef INFERGRID_SIM_CORE_SERVING_SCHEDULED_BATCH_H_
#define INFERGRID_SIM_CORE_SERVING_SCHEDULED_BATCH_H_

#include <cstdint>
#include <vector>

#include "sim/core/serving/sequence.h"

namespace infergrid {

struct ScheduledWork {
  Sequence* seq = nullptr;
  int64_t new_tokens = 0;
  bool decode = false;  // one token after a completed prefill
};

struct ScheduledBatch {
  std::vector<ScheduledWork> work;
  int64_t swap_out_blocks = 0;
  int64_t swap_in_blocks = 0;
  int32_t preempted_recompute = 0;
  int32_t preempted_swap = 0;
  // Static batching: sequences that finished earlier but still occupy a slot and compute
  // padding tokens until the whole batch completes (their contexts, for the cost model).
  std::vector<int64_t> padding_contexts;

  void Clear() {
    work.clear();
    swap_out_blocks = swap_in_blocks = 0;
    preempted_recompute = preempted_swap = 0;
    padding_contexts.clear();
  }
  bool empty() const { return work.empty() && padding_contexts.empty(); }
  void Add(Sequence* seq, int64_t new_tokens) { work.push_back({seq, new_tokens, seq->InDecode() && new_tokens == 1}); }
  // A decode step of a sequence known to be in decode (Add(seq, 1) without asking again).
  void AddDecode(Sequence* seq) { work.push_back({seq, 1, true}); }
};

// A batch of decodes only (one new token per sequence, no padding rows): what multi-step
// scheduling groups, and what --cost-stride may price from an earlier step.
inline bool PureDecode(const ScheduledBatch& scheduled) {
  if (scheduled.work.empty() || !scheduled.padding_contexts.empty()) return false;
  for (const ScheduledWork& w : scheduled.work) {
    if (!w.decode) return false;
  }
  return true;
}

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SERVING_SCHEDULED_BATCH_H_
