// Reads chosen columns of a CSV file with a header row, one row at a time, without holding the
// file: the iterations.csv of a long run is gigabytes. Columns are found by name, in any order;
// the others are skipped. Numeric columns parse as doubles, an empty field as NaN (a time that
// did not happen); text columns are handed on as they are. Lines are split by base/csv_line.h
// (RFC 4180 quoting within a line). Every error names the file, and the line where there is one.
#ifndef INFERGRID_SIM_APP_REPORT_CSV_COLUMNS_H_
#define INFERGRID_SIM_APP_REPORT_CSV_COLUMNS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace infergrid::report {

struct CsvColumnNames {
  std::vector<std::string> numbers;  // parsed as doubles
  std::vector<std::string> texts;  // handed on as text
};

// One data row: numbers[i] holds the column names.numbers[i], texts[j] names.texts[j].
struct CsvRow {
  absl::Span<const double> numbers;
  absl::Span<const absl::string_view> texts;  // valid during the call only
  int64_t line = 0;  // in the file, from 1 (the header)
};

// Calls `on_row` for every data row of `path`, in file order. Fails, naming the file, when it
// cannot be read, is empty, lacks a named column, has a row whose field count differs from the
// header's, has a numeric field that is not a number, or ends without a newline (a file cut
// short: InferGrid ends every line it writes with one).
absl::Status ReadCsvColumns(const std::string& path, const CsvColumnNames& names,
                            const std::function<void(const CsvRow&)>& on_row);

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_CSV_COLUMNS_H_
