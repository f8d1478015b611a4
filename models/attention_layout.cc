#include "models/attention_layout.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"

namespace infergrid {

AttentionKind LayerAttentionKind(const ModelSpec& spec, int layer) {
  const AttentionLayout& a = spec.attention();
  if (a.layer_pattern_size() == 0) return a.sliding_window() > 0 ? SLIDING_WINDOW : FULL_ATTENTION;
  return a.layer_pattern(layer % a.layer_pattern_size());
}

AttentionLayerCounts CountAttentionLayers(const ModelSpec& spec, int first, int count) {
  AttentionLayerCounts counts;
  for (int layer = first; layer < first + count; ++layer) {
    switch (LayerAttentionKind(spec, layer)) {
      case SLIDING_WINDOW: ++counts.window; break;
      case CHUNKED_LOCAL: ++counts.chunked; break;
      case LINEAR_ATTENTION: ++counts.linear; break;
      default: ++counts.full; break;
    }
  }
  return counts;
}

int64_t SlidingWindowTokens(const ModelSpec& spec) {
  return CountAttentionLayers(spec).window > 0 ? spec.attention().sliding_window() : 0;
}

double PrefillPairs(int64_t new_tokens, int64_t context, int64_t window) {
  // Query i (0-based among the new) sits at position context + i and attends to
  // min(context + i + 1, window) keys: an arithmetic run up to the window, then a flat one.
  const auto run = [](double first, double last) { return (first + last) * (last - first + 1) / 2; };
  const int64_t first_keys = context + 1, last_keys = context + new_tokens;
  if (new_tokens <= 0) return 0;
  if (window <= 0 || last_keys <= window) return run(static_cast<double>(first_keys), static_cast<double>(last_keys));
  if (first_keys >= window) return static_cast<double>(new_tokens) * static_cast<double>(window);
  return run(static_cast<double>(first_keys), static_cast<double>(window)) +
         static_cast<double>(last_keys - window) * static_cast<double>(window);
}

double ChunkedPrefillPairs(int64_t new_tokens, int64_t context, int64_t chunk) {
  // Cut the new tokens at chunk boundaries: inside a chunk the keys run up by one per query.
  double pairs = 0;
  for (int64_t p = context, end = context + new_tokens; p < end;) {
    const int64_t segment_end = std::min(end, (p / chunk + 1) * chunk);
    const double first = static_cast<double>(ChunkedKeys(p, chunk));
    const double count = static_cast<double>(segment_end - p);
    pairs += (2 * first + count - 1) * count / 2;
    p = segment_end;
  }
  return pairs;
}

int64_t AttentionChunkTokens(const ModelSpec& spec) {
  return CountAttentionLayers(spec).chunked > 0 ? spec.attention().attention_chunk_size() : 0;
}

absl::Status ValidateAttentionLayout(const ModelSpec& spec, absl::string_view where) {
  const AttentionLayout& a = spec.attention();
  const auto error = [&](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": attention.", what));
  };
  const int pattern = a.layer_pattern_size();
  if (pattern > spec.num_layers()) {
    return error(absl::StrCat("layer_pattern has ", pattern, " entries, more than the ", spec.num_layers(), " layers"));
  }
  for (int kind : a.layer_pattern()) {
    if (kind != FULL_ATTENTION && kind != SLIDING_WINDOW && kind != CHUNKED_LOCAL && kind != LINEAR_ATTENTION) {
      return error(absl::StrCat("layer_pattern holds an unknown attention kind ", kind));
    }
  }
  const AttentionLayerCounts counts = CountAttentionLayers(spec);
  if (counts.window > 0 && a.sliding_window() < 1) {
    return error("sliding_window must be positive where a layer is SLIDING_WINDOW");
  }
  if (counts.window == 0 && a.sliding_window() != 0) {
    return error("sliding_window is set but layer_pattern windows no layer");
  }
  if (counts.chunked > 0 && a.attention_chunk_size() < 1) {
    return error("attention_chunk_size must be positive where a layer is CHUNKED_LOCAL");
  }
  if (counts.chunked == 0 && a.attention_chunk_size() != 0) {
    return error("attention_chunk_size is set but layer_pattern has no CHUNKED_LOCAL layer");
  }
  const LinearAttention& linear = spec.linear_attention();
  // Bounds keep the state and parameter products of 10,000 layers far from overflow.
  if (counts.linear > 0 &&
      (linear.num_key_heads() < 1 || linear.num_value_heads() < 1 || linear.key_head_dim() < 1 ||
       linear.value_head_dim() < 1 || linear.conv_kernel() < 1 || linear.num_value_heads() > 1024 ||
       linear.key_head_dim() > 4096 || linear.value_head_dim() > 4096 || linear.conv_kernel() > 64 ||
       linear.num_key_heads() > 1024)) {
    return error(
        "LINEAR_ATTENTION layers need linear_attention's heads in 1..1024, head sizes in 1..4096 and "
        "conv_kernel in 1..64");
  }
  if (counts.attention() == 0) return error("layer_pattern leaves no attention layer");
  if (!(a.attn_logit_softcapping() >= 0) || !std::isfinite(a.attn_logit_softcapping())) {
    return error("attn_logit_softcapping must be a finite number >= 0");
  }
  return absl::OkStatus();
}

std::string DescribeAttentionLayout(const ModelSpec& spec) {
  const AttentionLayerCounts counts = CountAttentionLayers(spec);
  std::string text;
  if (counts.window > 0) {
    text = absl::StrCat(counts.window, " of ", spec.num_layers(), " layers sliding window ",
                        spec.attention().sliding_window());
  }
  if (counts.chunked > 0) {
    absl::StrAppend(&text, text.empty() ? "" : ", ", counts.chunked, " of ", spec.num_layers(),
                    " layers chunked local attention ", spec.attention().attention_chunk_size());
  }
  if (counts.linear > 0) {
    absl::StrAppend(&text, text.empty() ? "" : ", ", counts.linear, " of ", spec.num_layers(),
                    " layers linear attention (a fixed state per sequence)");
  }
  if (text.empty()) text = "full attention";
  if (spec.attention().attention_sinks()) absl::StrAppend(&text, ", sinks");
  if (spec.attention().attn_logit_softcapping() > 0) {
    absl::StrAppend(&text, ", logit soft-cap ", spec.attention().attn_logit_softcapping());
  }
  return text;
}

AttentionReach ReachOf(const ModelSpec& spec) {
  const AttentionLayerCounts counts = CountAttentionLayers(spec);
  AttentionReach r;
  r.full = counts.full;
  r.window = counts.window;
  r.chunked = counts.chunked;
  r.linear = counts.linear;
  r.layers = std::max(1, spec.num_layers());
  r.window_tokens = SlidingWindowTokens(spec);
  r.chunk_tokens = AttentionChunkTokens(spec);
  r.topk = spec.has_sparse_attention() ? spec.sparse_attention().index_topk() : 0;
  return r;
}

}  // namespace infergrid
