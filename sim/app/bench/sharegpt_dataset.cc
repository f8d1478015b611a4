// vLLM's ShareGPTDataset: entries with at least two turns, shuffled with random.seed(seed);
// each gives (first turn, second turn) as (prompt, reply); prompt_len counts the prompt with
// the tokenizer's BOS, the output is the reply's length (or --sharegpt-output-len) and
// is_valid_sequence filters; too few are oversampled. The file (ShareGPT_V3 is 670 MB) is
// read with a SAX parser keeping only the first two turns' lengths of each conversation. A
// turn may carry "num_tokens" (scripts/tokenizer/pretokenize.mjs): used instead of the
// estimate. A .csv path is a length table (Sarathi-Serve / Vidur's ShareGPT statistics): one
// conversation per row, its prefill and decode tokens as the two turns.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/json_text.h"
#include "base/textproto.h"
#include "nlohmann/json.hpp"
#include "sim/app/bench/bench_dataset.h"
#include "sim/app/bench/python_random.h"
#include "traces/trace_reader.h"

namespace infergrid::bench {
namespace {

struct Turn {
  int64_t chars = 0;
  int64_t tokens = -1;  // pre-tokenized count, with special tokens; -1: none
  bool has_value = false;
};

struct Conversation {
  int64_t turns = 0;
  Turn first[2];
  bool has_conversations = false;
};

// Depth 0: the list; 1: an entry; 2: its "conversations" list; 3: a turn.
class ShareGptReader final : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::vector<Conversation> conversations;
  std::string error;

  bool null() override { return Scalar(nullptr); }
  bool boolean(bool) override { return Scalar(nullptr); }
  bool number_integer(number_integer_t v) override { return Number(static_cast<int64_t>(v)); }
  bool number_unsigned(number_unsigned_t v) override {
    return Number(static_cast<int64_t>(std::min<number_unsigned_t>(v, kMaxDatasetTokens + 1)));
  }
  bool number_float(number_float_t, const string_t&) override { return Scalar(nullptr); }
  bool string(string_t& v) override { return Scalar(&v); }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    if (stack_.empty()) return Fail("the file is not a JSON list of conversations");
    if (Depth() == 0) conversations.emplace_back();
    if (Depth() == 2 && InConversations()) ++conversations.back().turns;
    stack_.push_back({true, key_});
    key_.clear();
    return true;
  }
  bool end_object() override {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    if (Depth() == 1 && key_ == "conversations") conversations.back().has_conversations = true;
    stack_.push_back({false, key_});
    key_.clear();
    return true;
  }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;  // SaxParseJson's guard reports it
  }

 private:
  struct Frame {
    bool object;
    std::string key;  // the key this container sits under in its parent
  };
  int Depth() const { return static_cast<int>(stack_.size()) - 1; }
  bool InConversations() const { return stack_.size() == 3 && stack_[2].key == "conversations"; }
  Turn* CurrentTurn() {
    if (stack_.size() != 4 || !stack_[3].object || stack_[2].key != "conversations") return nullptr;
    Conversation& c = conversations.back();
    return c.turns <= 2 ? &c.first[c.turns - 1] : nullptr;
  }
  bool Scalar(const std::string* text) {
    if (stack_.empty()) return Fail("the file is not a JSON list of conversations");
    if (Turn* turn = CurrentTurn(); turn != nullptr && key_ == "value") {
      if (text == nullptr)
        return Fail(absl::StrCat("conversation ", conversations.size(), ": a turn's \"value\" is not a string"));
      turn->chars = CodePoints(*text);
      turn->has_value = true;
    }
    return true;
  }
  bool Number(int64_t v) {
    if (stack_.empty()) return Fail("the file is not a JSON list of conversations");
    if (Turn* turn = CurrentTurn(); turn != nullptr) {
      if (key_ == "num_tokens") {
        if (v < 0 || v > kMaxDatasetTokens) {
          return Fail(absl::StrCat("conversation ", conversations.size(), ": \"num_tokens\" is ", v, "; expected 0..",
                                   kMaxDatasetTokens));
        }
        turn->tokens = v;
      } else if (key_ == "value") {
        return Fail(absl::StrCat("conversation ", conversations.size(), ": a turn's \"value\" is not a string"));
      }
    }
    return true;
  }
  bool Fail(std::string message) {
    error = std::move(message);
    semantic_error = true;
    return false;
  }

 public:
  bool semantic_error = false;

 private:
  std::vector<Frame> stack_;
  std::string key_;
};

