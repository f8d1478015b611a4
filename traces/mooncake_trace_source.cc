#include "traces/mooncake_trace_source.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace infergrid {
namespace {

constexpr size_t kMaxUnknownKeysListed = 8;

// A cursor over one line with JSON lexing helpers. Every failure fills `problem` with the
// 1-based column of the offending character.
class JsonCursor {
 public:
  JsonCursor(absl::string_view line, RowProblem* problem) : s_(line), problem_(problem) {}

  void SkipSpace() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t' || s_[at_] == '\r' || s_[at_] == '\n')) ++at_;
  }
  bool AtEnd() const { return at_ >= s_.size(); }
  char Peek() const { return AtEnd() ? '\0' : s_[at_]; }
  size_t offset() const { return at_; }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++at_;
    return true;
  }

  bool Fail(absl::string_view why, std::string message, size_t at) {
    problem_->reason = std::string(why);
    problem_->column = static_cast<int>(at) + 1;
    problem_->message = std::move(message);
    return false;
  }
  bool Fail(absl::string_view why, std::string message) { return Fail(why, std::move(message), at_); }
  bool Expected(absl::string_view what) {
    return Fail(reason::kJsonSyntax,
                absl::StrCat("expected ", what, ", got ",
                             AtEnd() ? std::string("end of line") : ShowField(s_.substr(at_, 12))));
  }

  // A string at the cursor (opening quote included); decoded into *out.
  bool String(std::string* out) {
    const size_t start = at_;
    if (!Consume('"')) return Expected("'\"'");
    out->clear();
    while (true) {
      if (AtEnd()) return Fail(reason::kJsonSyntax, "unterminated string", start);
      const char c = s_[at_];
      if (c == '"') {
        ++at_;
        break;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        return Fail(reason::kJsonSyntax, "control character inside a string");
      }
      if (c != '\\') {
        out->push_back(c);
        ++at_;
        continue;
      }
      ++at_;
      const char e = Peek();
      ++at_;
      switch (e) {
        case '"': out->push_back('"'); break;
        case '\\': out->push_back('\\'); break;
        case '/': out->push_back('/'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(&cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low = 0;
            if (!Consume('\\') || !Consume('u') || !Hex4(&low) || low < 0xDC00 || low > 0xDFFF) {
              return Fail(reason::kInvalidUtf8, "unpaired UTF-16 surrogate in \\u escape");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return Fail(reason::kInvalidUtf8, "unpaired UTF-16 surrogate in \\u escape");
          }
          AppendUtf8(cp, out);
          break;
        }
        default: return Fail(reason::kJsonSyntax, "bad escape in a string", at_ - 2);
      }
    }
    size_t bad = 0;
    if (!IsValidUtf8(*out, &bad)) {
      return Fail(reason::kInvalidUtf8, absl::StrCat("invalid UTF-8 in a string: ", ShowField(*out)), start);
    }
    return true;
  }

  // The text of a number token at the cursor (JSON grammar checked), or of NaN/Infinity.
  bool NumberToken(absl::string_view what, absl::string_view* token) {
    const size_t start = at_;
    if (Peek() == '-') ++at_;
    if (s_.substr(at_, 3) == "NaN" || s_.substr(at_, 8) == "Infinity") {
      return Fail(reason::kNotFinite,
                  absl::StrCat(what, ": expected a finite number, got ",
                               ShowField(s_.substr(start, at_ - start + (Peek() == 'N' ? 3 : 8)))),
                  start);
    }
    const size_t int_start = at_;
    while (!AtEnd() && Peek() >= '0' && Peek() <= '9') ++at_;
    if (at_ == int_start) {
      at_ = start;
      return ValueTypeError(what, "a number");
    }
    if (s_[int_start] == '0' && at_ - int_start > 1) {
      return Fail(reason::kJsonSyntax, "a number with a leading zero", int_start);
    }
    if (Consume('.')) {
      const size_t f = at_;
      while (!AtEnd() && Peek() >= '0' && Peek() <= '9') ++at_;
      if (at_ == f) return Expected("a digit after '.'");
    }
    if (Peek() == 'e' || Peek() == 'E') {
      ++at_;
      if (Peek() == '+' || Peek() == '-') ++at_;
      const size_t e = at_;
      while (!AtEnd() && Peek() >= '0' && Peek() <= '9') ++at_;
      if (at_ == e) return Expected("a digit in the exponent");
    }
    *token = s_.substr(start, at_ - start);
    return true;
  }

  // Names what the value at the cursor is when it is not the type `what` needs.
  bool ValueTypeError(absl::string_view field, absl::string_view expected) {
    absl::string_view got = "something else";
    switch (Peek()) {
      case '{': got = "an object"; break;
      case '[': got = "an array"; break;
      case '"': got = "a string"; break;
      case 't':
      case 'f': got = "a boolean"; break;
      case 'n': got = "null"; break;
      default:
        if (Peek() == '-' || (Peek() >= '0' && Peek() <= '9')) got = "a number";
    }
    if (got == "something else") return Expected(absl::StrCat("a value for ", field));
    return Fail(reason::kWrongType, absl::StrCat(field, ": expected ", expected, ", got ", got));
  }

  // Skips any value, refusing nesting deeper than `depth_left`.
  bool SkipValue(int depth_left) {
    SkipSpace();
    const char c = Peek();
    if (c == '{' || c == '[') {
      if (depth_left <= 0) {
        return Fail(reason::kTooDeep,
                    absl::StrCat("JSON nested deeper than ", MooncakeTraceSource::kMaxDepth, " levels"));
      }
      const char close = c == '{' ? '}' : ']';
      ++at_;
      SkipSpace();
      if (Consume(close)) return true;
      std::string scratch;
      while (true) {
        SkipSpace();
        if (c == '{') {
          if (!String(&scratch)) return false;
          SkipSpace();
          if (!Consume(':')) return Expected("':'");
        }
        if (!SkipValue(depth_left - 1)) return false;
        SkipSpace();
        if (Consume(close)) return true;
        if (!Consume(',')) return Expected(absl::StrCat("',' or '", std::string(1, close), "'"));
      }
    }
    if (c == '"') {
      std::string scratch;
      return String(&scratch);
    }
    for (absl::string_view literal : {"true", "false", "null"}) {
      if (s_.substr(at_, literal.size()) == literal) {
        at_ += literal.size();
        return true;
      }
    }
    absl::string_view token;
    return NumberToken("value", &token);
  }

 private:
  bool Hex4(uint32_t* value) {
    if (at_ + 4 > s_.size()) return Expected("4 hex digits after \\u");
    *value = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = s_[at_++];
      int d = -1;
      if (h >= '0' && h <= '9') d = h - '0';
      if (h >= 'a' && h <= 'f') d = h - 'a' + 10;
      if (h >= 'A' && h <= 'F') d = h - 'A' + 10;
      if (d < 0) return Fail(reason::kJsonSyntax, "bad hex digit in \\u escape", at_ - 1);
      *value = *value * 16 + static_cast<uint32_t>(d);
    }
    return true;
  }
  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  absl::string_view s_;
  size_t at_ = 0;
  RowProblem* problem_;
};

