#include "traces/csv_split.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace infergrid {
namespace {

bool SplitQuoted(absl::string_view line, std::vector<CsvField>* fields,
                 std::deque<std::string>* storage, RowProblem* problem) {
  size_t used_storage = 0;
  size_t at = 0;
  while (true) {
    const int column = static_cast<int>(at) + 1;
    if (at < line.size() && line[at] == '"') {
      // Quoted: runs to the closing quote; "" inside is one quote.
      size_t k = at + 1;
      bool escaped = false;
      while (true) {
        const size_t q = line.find('"', k);
        if (q == absl::string_view::npos) {
          problem->reason = std::string(reason::kBadQuote);
          problem->column = column;
          problem->message = "unterminated quoted field";
          return false;
        }
        if (q + 1 < line.size() && line[q + 1] == '"') {
          escaped = true;
          k = q + 2;
          continue;
        }
        k = q;
        break;
      }
      absl::string_view inner = line.substr(at + 1, k - at - 1);
      if (escaped) {
        if (storage->size() <= used_storage) storage->emplace_back();
        std::string& s = (*storage)[used_storage++];
        s.clear();
        for (size_t i = 0; i < inner.size(); ++i) {
          s.push_back(inner[i]);
          if (inner[i] == '"') ++i;  // skip the doubled quote
        }
        inner = s;
      }
      fields->push_back({inner, column});
      at = k + 1;
      if (at == line.size()) return true;
      if (line[at] != ',') {
        problem->reason = std::string(reason::kBadQuote);
        problem->column = static_cast<int>(at) + 1;
        problem->message = "expected ',' after a closing quote";
        return false;
      }
      ++at;
      if (at == line.size()) {
        fields->push_back({absl::string_view(), static_cast<int>(at) + 1});
        return true;
      }
      continue;
    }
    const size_t comma = line.find(',', at);
    const absl::string_view text =
        line.substr(at, comma == absl::string_view::npos ? absl::string_view::npos : comma - at);
    if (text.find('"') != absl::string_view::npos) {
      problem->reason = std::string(reason::kBadQuote);
      problem->column = column + static_cast<int>(text.find('"'));
      problem->message = "a quote inside an unquoted field";
      return false;
    }
    fields->push_back({text, column});
    if (comma == absl::string_view::npos) return true;
    at = comma + 1;
    if (at == line.size()) {
      fields->push_back({absl::string_view(), static_cast<int>(at) + 1});
      return true;
    }
  }
}

}  // namespace

bool SplitCsvLine(absl::string_view line, std::vector<CsvField>* fields,
                  std::deque<std::string>* storage, RowProblem* problem) {
  fields->clear();
  if (std::memchr(line.data(), '"', line.size()) != nullptr) {
    return SplitQuoted(line, fields, storage, problem);
  }
  const char* begin = line.data();
  const char* end = begin + line.size();
  const char* at = begin;
  while (true) {
    const char* comma = static_cast<const char*>(std::memchr(at, ',', static_cast<size_t>(end - at)));
    const char* stop = comma == nullptr ? end : comma;
    fields->push_back({absl::string_view(at, static_cast<size_t>(stop - at)),
                       static_cast<int>(at - begin) + 1});
    if (comma == nullptr) return true;
    at = comma + 1;
  }
}

}  // namespace infergrid
