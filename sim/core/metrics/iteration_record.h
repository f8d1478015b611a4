// One engine iteration of one replica as the outputs see it (iterations.csv, the timeline, the
// aggregates): when it ran, what the batch held, the KV and queue state after scheduling, what
// bound its time, and the KV traffic to host memory it waited for.
#ifndef INFERGRID_SIM_CORE_METRICS_ITERATION_RECORD_H_
#define INFERGRID_SIM_CORE_METRICS_ITERATION_RECORD_H_

#include <cstdint>

#include "hardware/resource.h"

namespace infergrid {

struct IterationRecord {
  int32_t replica = 0;
  int64_t index = 0;  // per replica, from 0
  double start_s = 0;
  double end_s = 0;
  double compute_s = 0;  // cost-model duration (forward pass incl. its overheads)
  double communication_s = 0;  // tensor-parallel all-reduces and swap transfers
  double host_s = 0;  // of compute_s, the engine's host work the GPU waits for
  double host_hidden_s = 0;  // host work that ran under the GPU's
  int32_t prefill_seqs = 0;
  int64_t prefill_tokens = 0;
  int32_t decode_seqs = 0;  // one new token each
  int32_t padding_seqs = 0;  // static batching: finished members still in the batch
  int64_t kv_blocks_used = 0;  // of the pool with the largest used share (TensorRT-LLM's window
  int64_t kv_blocks_total = 0;  // pools; the one pool otherwise)
  int32_t waiting = 0;
  int32_t running = 0;
  int32_t swapped = 0;
  int32_t preempted = 0;
  int32_t preempted_swap = 0;  // of `preempted`, those swapped out (the rest recompute)
  int64_t swap_out_blocks = 0;
  int64_t swap_in_blocks = 0;
  Resource binding = Resource::kHbm;
  double hbm_fraction = 0;
  double compute_fraction = 0;
  // Speculative decoding: of compute_s, the proposer's time (draft passes or n-gram lookup);
  // decode sequences that verified drafts, the draft tokens proposed and accepted, and the
  // tokens those sequences emitted (their own plus the accepted ones, cut at the output length).
  double draft_s = 0;
  int32_t speculative_seqs = 0;
  int32_t draft_tokens = 0;
  int32_t accepted_tokens = 0;
  int32_t emitted_tokens = 0;

  int32_t batch_size() const { return prefill_seqs + decode_seqs + padding_seqs; }
  int64_t new_tokens() const { return prefill_tokens + decode_seqs + padding_seqs; }
};

// Receives every iteration in simulated-time order per replica (replicas interleave).
class IterationSink {
 public:
  virtual ~IterationSink() = default;
  virtual void OnIteration(const IterationRecord& record) = 0;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_METRICS_ITERATION_RECORD_H_
