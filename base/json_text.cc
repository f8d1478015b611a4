#include "base/json_text.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace infergrid {
namespace {

using Json = nlohmann::json;

// nlohmann's id of "number overflow" (a float token whose value is not finite).
constexpr int kNumberOverflowId = 406;

// LINE:COL (1-based) of byte `offset` (0-based) of `text`, counted in its file.
std::string Place(absl::string_view text, const JsonSource& source, size_t offset) {
  offset = std::min(offset, text.size());
  int64_t line = source.first_line;
  size_t column = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return absl::StrCat(source.path, ":", line, ":", column);
}

// Where a message about the document as a whole points: the file, or its line.
std::string Where(const JsonSource& source) {
  return source.one_line ? absl::StrCat(source.path, ":", source.first_line) : std::string(source.path);
}

// The byte at which the nesting first passes kMaxJsonDepth: the parser has read everything up
// to it as valid JSON, so only strings need skipping.
size_t TooDeepOffset(absl::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return text.size();
}

// Forwards every event to `Inner`, counting the nesting, and keeps the first parse error
// instead of throwing it.
template <typename Inner>
class Guarded {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  explicit Guarded(Inner* inner) : inner_(inner) {}

  bool null() { return inner_->null(); }
  bool boolean(bool v) { return inner_->boolean(v); }
  bool number_integer(number_integer_t v) { return inner_->number_integer(v); }
  bool number_unsigned(number_unsigned_t v) { return inner_->number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) { return inner_->number_float(v, s); }
  bool string(string_t& v) { return inner_->string(v); }
  bool binary(binary_t& v) { return inner_->binary(v); }
  bool key(string_t& k) { return inner_->key(k); }
  bool start_object(std::size_t n) { return Deeper() && inner_->start_object(n); }
  bool end_object() {
    --depth_;
    return inner_->end_object();
  }
  bool start_array(std::size_t n) { return Deeper() && inner_->start_array(n); }
  bool end_array() {
    --depth_;
    return inner_->end_array();
  }
  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& e) {
    failed = true;
    error_byte = position;
    error_token = token;
    error_id = e.id;
    error_what = e.what();
    return false;
  }

  bool failed = false;  // a parse error
  bool too_deep = false;  // nesting past kMaxJsonDepth
  size_t error_byte = 0;  // bytes read: a syntax error's 1-based byte, or just past a number
  std::string error_token;
  int error_id = 0;
  std::string error_what;

 private:
  bool Deeper() {
    if (++depth_ <= kMaxJsonDepth) return true;
    too_deep = true;
    return false;
  }
  Inner* inner_;
  int depth_ = 0;
};

// Accepts every event: a document checked without being built.
struct Accept {
  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(Json::number_integer_t) { return true; }
  bool number_unsigned(Json::number_unsigned_t) { return true; }
  bool number_float(Json::number_float_t, const Json::string_t&) { return true; }
  bool string(Json::string_t&) { return true; }
  bool binary(Json::binary_t&) { return true; }
  bool key(Json::string_t&) { return true; }
  bool start_object(std::size_t) { return true; }
  bool end_object() { return true; }
  bool start_array(std::size_t) { return true; }
  bool end_array() { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }
};

// Runs the parser over `text` with `inner` behind the guard: Ok, an error of the contract, or
// CancelledError when `inner` stopped it.
template <typename Inner>
absl::Status Run(absl::string_view text, const JsonSource& source, Inner* inner) {
  Guarded<Inner> guard(inner);
  bool parsed = false;
  try {
    parsed = Json::sax_parse(text.begin(), text.end(), &guard);
  } catch (const Json::exception& e) {  // none is thrown past the guard; kept as the contract's net
    return absl::InvalidArgumentError(absl::StrCat(Where(source), ": invalid JSON: ", e.what()));
  }
  if (parsed) return absl::OkStatus();
  if (guard.too_deep) {
    return absl::InvalidArgumentError(absl::StrCat(Place(text, source, TooDeepOffset(text)),
                                                   ": JSON nested deeper than ", kMaxJsonDepth,
                                                   " arrays and objects (the most InferGrid reads)"));
  }
  if (!guard.failed) return absl::CancelledError("stopped by the reader");
  if (guard.error_id == kNumberOverflowId) {
    // The parser stands just past the number: point at its first character.
    const size_t length = guard.error_token.size();
    const size_t start = guard.error_byte >= length ? guard.error_byte - length : 0;
    return absl::InvalidArgumentError(absl::StrCat(Place(text, source, start), ": number ", guard.error_token,
                                                   " is out of range (a double holds magnitudes up to 1.8e308)"));
  }
  return JsonSyntaxError(text, source, guard.error_byte, guard.error_what);
}

}  // namespace

absl::StatusOr<Json> ParseJson(absl::string_view text, JsonSource source) {
  Json result;
  nlohmann::detail::json_sax_dom_parser<Json> dom(result, /*allow_exceptions_=*/false);
  if (absl::Status s = Run(text, source, &dom); !s.ok()) return s;
  return result;
}

absl::Status SaxParseJson(absl::string_view text, JsonSource source, nlohmann::json_sax<Json>* handler) {
  return Run(text, source, handler);
}

absl::Status ParseJsonMessage(absl::string_view text, JsonSource source, absl::string_view what,
                              google::protobuf::Message* message) {
  Accept accept;
  if (absl::Status s = Run(text, source, &accept); !s.ok()) return s;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;  // a newer simulator's extra fields
  const auto status = google::protobuf::util::JsonStringToMessage(std::string(text), message, options);
  if (status.ok()) return absl::OkStatus();
  // The parser's message may span lines (a caret under the text); its first line says what is wrong.
  const std::string reason = status.message().as_string();
  return absl::InvalidArgumentError(
      absl::StrCat(Where(source), ": not a ", what, ": ", reason.substr(0, reason.find('\n'))));
}

absl::Status JsonSyntaxError(absl::string_view text, JsonSource source, size_t byte, absl::string_view what) {
  // Locate the byte nlohmann stopped at; its message carries its own prefix, which we drop.
  const size_t offset = byte > 0 ? byte - 1 : 0;
  if (const size_t colon = what.find(": "); colon != absl::string_view::npos) what = what.substr(colon + 2);
  return absl::InvalidArgumentError(absl::StrCat(Place(text, source, offset), ": invalid JSON: ", what));
}

}  // namespace infergrid
