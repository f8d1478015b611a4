#include "base/csv_line.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace infergrid {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

size_t SkipBlanks(absl::string_view line, size_t at) {
  while (at < line.size() && IsBlank(line[at])) ++at;
  return at;
}

absl::string_view TrimBlanks(absl::string_view text) {
  while (!text.empty() && IsBlank(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsBlank(text.back())) text.remove_suffix(1);
  return text;
}

bool Fail(CsvSplitError* error, size_t at, absl::string_view message) {
  error->column = static_cast<int>(at) + 1;
  error->message = std::string(message);
  return false;
}

// The end of the quoted field opening at `open` (the index of its closing quote), or npos;
// sets `escaped` when it holds a doubled quote.
size_t ClosingQuote(absl::string_view line, size_t open, bool* escaped) {
  size_t k = open + 1;
  while (true) {
    const size_t q = line.find('"', k);
    if (q == absl::string_view::npos) return q;
    if (q + 1 < line.size() && line[q + 1] == '"') {
      *escaped = true;
      k = q + 2;
      continue;
    }
    return q;
  }
}

absl::string_view Unescape(absl::string_view inner, std::deque<std::string>* storage, size_t* used_storage) {
  if (storage->size() <= *used_storage) storage->emplace_back();
  std::string& s = (*storage)[(*used_storage)++];
  s.clear();
  for (size_t i = 0; i < inner.size(); ++i) {
    s.push_back(inner[i]);
    if (inner[i] == '"') ++i;  // skip the doubled quote
  }
  return s;
}

bool SplitQuoted(absl::string_view line, std::vector<CsvField>* fields, std::deque<std::string>* storage,
                 CsvSplitError* error, bool trim) {
  size_t used_storage = 0;
  size_t at = 0;
  while (true) {
    const size_t start = at;
    if (trim) at = SkipBlanks(line, at);
    if (at < line.size() && line[at] == '"') {
      bool escaped = false;
      const size_t close = ClosingQuote(line, at, &escaped);
      if (close == absl::string_view::npos) return Fail(error, at, "unterminated quoted field");
      absl::string_view inner = line.substr(at + 1, close - at - 1);
      if (escaped) inner = Unescape(inner, storage, &used_storage);
      fields->push_back({inner, static_cast<int>(at) + 1});
      at = close + 1;
      if (trim) at = SkipBlanks(line, at);
      if (at == line.size()) return true;
      if (line[at] != ',') return Fail(error, at, "expected ',' after a closing quote");
    } else {
      const size_t comma = line.find(',', start);
      const size_t end = comma == absl::string_view::npos ? line.size() : comma;
      absl::string_view text = line.substr(start, end - start);
      if (trim) text = TrimBlanks(text);
      const size_t quote = text.find('"');
      if (quote != absl::string_view::npos) {
        return Fail(error, static_cast<size_t>(text.data() - line.data()) + quote, "a quote inside an unquoted field");
      }
      fields->push_back({text, static_cast<int>(start) + 1});
      if (comma == absl::string_view::npos) return true;
      at = comma;
    }
    ++at;  // the comma
    if (at == line.size()) {
      fields->push_back({absl::string_view(), static_cast<int>(at) + 1});
      return true;
    }
  }
}

}  // namespace

bool SplitCsvLine(absl::string_view line, std::vector<CsvField>* fields, std::deque<std::string>* storage,
                  CsvSplitError* error, CsvSplitOptions options) {
  fields->clear();
  if (std::memchr(line.data(), '"', line.size()) != nullptr) {
    return SplitQuoted(line, fields, storage, error, options.trim_blanks);
  }
  const char* begin = line.data();
  const char* end = begin + line.size();
  const char* at = begin;
  while (true) {
    const char* comma = static_cast<const char*>(std::memchr(at, ',', static_cast<size_t>(end - at)));
    const char* stop = comma == nullptr ? end : comma;
    absl::string_view text(at, static_cast<size_t>(stop - at));
    if (options.trim_blanks) text = TrimBlanks(text);
    fields->push_back({text, static_cast<int>(at - begin) + 1});
    if (comma == nullptr) return true;
    at = comma + 1;
  }
}

absl::StatusOr<std::vector<std::string>> CsvLineFields(absl::string_view line, absl::string_view path, int line_number,
                                                       CsvSplitOptions options) {
  std::vector<CsvField> fields;
  std::deque<std::string> storage;
  CsvSplitError error;
  if (!SplitCsvLine(line, &fields, &storage, &error, options)) {
    return CsvLineError(path, line_number, error.message, error.column);
  }
  std::vector<std::string> strings;
  strings.reserve(fields.size());
  for (const CsvField& field : fields) strings.emplace_back(field.text);
  return strings;
}

absl::Status CsvLineError(absl::string_view path, int line, absl::string_view message, int column) {
  if (column > 0) return absl::InvalidArgumentError(absl::StrCat(path, ":", line, ":", column, ": ", message));
  return absl::InvalidArgumentError(absl::StrCat(path, ":", line, ": ", message));
}

}  // namespace infergrid
