// Token counts for text datasets without a tokenizer: InferGrid carries no tokenizer, so a
// text's tokens are estimated from its length in characters (Unicode code points) with a
// measured characters-per-token ratio for the model's tokenizer family, plus the special
// tokens the tokenizer adds (BOS) and the chat template's own tokens where vLLM applies one.
// The family follows from the vocabulary size. How far the estimate can be from the real
// tokenizer, and how the ratios were measured: docs/bench.md "Token counts". Datasets that carry
// pre-tokenized lengths (scripts/tokenizer/pretokenize.mjs) are used as given instead.
#ifndef INFERGRID_SIM_APP_BENCH_TOKEN_ESTIMATE_H_
#define INFERGRID_SIM_APP_BENCH_TOKEN_ESTIMATE_H_

#include <cstdint>
#include "absl/strings/string_view.h"

namespace infergrid::bench {

struct TokenizerFamily {
  absl::string_view name;  // "llama3", "llama2", "mistral", "qwen2", "generic"
  double chars_per_token = 4;  // English chat text
  double verse_chars_per_token = 4;  // vLLM's sonnet.txt (verse tokenizes denser)
  int special_tokens = 1;  // added by tokenizer(text): BOS
  // Tokens a single-turn user message adds through the family's chat template, beyond its
  // content (role headers, turn markers, a default system prompt), with the tokenizer's BOS.
  int chat_template_tokens = 0;
};

// The family of a model: Mistral and Mixtral by name (their 32,000-token vocabulary is not
// Llama 2's), otherwise by vocabulary size (128256: Llama 3, whose 3.1-3.3 chat template adds a
// default system header; 32000: Llama 2; 151936 and 152064: Qwen2; anything else: a generic
// English ratio).
const TokenizerFamily& TokenizerFamilyFor(absl::string_view model_name, int64_t vocab_size);

// Unicode code points in UTF-8 text (malformed bytes count one each).
int64_t CodePoints(absl::string_view utf8);

// tokenizer(text).input_ids length, estimated: special tokens + max(1, round(chars / ratio));
// the special tokens alone for empty text.
int64_t EstimateTokens(absl::string_view text, const TokenizerFamily& family);
int64_t EstimateTokensFromChars(int64_t chars, const TokenizerFamily& family);
// The same at another characters-per-token ratio.
int64_t EstimateTokensAtRatio(int64_t chars, double chars_per_token, int special_tokens);

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_TOKEN_ESTIMATE_H_
