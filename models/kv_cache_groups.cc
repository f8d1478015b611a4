#include "models/kv_cache_groups.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "models/attention_layout.h"

namespace infergrid {

std::string KvCacheGroups::Describe() const {
  std::string text = absl::StrCat(full_groups, " full");
  if (window_groups > 0) absl::StrAppend(&text, " + ", window_groups, " sliding-window (", window_tokens, " tokens)");
  if (state_groups > 0) absl::StrAppend(&text, " + ", state_groups, " linear-attention state");
  absl::StrAppend(&text, groups() == 1 ? " group of " : " groups of ", layers_per_group,
                  layers_per_group == 1 ? " layer" : " layers");
  if (padded_slots > 0) absl::StrAppend(&text, ", ", padded_slots, " slots padded");
  return text;
}

KvCacheGroups OneGroup(int layers) {
  KvCacheGroups groups;
  groups.layers_per_group = std::max(1, layers);
  return groups;
}

KvCacheGroups VllmHybridGroups(const ModelSpec& spec, int first, int count) {
  AttentionLayerCounts counts = CountAttentionLayers(spec, first, count);
  // Chunked local layers keep every token: vLLM turns the hybrid manager off for them unless
  // VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 (config/vllm.py).
  counts.full += counts.chunked;
  if (counts.window == 0 && counts.linear == 0) return OneGroup(count);
  int fewest = count, most = 0;
  for (int layers : {counts.full, counts.window, counts.linear}) {
    if (layers == 0) continue;
    fewest = std::min(fewest, layers);
    most = std::max(most, layers);
  }
  // Close counts share one group size without padding most slots (vLLM: the larger count when
  // it is below 1.5x the smaller, 1.25x before 2026); otherwise the smaller count fixes it.
  const int size = 2 * most < 3 * fewest ? most : fewest;
  const auto groups_of = [size](int layers) { return (layers + size - 1) / size; };
  KvCacheGroups groups;
  groups.layers_per_group = size;
  groups.full_groups = groups_of(counts.full);
  groups.window_groups = groups_of(counts.window);
  groups.window_tokens = counts.window > 0 ? spec.attention().sliding_window() : 0;
  groups.state_groups = groups_of(counts.linear);
  groups.padded_slots = groups.groups() * size - count;
  return groups;
}

}  // namespace infergrid
