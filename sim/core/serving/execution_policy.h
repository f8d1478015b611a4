// How an engine runs the batches its scheduler forms, beyond what is in them: which batches
// replay a captured CUDA graph (padded up to the next captured size, or only at exact sizes),
// which run eagerly or piecewise (graphs between attention kernels), multi-step scheduling
// (one scheduler call plans several decode steps), and whether the next batch is formed while
// this one runs. Set from an engine personality
// (sim/core/personality/engines/*.textproto, execution.cuda_graphs and num_scheduler_steps).
#ifndef INFERGRID_SIM_CORE_SERVING_EXECUTION_POLICY_H_
#define INFERGRID_SIM_CORE_SERVING_EXECUTION_POLICY_H_

#include <cstdint>
#include <vector>

#include "models/batch_shape.h"
#include "sim/core/serving/speculation.h"

namespace infergrid {

struct CudaGraphPolicy {
  std::vector<int64_t> sizes;  // captured sizes, ascending; empty: every batch runs eagerly
  bool keyed_on_tokens = false;  // sizes count new tokens (vLLM V1), not sequences
  bool pad = true;  // false: a size that was not captured runs eagerly
  bool decode_only = true;  // graphs for decode batches only: prefill and mixed batches
  bool piecewise_mixed = false;  // run eagerly, or piecewise (attention eager) with this
  int64_t max_decode_context = 0;  // > 0: a longer decode context runs eagerly
};

// When an engine with a stream interval K > 1 sends a request's tokens: always its first token
// and its last, and in between by the engine's rule. Tokens not sent wait for the next message,
// so the client sees one chunk of several tokens (docs/engines.md#streaming-granularity).
enum class StreamRule : uint8_t {
  kTokensSinceSent,  // K tokens since the last message (vLLM V1 output_processor, SGLang per request)
  kTokenMultiple,  // the request's token count a multiple of K (TensorRT-LLM py_decoding_iter)
  kDecodeBatchMultiple,  // every K-th decode batch of the engine (SGLang 0.4.1 forward_ct_decode)
};

struct StreamPolicy {
  int interval = 1;  // K tokens a message; 1: every token as produced
  StreamRule rule = StreamRule::kTokensSinceSent;
};

struct ExecutionPolicy {
  CudaGraphPolicy graphs;
  int num_scheduler_steps = 1;  // > 1: a decode batch runs that many steps per scheduler call
  bool stream_each_step = true;  // false: a multi-step group's tokens leave at its end
  StreamPolicy stream;  // the engine's stream interval
  // The next batch is formed as soon as this one is launched, while it runs (vLLM V1's async
  // scheduling, SGLang's and TensorRT-LLM's overlap schedulers): a request that reaches the
  // engine after an iteration started misses the batch after it and first runs in the one
  // after that. An idle engine schedules an arrival at once.
  bool schedules_ahead = false;
  // Speculative decoding: k draft tokens per decode step and how many are accepted.
  SpeculationPolicy speculation;

  // Sets shape.launch and shape.padding_rows for the batch in `shape`. A speculative batch
  // (shape.speculative_tokens = k) is keyed on the tokens the target verifies: k + 1 per decode
  // sequence (vLLM V1 captures such uniform batches too).
  void ApplyGraphs(BatchShape& shape) const;
};

// The sizes of `ranges` (start, end inclusive, step), ascending and unique, up to `max_size`.
struct SizeRangeSpec {
  int64_t start = 1;
  int64_t end = 1;
  int64_t step = 1;
};
std::vector<int64_t> CaptureSizes(const std::vector<SizeRangeSpec>& ranges, int64_t max_size);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SERVING_EXECUTION_POLICY_H_
