// vLLM's SonnetDataset: every prompt is the base prompt, the first lines of the poem as a
// shared prefix, and lines drawn with random.choices (the global random, seeded with --seed),
// in the model's chat template; a draw longer than --sonnet-input-len is redrawn. Line and
// prompt lengths are estimated the way vLLM measures them (tokenizer(line) with its BOS).
#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/textproto.h"
#include "sim/app/bench/bench_dataset.h"
#include "sim/app/bench/python_random.h"

namespace infergrid::bench {
namespace {

constexpr const char* kBasePrompt = "Pick as many lines as you can from these poem lines:\n";

// Python's round(): halves to even.
int64_t PythonRound(double x) { return static_cast<int64_t>(std::nearbyint(x)); }

}  // namespace

absl::StatusOr<std::vector<BenchRequest>> SampleSonnet(const DatasetOptions& o) {
  std::string text;
  if (absl::Status s = ReadFileToString(o.path, &text); !s.ok()) return s;
  // f.readlines(): every line keeps its newline.
  std::vector<int64_t> line_chars;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    end = end == std::string::npos ? text.size() : end + 1;
    line_chars.push_back(CodePoints(absl::string_view(text).substr(begin, end - begin)));
    begin = end;
  }
  if (line_chars.empty()) return absl::InvalidArgumentError(absl::StrCat(o.path, ": no lines"));
  const TokenizerFamily& family = o.tokenizer;
  double total = 0;
  // Verse tokenizes denser than chat: its own ratio.
  const auto tokens = [&](int64_t chars) {
    return EstimateTokensAtRatio(chars, family.verse_chars_per_token, family.special_tokens);
  };
  for (const int64_t chars : line_chars) total += static_cast<double>(tokens(chars));
  const double avg_len = total / static_cast<double>(line_chars.size());
  const int64_t base_chars = CodePoints(kBasePrompt);
  // The templated prompt: the template's tokens (with BOS) and the content's.
  const auto prompt_tokens = [&](int64_t content_chars) {
    return family.chat_template_tokens + tokens(content_chars) - family.special_tokens;
  };
  const int64_t base_offset = prompt_tokens(base_chars);
  if (o.sonnet_input_len <= base_offset) {
    return absl::InvalidArgumentError(
        absl::StrCat("--sonnet-input-len must be higher than the base prompt length (", base_offset, ")"));
  }
  const int64_t num_input_lines = PythonRound(static_cast<double>(o.sonnet_input_len - base_offset) / avg_len);
  const int64_t num_prefix_lines =
      std::max<int64_t>(PythonRound(static_cast<double>(o.sonnet_prefix_len - base_offset) / avg_len), 0);
  int64_t prefix_chars = 0;
  for (int64_t i = 0; i < num_prefix_lines && i < static_cast<int64_t>(line_chars.size()); ++i) {
    prefix_chars += line_chars[static_cast<size_t>(i)];
  }
  PythonRandom random(o.seed);
  std::vector<BenchRequest> samples;
  // vLLM redraws forever; a bound keeps an impossible length from hanging.
  const int64_t max_draws = 1000 * o.num_prompts;
  for (int64_t draws = 0; static_cast<int64_t>(samples.size()) < o.num_prompts; ++draws) {
    if (draws >= max_draws) {
      return absl::InvalidArgumentError(absl::StrCat(o.path, ": no draw of ", num_input_lines,
                                                     " lines fits --sonnet-input-len=", o.sonnet_input_len));
    }
    int64_t chars = base_chars + prefix_chars;
    for (int64_t k = 0; k < num_input_lines - num_prefix_lines; ++k) {
      chars += line_chars[random.ChoicesIndex(line_chars.size())];
    }
    const int64_t prompt_len = prompt_tokens(chars);
    if (prompt_len <= o.sonnet_input_len) {
      BenchRequest request;
      request.prompt_len = static_cast<int32_t>(prompt_len);
      request.output_len = static_cast<int32_t>(o.sonnet_output_len);
      // The base prompt and the prefix lines, the same text in every prompt (the template's
      // leading tokens, shared too, are left out: a lower bound).
      request.shared_prefix_len = static_cast<int32_t>(tokens(base_chars + prefix_chars) - family.special_tokens);
      samples.push_back(request);
    }
  }
  return samples;
}

}  // namespace infergrid::bench
