// A request while a replica serves it: how many of its tokens have their K/V in the cache,
// how many output tokens it has produced, and the KV blocks it holds. Plain data owned by the
// run's SequencePool (sequence_pool.h); schedulers move pointers to it between a replica's
// queues and nobody else deletes it.
//
// One rule covers prefill, chunked prefill, decode and recompute: a sequence knows
// TotalTokens() = prompt + generated tokens and has `computed` of them cached. An iteration
// processes some of the Remaining() tokens; when computed reaches TotalTokens() the sequence
// samples one new token (generated + 1). A fresh prompt needs P tokens, a decode step 1, and a
// sequence preempted by recompute P + generated again.
#ifndef INFERGRID_SIM_CORE_SERVING_SEQUENCE_H_
#define INFERGRID_SIM_CORE_SERVING_SEQUENCE_H_

#include <cstdint>
#include <vector>

namespace infergrid {

enum class SequenceStatus : uint8_t { kWaiting, kRunning, kSwapped, kFinished };

struct Sequence {
  int64_t record = 0;  // index of the request in the run (its metrics record)
  int32_t prompt_tokens = 0;
  int32_t output_tokens = 1;  // tokens to generate, >= 1
  int32_t generated = 0;  // output tokens produced so far
  int32_t sent = 0;  // of them, sent to the client (a stream interval holds the rest)
  int64_t computed = 0;  // tokens whose K/V are in the GPU cache
  int64_t gpu_blocks = 0;  // KV blocks held on the GPU (cache-linked ones included)
  int64_t cpu_blocks = 0;  // KV blocks held in host memory while swapped out
  int64_t reserved_blocks = 0;  // orca/static: blocks reserved for the whole sequence
  int32_t preemptions = 0;
  double enqueued_s = 0;  // when it joined this replica's waiting queue
  SequenceStatus status = SequenceStatus::kWaiting;
  bool scheduled = false;  // has been in a batch at least once
  // Prefix caching: the cache keys of this sequence's full prompt blocks (empty when the
  // request carries no block hashes) and how many leading blocks are held through the cache.
  std::vector<uint64_t> prefix_keys;
  int64_t linked_blocks = 0;
  int64_t cached_tokens = 0;  // prompt tokens served from the prefix cache at admission
  // Prefill/decode disaggregation: the output length the decode pool serves, while a prefill
  // replica runs the sequence with output_tokens = 1 (0: not disaggregated).
  int32_t decode_output_tokens = 0;
  // Speculative decoding (sim/core/serving/speculation.h): the request's acceptance rate and its
  // own random stream.
  double acceptance_rate = 0;
  uint64_t speculation_state = 0;

  int64_t TotalTokens() const { return int64_t{prompt_tokens} + generated; }
  int64_t Remaining() const { return TotalTokens() - computed; }
  // A decode step: one token after a completed prefill.
  bool InDecode() const { return generated > 0 && Remaining() == 1; }
  bool Finished() const { return generated >= output_tokens; }
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SERVING_SEQUENCE_H_
