// Splits one CSV line into fields, fast: plain lines (no '"') are cut with memchr and never
// copied. RFC 4180 quoting is accepted too ("a,b" and "say ""hi""" as one field); a quoted
// field with doubled quotes is unescaped into caller-owned storage: a deque, because fields
// already point into its strings and a vector would move them when it grows.
#ifndef INFERGRID_TRACES_CSV_SPLIT_H_
#define INFERGRID_TRACES_CSV_SPLIT_H_

#include <deque>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "traces/field_parse.h"

namespace infergrid {

struct CsvField {
  absl::string_view text;
  int column = 0;  // 1-based byte offset of the field within the line
};

// Replaces `fields` with the fields of `line`. False (with problem) on a malformed quote.
bool SplitCsvLine(absl::string_view line, std::vector<CsvField>* fields,
                  std::deque<std::string>* storage, RowProblem* problem);

}  // namespace infergrid

#endif  // INFERGRID_TRACES_CSV_SPLIT_H_