// Which keys a row has had so far: a second one is a duplicate_key row, a missing one a
// missing_key row.
struct SeenKeys {
  bool time = false, input = false, output = false, hashes = false;
};

// Fails a row whose first character does not open an object: not_an_object when it opens
// another JSON value, a syntax error otherwise.
void RejectNonObject(JsonCursor& json, RowProblem* problem) {
  if (json.Peek() == '[' || json.Peek() == '"' || json.Peek() == 't' || json.Peek() == 'f' || json.Peek() == 'n' ||
      json.Peek() == '-' || (json.Peek() >= '0' && json.Peek() <= '9')) {
    json.ValueTypeError("row", "a JSON object");
    problem->reason = std::string(reason::kNotAnObject);
    return;
  }
  json.Expected("a JSON object '{'");
}

// The hash_ids array at the cursor, appended to the request's prefix block hashes.
bool ParseHashIds(JsonCursor& json, Request* request, RowProblem* problem) {
  if (json.Peek() != '[') return json.ValueTypeError("hash_ids", "an array of block ids");
  json.Consume('[');
  json.SkipSpace();
  if (json.Consume(']')) return true;
  absl::string_view token;
  while (true) {
    json.SkipSpace();
    const size_t id_at = json.offset();
    uint64_t id = 0;
    if (!json.NumberToken("hash_ids element", &token) || !ParseUint64(token, "hash_ids element", &id, problem)) {
      if (problem->reason != reason::kWrongType && problem->reason != reason::kJsonSyntax) {
        problem->column = static_cast<int>(id_at) + 1;
      }
      return false;
    }
    request->prefix_block_hashes.push_back(id);
    json.SkipSpace();
    if (json.Consume(']')) return true;
    if (!json.Consume(',')) return json.Expected("',' or ']' in hash_ids");
  }
}

