#include "sim/app/bench/token_estimate.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace infergrid::bench {
namespace {

// Characters per token of English chat text and of the sonnets, measured with the families'
// tokenizers (scripts/tokenizer/measure.mjs; docs/bench.md "Token counts"); chat-template
// tokens with both BOS tokens vLLM counts (the template's and the tokenizer's).
constexpr TokenizerFamily kLlama3{"llama3", 4.82, 4.08, 1, 11};
constexpr TokenizerFamily kLlama31{"llama3.1", 4.82, 4.08, 1, 36};
constexpr TokenizerFamily kLlama2{"llama2", 4.06, 3.42, 1, 9};
constexpr TokenizerFamily kMistral{"mistral", 4.21, 3.48, 1, 9};
constexpr TokenizerFamily kQwen2{"qwen2", 4.75, 4.08, 0, 29};
constexpr TokenizerFamily kGeneric{"generic", 4.5, 3.8, 1, 11};

}  // namespace

const TokenizerFamily& TokenizerFamilyFor(absl::string_view model_name, int64_t vocab_size) {
  if (absl::StrContains(absl::AsciiStrToLower(std::string(model_name)), "mistral") ||
      absl::StrContains(absl::AsciiStrToLower(std::string(model_name)), "mixtral")) {
    return kMistral;
  }
  const std::string name = absl::AsciiStrToLower(std::string(model_name));
  switch (vocab_size) {
    case 128256:
      return absl::StrContains(name, "3.1") || absl::StrContains(name, "3.2") || absl::StrContains(name, "3.3")
                 ? kLlama31
                 : kLlama3;
    case 32000: return kLlama2;
    case 151936:
    case 152064: return kQwen2;
    default: return kGeneric;
  }
}

int64_t CodePoints(absl::string_view utf8) {
  int64_t count = 0;
  for (const char c : utf8) {
    // Count every byte that does not continue a multi-byte sequence.
    if ((static_cast<unsigned char>(c) & 0xc0U) != 0x80U) ++count;
  }
  return count;
}

int64_t EstimateTokensAtRatio(int64_t chars, double chars_per_token, int special_tokens) {
  if (chars <= 0) return special_tokens;
  const auto content = static_cast<int64_t>(std::llround(static_cast<double>(chars) / chars_per_token));
  return special_tokens + (content < 1 ? 1 : content);
}

int64_t EstimateTokensFromChars(int64_t chars, const TokenizerFamily& family) {
  return EstimateTokensAtRatio(chars, family.chars_per_token, family.special_tokens);
}

int64_t EstimateTokens(absl::string_view text, const TokenizerFamily& family) {
  return EstimateTokensFromChars(CodePoints(text), family);
}

}  // namespace infergrid::bench
