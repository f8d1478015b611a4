// vLLM's CustomDataset: a JSONL file of {"prompt": "..."} lines, shuffled with
// random.seed(seed), the first --num-prompts (oversampled when short), each in the model's
// chat template unless --skip-chat-template, with --custom-output-len tokens out. A line may
// carry "prompt_len" (tokenizer(prompt) with BOS, scripts/tokenizer/pretokenize.mjs) instead of
// the estimate.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/json_text.h"
#include "base/textproto.h"
#include "sim/app/bench/bench_dataset.h"
#include "sim/app/bench/python_random.h"

namespace infergrid::bench {

absl::StatusOr<std::vector<BenchRequest>> SampleCustom(const DatasetOptions& o) {
  if (!absl::EndsWith(o.path, ".jsonl")) {
    return absl::InvalidArgumentError(absl::StrCat(o.path, ": the custom dataset reads JSONL files (*.jsonl) only"));
  }
  std::string text;
  if (absl::Status s = ReadFileToString(o.path, &text); !s.ok()) return s;
  const TokenizerFamily& family = o.tokenizer;
  std::vector<BenchRequest> data;
  int64_t line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    const std::string where = absl::StrCat(o.path, ":", line_number);
    absl::StatusOr<nlohmann::json> row = ParseJson(line, JsonSource{o.path, line_number, true});
    if (!row.ok()) return row.status();
    if (!row->is_object() || !row->contains("prompt")) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": a line must be an object with a \"prompt\""));
    }
    const nlohmann::json& prompt = (*row)["prompt"];
    if (!prompt.is_string()) return absl::InvalidArgumentError(absl::StrCat(where, ": \"prompt\" is not a string"));
    int64_t content_tokens = 0;  // without special tokens
    if (row->contains("prompt_len")) {
      const nlohmann::json& given = (*row)["prompt_len"];
      if (!given.is_number_integer() || given.get<int64_t>() < 0 || given.get<int64_t>() > kMaxDatasetTokens) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": \"prompt_len\" is ", given.dump(),
                                                       "; expected an integer in 0..", kMaxDatasetTokens));
      }
      content_tokens = std::max<int64_t>(0, given.get<int64_t>() - family.special_tokens);
    } else {
      content_tokens = EstimateTokens(prompt.get_ref<const std::string&>(), family) - family.special_tokens;
    }
    BenchRequest request;
    request.prompt_len = static_cast<int32_t>(
        content_tokens + (o.skip_chat_template ? family.special_tokens : family.chat_template_tokens));
    request.output_len = static_cast<int32_t>(o.custom_output_len);
    data.push_back(request);
  }
  if (data.empty()) return absl::InvalidArgumentError(absl::StrCat(o.path, ": no prompts"));
  PythonRandom random(o.seed);
  random.Shuffle(data);
  if (static_cast<int64_t>(data.size()) > o.num_prompts) data.resize(static_cast<size_t>(o.num_prompts));
  MaybeOversample(data, o.num_prompts, o.seed, o.no_oversample);
  return data;
}

}  // namespace infergrid::bench
