#include "base/json_text.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"

namespace infergrid {

absl::StatusOr<nlohmann::json> ParseJson(absl::string_view text, absl::string_view path) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& error) {
    return JsonSyntaxError(text, path, error.byte, error.what());
  }
}

absl::Status JsonSyntaxError(absl::string_view text, absl::string_view path, size_t byte, absl::string_view what) {
  // Locate the byte nlohmann stopped at; its message carries its own prefix, which we drop.
  const size_t offset = byte > 0 ? std::min<size_t>(byte - 1, text.size()) : 0;
  size_t line = 1;
  size_t column = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  if (const size_t colon = what.find(": "); colon != absl::string_view::npos) what = what.substr(colon + 2);
  return absl::InvalidArgumentError(absl::StrCat(path, ":", line, ":", column, ": invalid JSON: ", what));
}

}  // namespace infergrid
