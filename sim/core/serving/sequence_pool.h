// The one owner of a run's sequences. A request admitted to the run becomes a Sequence here and
// stays here until it finishes (its last token delivered, or its prefill handed to a decode
// replica and finished there): replicas, schedulers, front ends and KV transfers hold plain
// pointers to it and never delete it. A finished sequence is Released and its slot reused by
// the next admission, so a run allocates about as many sequences as it has in flight at once;
// whatever is still held when the pool goes (a run that failed or stopped early) is freed with
// it, wherever the engine last held it.
#ifndef INFERGRID_SIM_CORE_SERVING_SEQUENCE_POOL_H_
#define INFERGRID_SIM_CORE_SERVING_SEQUENCE_POOL_H_

#include <cstdint>
#include <deque>
#include <vector>

#include "sim/core/serving/sequence.h"

namespace infergrid {

class SequencePool {
 public:
  SequencePool() = default;
  SequencePool(const SequencePool&) = delete;
  SequencePool& operator=(const SequencePool&) = delete;

  // A sequence holding `value`, valid until it is released (or the pool destroyed).
  Sequence* Acquire(Sequence&& value);
  // Gives a finished sequence back; `seq` must come from this pool's Acquire and is not used
  // after this.
  void Release(Sequence* seq);

  // Sequences acquired and not released.
  int64_t live() const { return static_cast<int64_t>(slots_.size() - free_.size()); }
  // Sequences ever allocated (the most live at once).
  int64_t allocated() const { return static_cast<int64_t>(slots_.size()); }

 private:
  std::deque<Sequence> slots_;  // a deque: growing it keeps the addresses handed out
  std::vector<Sequence*> free_;  // released slots, reused last released first
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SERVING_SEQUENCE_POOL_H_
