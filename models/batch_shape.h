// The work of one engine iteration as the scheduler forms it: the prefill chunks with the
// context already cached before each, the decode sequences by their own context length, and how
// the engine runs it (CUDA graph or eager launches, the dummy rows a captured graph size adds,
// whether the scheduler runs this step). What it costs is the cost models' business
// (sim/core/cost/); models/iteration_kernels.h turns it into the kernels of a forward pass.
#ifndef INFERGRID_MODELS_BATCH_SHAPE_H_
#define INFERGRID_MODELS_BATCH_SHAPE_H_

#include <cstdint>
#include <vector>

namespace infergrid {

// One prefill chunk: `new_tokens` prompt tokens computed now, after `context_tokens` tokens
// already in the KV cache (0 for a fresh prompt; > 0 for later chunks of a chunked prefill or
// a prefix-cache hit).
struct PrefillChunk {
  int64_t new_tokens = 0;
  int64_t context_tokens = 0;
};

// The work of one iteration. Decode sequences are listed by their own context length (tokens
// already cached), never a batch mean: attention cost is not linear in a mean.
// How the kernels of a forward are put on the GPU: replayed from a captured CUDA graph, issued
// one by one by the host, or piecewise (graphs between the attention kernels, which the host
// issues).
enum class LaunchMode : uint8_t { kGraph, kEager, kPiecewise };

struct BatchShape {
  std::vector<PrefillChunk> prefill;
  std::vector<int64_t> decode_context_tokens;
  // Dummy rows the captured graph size adds to the linear layers (no KV, no attention, no
  // sampling).
  int64_t padding_rows = 0;
  LaunchMode launch = LaunchMode::kGraph;
  bool schedules = true;  // the scheduler runs before this step (multi-step: the first of N)
  // Speculative decoding: each decode sequence verifies this many draft tokens (k) this step,
  // drafted by k proposer passes before it. 0: plain decoding. Cost models that do not
  // speculate never see it set: sim/core/cost/speculative_cost_model.h prices it as the proposer's
  // passes plus the target's forward with k + 1 new tokens per decode sequence.
  int32_t speculative_tokens = 0;
  // Rows beyond one per sequence whose logits are computed and sampled: a speculative
  // verification scores all k + 1 positions of each verified sequence (k extra each).
  int64_t extra_sampled_rows = 0;

  int64_t sequences() const { return static_cast<int64_t>(prefill.size() + decode_context_tokens.size()); }
  int64_t TotalNewTokens() const {
    int64_t total = static_cast<int64_t>(decode_context_tokens.size());
    for (const PrefillChunk& c : prefill) total += c.new_tokens;
    return total;
  }
  bool empty() const { return prefill.empty() && decode_context_tokens.empty(); }
};

}  // namespace infergrid

#endif  // INFERGRID_MODELS_BATCH_SHAPE_H_
