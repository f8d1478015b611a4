// The one JSON reader of the product: config.json, safetensors headers, bench --compare files,
// the custom and ShareGPT datasets, and the summaries, comparisons and sweep files that report,
// compare and sweep read back. Its contract, for every document and every byte of input:
//   - it never throws, aborts or recurses: nlohmann's parser is iterative, and a document nested
//     deeper than kMaxJsonDepth arrays and objects is refused before anything walks it;
//   - a number a double cannot hold (1e400, -1e400) is refused, not read as infinity;
//   - every refusal is one line, "path:LINE:COLUMN: what", LINE and COLUMN 1-based and counted
//     in the file (a JSON-lines reader passes the line its text starts on).
#ifndef INFERGRID_BASE_JSON_TEXT_H_
#define INFERGRID_BASE_JSON_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "nlohmann/json.hpp"

namespace infergrid {

// Arrays and objects nested in one another at most this deep ([[1]] is 2). The deepest file
// InferGrid reads needs 6 (a genai-perf export); the protobuf JSON parser refuses past 100.
inline constexpr int kMaxJsonDepth = 64;

// Where a text starts in its file: a JSON-lines reader parses one line at a time.
struct JsonSource {
  absl::string_view path;
  int64_t first_line = 1;
  // The text is line `first_line` of a JSON-lines file: errors without a column name the line.
  bool one_line = false;
};

// Parses one JSON document.
absl::StatusOr<nlohmann::json> ParseJson(absl::string_view text, JsonSource source);
inline absl::StatusOr<nlohmann::json> ParseJson(absl::string_view text, absl::string_view path) {
  return ParseJson(text, JsonSource{path, 1});
}

// Feeds one JSON document to `handler` (a reader that keeps only what it needs, as the
// ShareGPT dataset's). Ok when the whole document was read; an error of the contract above; or,
// when the handler itself returned false, CancelledError (the handler holds its reason).
absl::Status SaxParseJson(absl::string_view text, JsonSource source, nlohmann::json_sax<nlohmann::json>* handler);

// Parses one JSON document into `message` (proto3 JSON mapping, unknown fields ignored). An
// error of the contract above, or "path[:LINE]: not a <what>: <the protobuf parser's reason>".
absl::Status ParseJsonMessage(absl::string_view text, JsonSource source, absl::string_view what,
                              google::protobuf::Message* message);

// "path:LINE:COL: invalid JSON: what" for a parse error `byte` bytes (1-based, as nlohmann
// counts) into `text`; `what` is nlohmann's message, its own prefix dropped.
absl::Status JsonSyntaxError(absl::string_view text, JsonSource source, size_t byte, absl::string_view what);

}  // namespace infergrid

#endif  // INFERGRID_BASE_JSON_TEXT_H_
