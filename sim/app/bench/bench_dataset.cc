#include "sim/app/bench/bench_dataset.h"

#include "sim/app/bench/sglang_serving.h"

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "sim/app/bench/python_random.h"

namespace infergrid::bench {

const std::vector<std::string>& DatasetNames() {
  static const auto* names = new std::vector<std::string>{
      "random", "sharegpt", "sonnet", "burstgpt", "custom", "trace", "generated-shared-prefix"};
  return *names;
}

absl::StatusOr<std::vector<BenchRequest>> SampleDataset(const DatasetOptions& options) {
  if (options.num_prompts < 1) return absl::InvalidArgumentError("--num-prompts must be at least 1");
  absl::StatusOr<std::vector<BenchRequest>> requests;
  if (options.name == "random") {
    requests = options.sglang_client ? SampleSglangRandom(options) : SampleRandom(options);
  } else if (options.name == "sharegpt") {
    requests = SampleShareGpt(options);
  } else if (options.name == "sonnet") {
    requests = SampleSonnet(options);
  } else if (options.name == "burstgpt") {
    requests = SampleBurstGpt(options);
  } else if (options.name == "custom") {
    requests = SampleCustom(options);
  } else if (options.name == "trace") {
    requests = SampleTrace(options);
  } else if (options.name == "generated-shared-prefix") {
    requests = SampleGeneratedSharedPrefix(options);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown dataset '", options.name, "'"));
  }
  if (requests.ok() && requests->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(options.path, ": no request of the ", options.name, " dataset passes vLLM's length filters"));
  }
  return requests;
}

absl::StatusOr<std::vector<Request>> ReadTraceRequests(const std::string& path, const TraceOptions& options,
                                                       int64_t limit) {
  absl::StatusOr<std::unique_ptr<RequestSource>> source = OpenTrace(path, options);
  if (!source.ok()) return source.status();
  std::vector<Request> requests;
  Request request;
  while (limit < 0 || static_cast<int64_t>(requests.size()) < limit) {
    absl::StatusOr<bool> more = (*source)->Next(&request);
    if (!more.ok()) return more.status();
    if (!*more) break;
    requests.push_back(request);
  }
  return requests;
}

bool IsValidSequence(int64_t prompt_len, int64_t output_len, bool skip_min_output_len_check) {
  constexpr int64_t kMinLen = 4;
  constexpr int64_t kMaxPromptLen = 1024;
  constexpr int64_t kMaxTotalLen = 2048;
  const bool prompt_too_short = prompt_len < kMinLen;
  const bool output_too_short = !skip_min_output_len_check && output_len < kMinLen;
  const bool prompt_too_long = prompt_len > kMaxPromptLen;
  const bool combined_too_long = prompt_len + output_len > kMaxTotalLen;
  return !(prompt_too_short || output_too_short || prompt_too_long || combined_too_long);
}

void MaybeOversample(std::vector<BenchRequest>& requests, int64_t num_requests, int64_t seed, bool no_oversample) {
  if (no_oversample || requests.empty()) return;
  const auto have = static_cast<int64_t>(requests.size());
  if (have >= num_requests) return;
  PythonRandom random(seed);
  for (int64_t i = 0; i < num_requests - have; ++i) {
    requests.push_back(requests[random.ChoiceIndex(static_cast<size_t>(have))]);
  }
}

}  // namespace infergrid::bench
