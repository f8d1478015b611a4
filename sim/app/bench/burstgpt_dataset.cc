// vLLM's BurstGPTDataset: the GPT-4 rows with a response (the trace reader drops failures),
// sampled as pandas DataFrame.sample(n, random_state=seed) does: a RandomState permutation's
// first n rows, or n randint draws when more are asked for than there are rows. The prompt is
// synthetic token ids of the logged length; the server re-tokenizes it with its BOS.
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "sim/app/bench/bench_dataset.h"
#include "sim/app/bench/numpy_random.h"
#include "traces/trace_reader.h"

namespace infergrid::bench {

absl::StatusOr<std::vector<BenchRequest>> SampleBurstGpt(const DatasetOptions& o) {
  TraceOptions options;
  options.format = "burstgpt";
  options.model_filter = "GPT-4";
  absl::StatusOr<std::vector<Request>> read = ReadTraceRequests(o.path, options);
  if (!read.ok()) return read.status();
  std::vector<BenchRequest> rows;
  for (const Request& request : *read) {
    BenchRequest row;
    row.prompt_len = request.input_tokens;
    row.output_len = request.output_tokens;
    row.server_extra = o.tokenizer.special_tokens;
    rows.push_back(row);
  }
  if (rows.empty()) return absl::InvalidArgumentError(absl::StrCat(o.path, ": no GPT-4 row with a response"));
  const auto count = static_cast<int64_t>(rows.size());
  if (o.seed < 0 || o.seed > 0xffffffffLL)
    return absl::InvalidArgumentError("--seed must be in [0, 2^32) for burstgpt");
  LegacyRandomState random(static_cast<uint32_t>(o.seed));
  std::vector<BenchRequest> samples;
  if (o.num_prompts <= count) {
    const std::vector<int64_t> order = random.Permutation(count);
    for (int64_t i = 0; i < o.num_prompts; ++i)
      samples.push_back(rows[static_cast<size_t>(order[static_cast<size_t>(i)])]);
  } else {
    for (int64_t i = 0; i < o.num_prompts; ++i) samples.push_back(rows[static_cast<size_t>(random.RandInt(count))]);
  }
  return samples;
}

}  // namespace infergrid::bench
