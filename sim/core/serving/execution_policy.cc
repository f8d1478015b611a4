#include "sim/core/serving/execution_policy.h"

#include <algorithm>

namespace infergrid {

void ExecutionPolicy::ApplyGraphs(BatchShape& shape) const {
  shape.padding_rows = 0;
  shape.launch = LaunchMode::kEager;
  const std::vector<int64_t>& sizes = graphs.sizes;
  if (sizes.empty()) return;
  const bool decode = shape.prefill.empty();
  LaunchMode mode = LaunchMode::kGraph;
  if (!decode && graphs.decode_only) {
    if (!graphs.piecewise_mixed) return;
    mode = LaunchMode::kPiecewise;
  }
  if (decode && graphs.max_decode_context > 0) {
    for (int64_t context : shape.decode_context_tokens) {
      if (context + 1 > graphs.max_decode_context) return;
    }
  }
  const int64_t verified = shape.speculative_tokens * static_cast<int64_t>(shape.decode_context_tokens.size());
  const int64_t key = graphs.keyed_on_tokens ? shape.TotalNewTokens() + verified : shape.sequences();
  const auto size = std::lower_bound(sizes.begin(), sizes.end(), key);
  if (size == sizes.end() || (!graphs.pad && *size != key)) return;
  shape.padding_rows = *size - key;
  shape.launch = mode;
}

std::vector<int64_t> CaptureSizes(const std::vector<SizeRangeSpec>& ranges, int64_t max_size) {
  std::vector<int64_t> sizes;
  for (const SizeRangeSpec& r : ranges) {
    for (int64_t s = r.start; s <= r.end && s <= max_size; s += std::max<int64_t>(1, r.step)) sizes.push_back(s);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

}  // namespace infergrid
