#include "sim/core/memory_plan/trtllm_window_pools.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "models/attention_layout.h"
#include "sim/core/personality/personality_catalog.h"

namespace infergrid::memory_plan_internal {
namespace {

std::string WindowFlag(const std::vector<int64_t>& windows) {
  return absl::StrCat("--max-attention-window=", absl::StrJoin(windows, ","));
}

// What TensorRT-LLM's list does to layer `layer` of the model, checked against what the model
// attends to there: a full or chunked layer needs every token, a windowed one its window.
absl::Status CheckLayerWindow(const MemoryPlanRequest& r, int layer, int64_t window, int64_t max_model_len) {
  const AttentionKind kind = LayerAttentionKind(r.model, layer);
  if (kind == LINEAR_ATTENTION) {
    return absl::InvalidArgumentError(absl::StrCat(WindowFlag(r.max_attention_window), ": ", r.model.name(),
                                                   " has linear-attention layers, which hold no KV cache"));
  }
  const int64_t needs = kind == SLIDING_WINDOW ? std::min(SlidingWindowTokens(r.model), max_model_len) : max_model_len;
  if (window >= needs) return absl::OkStatus();
  const char* what = kind == SLIDING_WINDOW  ? "a sliding-window layer of "
                     : kind == CHUNKED_LOCAL ? "a chunked-attention layer of "
                                             : "a full-attention layer of ";
  return absl::InvalidArgumentError(
      absl::StrCat(WindowFlag(r.max_attention_window), " gives layer ", layer, " (", what, r.model.name(), ") a ",
                   window, "-token window, below the ", needs,
                   " tokens it attends to: TensorRT-LLM would then attend only within the "
                   "window, which is another model; give it at least ",
                   needs));
}

}  // namespace

absl::StatusOr<std::vector<KvWindowPool>> PlanWindowPools(const MemoryPlanRequest& r, const EnginePersonality& p,
                                                          int64_t max_model_len, int64_t bytes_per_token_layer) {
  const std::vector<int64_t>& windows = r.max_attention_window;
  if (windows.empty()) return std::vector<KvWindowPool>{};
  const std::string flag = WindowFlag(windows);
  if (p.max_attention_window_source().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": TensorRT-LLM's kv_cache_config.max_attention_window; --engine=", PersonalityName(p),
                     " has no such setting"));
  }
  if (static_cast<int>(windows.size()) > r.model.num_layers()) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " lists ", windows.size(), " windows for ", r.model.name(),
                                                   "'s ", r.model.num_layers(), " layers"));
  }
  for (int64_t window : windows) {
    if (window < 1 || window > max_model_len) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": every window must be in 1..max_model_len (",
                                                     max_model_len,
                                                     "); give max_model_len for layers that keep every token"));
    }
  }
  if (r.pipeline_parallel > 1) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " with --pipeline-parallel-size=", r.pipeline_parallel,
                                                   ": window pools across pipeline stages are not modelled"));
  }
  std::map<int64_t, int, std::greater<>> layers_of;  // window -> layers, largest first
  for (int layer = 0; layer < r.model.num_layers(); ++layer) {
    const int64_t window = windows[static_cast<size_t>(layer) % windows.size()];
    if (absl::Status s = CheckLayerWindow(r, layer, window, max_model_len); !s.ok()) return s;
    ++layers_of[window];
  }
  if (layers_of.size() == 1 && layers_of.begin()->first == max_model_len) return std::vector<KvWindowPool>{};
  if (layers_of.begin()->first < max_model_len) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": every layer of ", r.model.name(), " windowed below max_model_len (", max_model_len,
                     "), one cyclic pool, is not modelled; give max_model_len to the layers that keep every token"));
  }
  if (static_cast<int>(layers_of.size()) > kMaxKvWindowPools) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " makes ", layers_of.size(), " pools; at most ",
                                                   kMaxKvWindowPools, " distinct windows are modelled"));
  }
  if (r.num_gpu_blocks_override > 0) {
    return absl::InvalidArgumentError(absl::StrCat(flag,
                                                   " with a block-count override (max_tokens): how the engine "
                                                   "caps several pools is not modelled"));
  }
  std::vector<KvWindowPool> pools;
  for (const auto& [window, layers] : layers_of) {
    KvWindowPool pool;
    pool.window_tokens = window;
    pool.layers = layers;
    pool.bytes_per_token = bytes_per_token_layer * layers;
    pools.push_back(pool);
  }
  return pools;
}

void SizeWindowPools(double kv_cache_bytes, int block_size, std::vector<KvWindowPool>* pools) {
  double bytes = 0, contributions = 0;
  for (const KvWindowPool& pool : *pools) bytes += static_cast<double>(pool.bytes_per_token);
  for (const KvWindowPool& pool : *pools) {
    contributions +=
        static_cast<double>(pool.bytes_per_token) / bytes * static_cast<double>(pool.window_tokens) * pool.layers;
  }
  for (KvWindowPool& pool : *pools) {
    pool.share = static_cast<double>(pool.bytes_per_token) / bytes * static_cast<double>(pool.window_tokens) *
                 pool.layers / contributions;
    const double tokens = std::max(0.0, kv_cache_bytes) * pool.share / static_cast<double>(pool.bytes_per_token);
    pool.num_blocks = static_cast<int64_t>(std::floor(tokens / block_size));
  }
}

std::string DescribeWindowPools(const std::vector<KvWindowPool>& pools) {
  std::vector<std::string> parts;
  for (const KvWindowPool& pool : pools) {
    parts.push_back(absl::StrCat(pool.layers, " layers x ", pool.window_tokens, "-token window (share ",
                                 absl::SixDigits(pool.share), ", ", pool.num_blocks, " blocks)"));
  }
  return absl::StrCat(pools.size(), " pools: ", absl::StrJoin(parts, ", "));
}

}  // namespace infergrid::memory_plan_internal
