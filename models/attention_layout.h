// Which layers of a model attend to all earlier tokens and which to a sliding window, read from
// ModelSpec.attention, and the attention arithmetic that depends on it: keys a query attends to,
// query-key pairs of a prefill chunk, KV the cache must keep. Used by the kernel list
// (models/iteration_kernels.cc), the KV-cache groups (models/kv_cache_groups.h) and the reports.
#ifndef INFERGRID_MODELS_ATTENTION_LAYOUT_H_
#define INFERGRID_MODELS_ATTENTION_LAYOUT_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "models/model_spec.pb.h"

namespace infergrid {

// The attention kind of layer `layer` (0-based): the pattern repeated from layer 0, every layer
// windowed when the pattern is empty and sliding_window > 0, else full attention.
AttentionKind LayerAttentionKind(const ModelSpec& spec, int layer);

// Layers [first, first + count) by kind.
struct AttentionLayerCounts {
  int full = 0;
  int window = 0;
  int chunked = 0;
  int linear = 0;  // linear-attention (state-space) layers: no KV cache
  int attention() const { return full + window + chunked; }
};
AttentionLayerCounts CountAttentionLayers(const ModelSpec& spec, int first, int count);
inline AttentionLayerCounts CountAttentionLayers(const ModelSpec& spec) {
  return CountAttentionLayers(spec, 0, spec.num_layers());
}

// The window of the windowed layers in tokens; 0 when no layer is windowed.
int64_t SlidingWindowTokens(const ModelSpec& spec);

// Keys a query at 0-based position `position` attends to: position + 1, at most `window`
// (0: no window).
inline int64_t AttendedKeys(int64_t position, int64_t window) {
  return window > 0 && position + 1 > window ? window : position + 1;
}

// Query-key pairs of `new_tokens` queries after `context` cached tokens (causal), each query
// attending to at most `window` keys (0: all): n*c + n(n+1)/2 without a window. Exact.
double PrefillPairs(int64_t new_tokens, int64_t context, int64_t window);

// Keys a query at `position` attends to in a chunked local layer: the tokens of its own chunk
// up to itself, position mod chunk + 1.
inline int64_t ChunkedKeys(int64_t position, int64_t chunk) { return position % chunk + 1; }
// Query-key pairs of `new_tokens` queries after `context` tokens in a chunked local layer. Exact.
double ChunkedPrefillPairs(int64_t new_tokens, int64_t context, int64_t chunk);
// The chunk size of the chunked local layers; 0 when there are none.
int64_t AttentionChunkTokens(const ModelSpec& spec);

// The layers' attention kinds as multiples of the all-layer formulas (the pass accounting and
// the roofline cost model weigh each kind by them): each full layer sees every key, a windowed
// one at most its window, a chunked one its chunk, a sparse one its top-k; linear-attention
// layers see none (their state work is counted apart).
struct AttentionReach {
  double full = 0, window = 0, chunked = 0, linear = 0, layers = 1;
  int64_t window_tokens = 0, chunk_tokens = 0, topk = 0;  // topk 0: dense
  double window_share() const { return window / layers; }
  double chunk_share() const { return chunked / layers; }
};
AttentionReach ReachOf(const ModelSpec& spec);

// The layout is consistent: a pattern no longer than num_layers, a window in
// 1..2^31 where a layer is windowed, no window without a windowed layer, a finite cap >= 0.
absl::Status ValidateAttentionLayout(const ModelSpec& spec, absl::string_view where);

// "full attention", or "18 of 24 layers sliding window 128 (sinks)" for the reports and notes.
std::string DescribeAttentionLayout(const ModelSpec& spec);

}  // namespace infergrid

#endif  // INFERGRID_MODELS_ATTENTION_LAYOUT_H_
