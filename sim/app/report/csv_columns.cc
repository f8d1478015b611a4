#include "sim/app/report/csv_columns.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <deque>
#include <fstream>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "base/csv_line.h"
#include "base/textproto.h"

namespace infergrid::report {
namespace {

std::optional<double> ParseNumber(absl::string_view text) {
  if (text.empty()) return std::numeric_limits<double>::quiet_NaN();
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The header's index of each name, or an error naming the first missing one.
absl::Status FindColumns(const std::string& path, const std::vector<CsvField>& header,
                         const std::vector<std::string>& names, std::vector<size_t>* indexes) {
  for (const std::string& name : names) {
    size_t i = 0;
    while (i < header.size() && header[i].text != name) ++i;
    if (i == header.size()) return CsvLineError(path, 1, absl::StrCat("no column '", name, "' in the header"));
    indexes->push_back(i);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadCsvColumns(const std::string& path, const CsvColumnNames& names,
                            const std::function<void(const CsvRow&)>& on_row) {
  if (absl::Status s = CheckRegularFile(path); !s.ok()) return s;
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  std::string line;
  if (!std::getline(in, line)) return absl::InvalidArgumentError(absl::StrCat(path, ": empty (no header row)"));
  if (in.eof()) return CsvLineError(path, 1, "the header has no newline (a file cut short)");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::vector<CsvField> fields;
  std::deque<std::string> storage;
  CsvSplitError split_error;
  if (!SplitCsvLine(line, &fields, &storage, &split_error)) {
    return CsvLineError(path, 1, split_error.message, split_error.column);
  }
  const size_t width = fields.size();
  std::vector<size_t> number_index, text_index;
  if (absl::Status s = FindColumns(path, fields, names.numbers, &number_index); !s.ok()) return s;
  if (absl::Status s = FindColumns(path, fields, names.texts, &text_index); !s.ok()) return s;

  std::vector<double> numbers(number_index.size());
  std::vector<absl::string_view> texts(text_index.size());
  for (int64_t line_number = 2; std::getline(in, line); ++line_number) {
    const int line_at = static_cast<int>(line_number);
    // Every line InferGrid writes ends with a newline: one without is a file cut short, its last
    // number perhaps cut to fewer digits.
    if (in.eof()) return CsvLineError(path, line_at, "the last line has no newline (a file cut short)");
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (!SplitCsvLine(line, &fields, &storage, &split_error)) {
      return CsvLineError(path, line_at, split_error.message, split_error.column);
    }
    if (fields.size() != width) {
      return CsvLineError(path, line_at, absl::StrCat(fields.size(), " fields, the header has ", width));
    }
    for (size_t i = 0; i < number_index.size(); ++i) {
      const absl::string_view text = fields[number_index[i]].text;
      const std::optional<double> value = ParseNumber(text);
      if (!value) {
        return CsvLineError(path, line_at,
                            absl::StrCat("column '", names.numbers[i], "': '", text, "' is not a number"));
      }
      numbers[i] = *value;
    }
    for (size_t j = 0; j < text_index.size(); ++j) texts[j] = fields[text_index[j]].text;
    on_row(CsvRow{numbers, texts, line_number});
  }
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error: ", std::strerror(errno)));
  return absl::OkStatus();
}

}  // namespace infergrid::report
