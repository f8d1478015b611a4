#include "sim/app/validation/request_latency_csv.h"

#include <cmath>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/csv_line.h"
#include "base/textproto.h"

namespace infergrid {
namespace {

absl::StatusOr<double> ParseSeconds(const std::string& field, absl::string_view column, absl::string_view path,
                                    int line) {
  double value = 0;
  if (!absl::SimpleAtod(field, &value) || !std::isfinite(value)) {
    return CsvLineError(path, line, absl::StrCat(column, ": '", field, "' is not a number of seconds"));
  }
  if (value < 0) {
    return CsvLineError(path, line, absl::StrCat(column, ": ", field, " is negative"));
  }
  return value;
}

}  // namespace

absl::StatusOr<RequestLatencyFile> ParseRequestLatencyCsv(absl::string_view text, absl::string_view path) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  RequestLatencyFile file;
  file.path = std::string(path);
  int id_column = -1;
  int ttft_column = -1;
  int tpot_column = -1;
  size_t columns = 0;
  int header_line = 0;
  std::unordered_map<std::string, int> first_line_of_id;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const absl::string_view stripped = absl::StripAsciiWhitespace(line);
    if (stripped.empty() || stripped.front() == '#') continue;
    absl::StatusOr<std::vector<std::string>> fields = CsvLineFields(line, path, line_number, {.trim_blanks = true});
    if (!fields.ok()) return fields.status();
    if (header_line == 0) {
      header_line = line_number;
      columns = fields->size();
      for (size_t c = 0; c < fields->size(); ++c) {
        const std::string& name = (*fields)[c];
        int* slot = name == "id"       ? &id_column
                    : name == "ttft_s" ? &ttft_column
                    : name == "tpot_s" ? &tpot_column
                                       : nullptr;
        if (slot == nullptr) continue;
        if (*slot >= 0) return CsvLineError(path, line_number, absl::StrCat("column '", name, "' appears twice"));
        *slot = static_cast<int>(c);
      }
      std::vector<std::string> missing;
      if (id_column < 0) missing.push_back("id");
      if (ttft_column < 0) missing.push_back("ttft_s");
      if (tpot_column < 0) missing.push_back("tpot_s");
      if (!missing.empty()) {
        return CsvLineError(path, line_number,
                            absl::StrCat("the header lacks column(s) ", absl::StrJoin(missing, ", "),
                                         " (expected a header with at least id,ttft_s,tpot_s)"));
      }
      continue;
    }
    if (fields->size() != columns) {
      return CsvLineError(path, line_number,
                          absl::StrCat(fields->size(), " fields, the header on line ", header_line, " has ", columns));
    }
    RequestLatency request;
    request.line = line_number;
    request.id = (*fields)[id_column];
    if (request.id.empty()) return CsvLineError(path, line_number, "empty id");
    const auto [it, inserted] = first_line_of_id.emplace(request.id, line_number);
    if (!inserted) {
      return CsvLineError(path, line_number,
                          absl::StrCat("duplicate id '", request.id, "' (first on line ", it->second, ")"));
    }
    absl::StatusOr<double> ttft = ParseSeconds((*fields)[ttft_column], "ttft_s", path, line_number);
    if (!ttft.ok()) return ttft.status();
    request.ttft_s = *ttft;
    if (!(*fields)[tpot_column].empty()) {
      absl::StatusOr<double> tpot = ParseSeconds((*fields)[tpot_column], "tpot_s", path, line_number);
      if (!tpot.ok()) return tpot.status();
      request.tpot_s = *tpot;
    }
    file.requests.push_back(std::move(request));
  }
  if (header_line == 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":1: no header (expected at least id,ttft_s,tpot_s)"));
  }
  if (file.requests.empty()) {
    return CsvLineError(path, header_line, "a header and no requests");
  }
  return file;
}

absl::StatusOr<RequestLatencyFile> ReadRequestLatencyCsv(const std::string& path) {
  std::string text;
  if (absl::Status status = ReadFileToString(path, &text); !status.ok()) return status;
  return ParseRequestLatencyCsv(text, path);
}

}  // namespace infergrid