// A ShareGPT length table (CSV: prefill and decode tokens per conversation, as Sarathi-Serve and
// Vidur ship them) instead of the JSON: each row is a conversation whose turns are already
// counted, in the table's tokenizer.
absl::StatusOr<std::vector<Conversation>> ReadLengthTable(const std::string& path) {
  TraceOptions options;
  options.format = "lengths";
  absl::StatusOr<std::vector<Request>> read = ReadTraceRequests(path, options);
  if (!read.ok()) return read.status();
  std::vector<Conversation> rows;
  for (const Request& request : *read) {
    Conversation c;
    c.has_conversations = true;
    c.turns = 2;
    // The counts include no special tokens: BOS is added where vLLM's count of a turn has it.
    c.first[0].tokens = request.input_tokens;
    c.first[1].tokens = request.output_tokens;
    rows.push_back(c);
  }
  return rows;
}

absl::StatusOr<std::vector<Conversation>> ReadConversations(const std::string& path) {
  std::string text;
  if (absl::Status s = ReadFileToString(path, &text, size_t{4} << 30); !s.ok()) return s;
  ShareGptReader reader;
  const absl::Status parsed = SaxParseJson(text, JsonSource{path}, &reader);
  if (reader.semantic_error) return absl::InvalidArgumentError(absl::StrCat(path, ": ", reader.error));
  if (!parsed.ok()) return parsed;
  return std::move(reader.conversations);
}

}  // namespace

absl::StatusOr<std::vector<BenchRequest>> SampleShareGpt(const DatasetOptions& o) {
  const bool table = absl::EndsWith(o.path, ".csv");
  absl::StatusOr<std::vector<Conversation>> conversations = table ? ReadLengthTable(o.path) : ReadConversations(o.path);
  if (!conversations.ok()) return conversations.status();
  if (table) {
    for (Conversation& c : *conversations) {
      for (Turn& turn : c.first) turn.tokens += o.tokenizer.special_tokens;
    }
  }
  std::vector<Conversation> data;
  for (const Conversation& c : *conversations) {
    if (c.has_conversations && c.turns >= 2) data.push_back(c);
  }
  PythonRandom random(o.seed);
  random.Shuffle(data);

  std::vector<BenchRequest> samples;
  for (const Conversation& c : data) {
    if (static_cast<int64_t>(samples.size()) >= o.num_prompts) break;
    for (const Turn& turn : c.first) {
      if (!turn.has_value && turn.tokens < 0) {
        return absl::InvalidArgumentError(absl::StrCat(o.path, ": a conversation's turn has no \"value\""));
      }
    }
    const auto count = [&](const Turn& turn) {
      return turn.tokens >= 0 ? turn.tokens : EstimateTokensFromChars(turn.chars, o.tokenizer);
    };
    const int64_t prompt_len = count(c.first[0]);
    const int64_t output_len = o.sharegpt_output_len.has_value() ? *o.sharegpt_output_len : count(c.first[1]);
    if (!IsValidSequence(prompt_len, output_len, o.sharegpt_output_len.has_value())) continue;
    BenchRequest request;
    request.prompt_len = static_cast<int32_t>(prompt_len);
    request.output_len = static_cast<int32_t>(output_len);
    samples.push_back(request);
  }
  MaybeOversample(samples, o.num_prompts, o.seed, o.no_oversample);
  return samples;
}

}  // namespace infergrid::bench
