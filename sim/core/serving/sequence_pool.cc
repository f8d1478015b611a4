#include "sim/core/serving/sequence_pool.h"

#include <utility>

namespace infergrid {

Sequence* SequencePool::Acquire(Sequence&& value) {
  if (free_.empty()) {
    slots_.push_back(std::move(value));
    return &slots_.back();
  }
  Sequence* seq = free_.back();
  free_.pop_back();
  *seq = std::move(value);
  return seq;
}

void SequencePool::Release(Sequence* seq) {
  seq->status = SequenceStatus::kFinished;
  free_.push_back(seq);
}

}  // namespace infergrid
