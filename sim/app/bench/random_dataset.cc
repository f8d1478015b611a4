// vLLM's RandomDataset.get_sampling_params: input lengths, then output lengths, each drawn for
// every request with default_rng(seed).integers over [floor(L(1-r)), ceil(L(1+r))]; the
// input length excludes the tokenizer's special tokens, which the server adds back.
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "sim/app/bench/bench_dataset.h"
#include "sim/app/bench/numpy_random.h"

namespace infergrid::bench {

absl::StatusOr<std::vector<BenchRequest>> SampleRandom(const DatasetOptions& o) {
  const double r = o.random_range_ratio;
  if (!(r >= 0.0 && r < 1.0)) return absl::InvalidArgumentError("--random-range-ratio must be in [0, 1)");
  if (o.random_output_len < 1) return absl::InvalidArgumentError("--random-output-len must be at least 1");
  const int64_t special = o.tokenizer.special_tokens;
  const int64_t real_input_len = std::max<int64_t>(0, o.random_input_len - special);
  const auto input_low = static_cast<int64_t>(std::floor(static_cast<double>(real_input_len) * (1 - r)));
  const auto input_high = static_cast<int64_t>(std::ceil(static_cast<double>(real_input_len) * (1 + r)));
  const int64_t output_low =
      std::max<int64_t>(1, static_cast<int64_t>(std::floor(static_cast<double>(o.random_output_len) * (1 - r))));
  const int64_t output_high =
      std::max<int64_t>(1, static_cast<int64_t>(std::ceil(static_cast<double>(o.random_output_len) * (1 + r))));
  if (o.random_prefix_len + input_low < 1) {
    return absl::InvalidArgumentError(absl::StrCat("--random-input-len is too small: with ", special,
                                                   " special tokens and --random-range-ratio ", r,
                                                   " the shortest prompt has no tokens"));
  }
  Pcg64Generator rng(static_cast<uint64_t>(o.seed));
  const auto n = static_cast<size_t>(o.num_prompts);
  std::vector<BenchRequest> requests(n);
  for (BenchRequest& request : requests) {
    request.prompt_len = static_cast<int32_t>(o.random_prefix_len + rng.IntegersInclusive(input_low, input_high));
    request.server_extra = static_cast<int32_t>(special);
    request.shared_prefix_len = static_cast<int32_t>(o.random_prefix_len);  // the same tokens for every prompt
  }
  for (BenchRequest& request : requests) {
    request.output_len = static_cast<int32_t>(rng.IntegersInclusive(output_low, output_high));
  }
  return requests;
}

}  // namespace infergrid::bench