// The value of `key` (which started at `key_at`) at the cursor, into the request or the row's
// time; the value of an unknown key is skipped and the key listed in `unknown_keys`.
bool ParseMember(JsonCursor& json, const std::string& key, size_t key_at, SeenKeys& seen, Request* request,
                 RowTime* time, RowProblem* problem, std::set<std::string>* unknown_keys) {
  const size_t value_at = json.offset();
  auto duplicate = [&](bool seen_before) {
    if (!seen_before) return false;
    json.Fail(reason::kDuplicateKey, absl::StrCat("key \"", key, "\" appears twice"), key_at);
    return true;
  };
  absl::string_view token;
  if (key == "timestamp") {
    if (duplicate(seen.time)) return false;
    seen.time = true;
    time->column = static_cast<int>(value_at) + 1;
    if (!json.NumberToken("timestamp", &token) ||
        !ParseNonNegativeReal(token, "timestamp (ms)", &time->value, problem)) {
      if (problem->column == 0) problem->column = static_cast<int>(value_at) + 1;
      return false;
    }
  } else if (key == "input_length" || key == "output_length") {
    const bool input = key == "input_length";
    if (duplicate(input ? seen.input : seen.output)) return false;
    (input ? seen.input : seen.output) = true;
    int32_t* target = input ? &request->input_tokens : &request->output_tokens;
    if (!json.NumberToken(key, &token) || !ParseTokenCount(token, key, target, problem)) {
      problem->column = static_cast<int>(value_at) + 1;
      return false;
    }
  } else if (key == "hash_ids") {
    if (duplicate(seen.hashes)) return false;
    seen.hashes = true;
    if (!ParseHashIds(json, request, problem)) return false;
  } else {
    if (unknown_keys->size() < kMaxUnknownKeysListed) unknown_keys->insert(key);
    if (!json.SkipValue(MooncakeTraceSource::kMaxDepth)) return false;
  }
  return true;
}

// Fails a whole object that lacks a required key or asks for zero tokens.
bool CheckComplete(const SeenKeys& seen, const Request& request, RowProblem* problem) {
  const char* missing = !seen.time     ? "timestamp"
                        : !seen.input  ? "input_length"
                        : !seen.output ? "output_length"
                                       : nullptr;
  if (missing != nullptr) {
    problem->reason = std::string(reason::kMissingKey);
    problem->column = 0;
    problem->message = absl::StrCat("the object has no \"", missing, "\" key");
    return false;
  }
  if (request.input_tokens == 0 || request.output_tokens == 0) {
    problem->reason = std::string(reason::kZeroTokens);
    problem->column = 0;
    problem->message = absl::StrCat(request.input_tokens == 0 ? "input_length" : "output_length",
                                    ": expected at least 1 token, got 0");
    return false;
  }
  return true;
}

}  // namespace

MooncakeTraceSource::MooncakeTraceSource(std::unique_ptr<LineReader> reader, const TraceOptions& options,
                                         TraceReadStats* stats, absl::string_view first_line)
    : LineTraceSource(std::move(reader), options, stats, "mooncake", true, first_line) {}

LineTraceSource::RowOutcome MooncakeTraceSource::ParseRow(absl::string_view line, Request* request, RowTime* time,
                                                          RowProblem* problem) {
  JsonCursor json(line, problem);
  json.SkipSpace();
  if (json.Peek() != '{') {
    RejectNonObject(json, problem);
    return RowOutcome::kBad;
  }
  json.Consume('{');
  SeenKeys seen;
  request->prefix_block_hashes.clear();
  request->session.clear();
  request->model.clear();
  request->log_type.clear();
  request->priority = 0;
  time->kind = RowTime::Kind::kMilliseconds;
  json.SkipSpace();
  if (!json.Consume('}')) {
    while (true) {
      json.SkipSpace();
      const size_t key_at = json.offset();
      if (!json.String(&key_)) return RowOutcome::kBad;
      json.SkipSpace();
      if (!json.Consume(':')) {
        json.Expected("':' after a key");
        return RowOutcome::kBad;
      }
      json.SkipSpace();
      if (!ParseMember(json, key_, key_at, seen, request, time, problem, &unknown_keys_)) {
        return RowOutcome::kBad;
      }
      json.SkipSpace();
      if (json.Consume('}')) break;
      if (!json.Consume(',')) {
        json.Expected("',' or '}'");
        return RowOutcome::kBad;
      }
    }
  }
  json.SkipSpace();
  if (!json.AtEnd()) {
    json.Fail(reason::kJsonSyntax, "text after the end of the object");
    return RowOutcome::kBad;
  }
  return CheckComplete(seen, *request, problem) ? RowOutcome::kRequest : RowOutcome::kBad;
}

void MooncakeTraceSource::Finish(TraceReadStats* stats) {
  if (!unknown_keys_.empty()) {
    stats->warnings.push_back(absl::StrCat("ignored unknown keys: ", absl::StrJoin(unknown_keys_, ", ")));
  }
}

}  // namespace infergrid
