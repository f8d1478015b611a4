#include "calibration/vidur_csv.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/functional/function_ref.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/csv_line.h"
#include "base/textproto.h"

namespace infergrid {
namespace {

// Lines without the trailing '\r'; the first is the header.
std::vector<absl::string_view> Lines(absl::string_view contents) {
  std::vector<absl::string_view> lines = absl::StrSplit(contents, '\n');
  for (absl::string_view& l : lines) {
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  }
  return lines;
}

struct Columns {
  std::map<std::string, size_t> index;
  absl::StatusOr<size_t> Find(const std::string& path, absl::string_view name) const {
    auto it = index.find(std::string(name));
    if (it == index.end()) return CsvLineError(path, 1, absl::StrCat("missing column '", name, "'"));
    return it->second;
  }
};

absl::StatusOr<Columns> IndexHeader(const std::string& path, absl::string_view header) {
  absl::StatusOr<std::vector<std::string>> names = CsvLineFields(header, path, 1, {.trim_blanks = true});
  if (!names.ok()) return names.status();
  Columns columns;
  for (size_t i = 0; i < names->size(); ++i) columns.index[(*names)[i]] = i;
  return columns;
}

absl::Status ParseNumber(const std::string& path, int line, absl::string_view column, absl::string_view text,
                         double* value) {
  if (!absl::SimpleAtod(absl::StripAsciiWhitespace(text), value) || !std::isfinite(*value)) {
    return CsvLineError(path, line, absl::StrCat("column '", column, "': not a number: '", text, "'"));
  }
  return absl::OkStatus();
}

// Calls `row(line number, fields)` for every non-blank line after the header; a line whose
// field count differs from the header's is an error naming it. Stops at the first error.
absl::Status ForEachDataRow(const std::string& path, const std::vector<absl::string_view>& lines,
                            absl::FunctionRef<absl::Status(int, const std::vector<std::string>&)> row) {
  absl::StatusOr<std::vector<std::string>> header = CsvLineFields(lines[0], path, 1);
  if (!header.ok()) return header.status();
  const size_t width = header->size();
  for (size_t l = 1; l < lines.size(); ++l) {
    const int line = static_cast<int>(l) + 1;
    if (absl::StripAsciiWhitespace(lines[l]).empty()) continue;
    absl::StatusOr<std::vector<std::string>> fields = CsvLineFields(lines[l], path, line);
    if (!fields.ok()) return fields.status();
    if (fields->size() != width) {
      return CsvLineError(path, line, absl::StrCat("expected ", width, " fields, got ", fields->size()));
    }
    if (absl::Status s = row(line, *fields); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

std::string VidurModelLabel(absl::string_view path) {
  const size_t slash = path.find_last_of('/');
  absl::string_view name = slash == absl::string_view::npos ? path : path.substr(slash + 1);
  absl::ConsumeSuffix(&name, ".csv");
  if (!absl::ConsumeSuffix(&name, "_mlp_ops")) absl::ConsumeSuffix(&name, "_mlp");
  return std::string(name.empty() ? path : name);
}

bool LooksLikeVidurOps(absl::string_view header) {
  return absl::StrContains(header, "num_tokens") && absl::StrContains(header, "time_stats.");
}

bool LooksLikeVidurCollective(absl::string_view header) {
  return absl::StrContains(header, "num_workers") && absl::StrContains(header, "size") &&
         absl::StrContains(header, "collective");
}

absl::StatusOr<VidurOpsTable> ReadVidurOpsCsv(const std::string& path) {
  std::string contents;
  if (absl::Status s = ReadFileToString(path, &contents); !s.ok()) return s;
  return ParseVidurOpsCsv(contents, path);
}

absl::StatusOr<VidurOpsTable> ParseVidurOpsCsv(absl::string_view contents, const std::string& path) {
  const std::vector<absl::string_view> lines = Lines(contents);
  if (lines.empty() || !LooksLikeVidurOps(lines[0])) {
    return CsvLineError(path, 1, "not a vidur per-op table (needs num_tokens and time_stats.<op>.median columns)");
  }
  absl::StatusOr<Columns> header = IndexHeader(path, lines[0]);
  if (!header.ok()) return header.status();
  const Columns& columns = *header;
  VidurOpsTable table;
  table.path = path;
  table.model = VidurModelLabel(path);
  std::vector<std::pair<std::string, size_t>> op_columns;
  for (const auto& [name, index] : columns.index) {
    if (absl::StartsWith(name, "time_stats.") && absl::EndsWith(name, ".median")) {
      op_columns.emplace_back(name.substr(11, name.size() - 11 - 7), index);
    }
  }
  std::sort(op_columns.begin(), op_columns.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  for (const auto& [op, index] : op_columns) table.ops.push_back(op);
  const char* shape_names[] = {"n_head",     "n_kv_head",     "n_embd",     "n_expanded_embd",
                               "vocab_size", "use_gated_mlp", "num_tokens", "num_tensor_parallel_workers"};
  size_t shape_index[8];
  for (int i = 0; i < 8; ++i) {
    absl::StatusOr<size_t> index = columns.Find(path, shape_names[i]);
    if (!index.ok()) return index.status();
    shape_index[i] = *index;
  }
  const absl::Status read = ForEachDataRow(path, lines, [&](int line, const std::vector<std::string>& fields) {
    VidurOpsRow row;
    row.line = line;
    double v[8] = {};
    for (int i = 0; i < 8; ++i) {
      if (i == 5) continue;
      if (absl::Status s = ParseNumber(path, line, shape_names[i], fields[shape_index[i]], &v[i]); !s.ok()) {
        return s;
      }
      if (v[i] <= 0 || v[i] != std::floor(v[i])) {
        return CsvLineError(path, line,
                            absl::StrCat("column '", shape_names[i], "': expected a positive integer, got '",
                                         fields[shape_index[i]], "'"));
      }
    }
    const std::string gated = absl::AsciiStrToLower(absl::StripAsciiWhitespace(fields[shape_index[5]]));
    if (gated != "true" && gated != "false") {
      return CsvLineError(
          path, line,
          absl::StrCat("column 'use_gated_mlp': expected True or False, got '", fields[shape_index[5]], "'"));
    }
    row.n_head = static_cast<int>(v[0]);
    row.n_kv_head = static_cast<int>(v[1]);
    row.n_embd = static_cast<int64_t>(v[2]);
    row.n_expanded_embd = static_cast<int64_t>(v[3]);
    row.vocab_size = static_cast<int64_t>(v[4]);
    row.use_gated_mlp = gated == "true";
    row.num_tokens = static_cast<int64_t>(v[6]);
    row.tensor_parallel = static_cast<int>(v[7]);
    for (const auto& [op, index] : op_columns) {
      double ms = 0;
      const std::string column = absl::StrCat("time_stats.", op, ".median");
      if (absl::Status s = ParseNumber(path, line, column, fields[index], &ms); !s.ok()) return s;
      if (ms <= 0) return CsvLineError(path, line, absl::StrCat("column '", column, "': time must be positive"));
      row.median_s.emplace_back(op, ms * 1e-3);
    }
    table.rows.push_back(std::move(row));
    return absl::OkStatus();
  });
  if (!read.ok()) return read;
  if (table.rows.empty()) return CsvLineError(path, 2, "no data rows");
  return table;
}

absl::StatusOr<std::vector<VidurCollectiveRow>> ReadVidurCollectiveCsv(const std::string& path) {
  std::string contents;
  if (absl::Status s = ReadFileToString(path, &contents); !s.ok()) return s;
  return ParseVidurCollectiveCsv(contents, path);
}

absl::StatusOr<std::vector<VidurCollectiveRow>> ParseVidurCollectiveCsv(absl::string_view contents,
                                                                        const std::string& path) {
  const std::vector<absl::string_view> lines = Lines(contents);
  if (lines.empty() || !LooksLikeVidurCollective(lines[0])) {
    return CsvLineError(path, 1, "not a vidur collective table (needs num_workers, size and collective columns)");
  }
  absl::StatusOr<Columns> header = IndexHeader(path, lines[0]);
  if (!header.ok()) return header.status();
  const Columns& columns = *header;
  absl::StatusOr<size_t> collective = columns.Find(path, "collective");
  absl::StatusOr<size_t> workers = columns.Find(path, "num_workers");
  absl::StatusOr<size_t> devices = columns.Find(path, "devices_per_node");
  absl::StatusOr<size_t> size = columns.Find(path, "size");
  if (!collective.ok()) return collective.status();
  if (!workers.ok()) return workers.status();
  if (!devices.ok()) return devices.status();
  if (!size.ok()) return size.status();
  std::vector<VidurCollectiveRow> rows;
  const absl::Status read = ForEachDataRow(path, lines, [&](int line, const std::vector<std::string>& fields) {
    VidurCollectiveRow row;
    row.line = line;
    row.collective = std::string(absl::StripAsciiWhitespace(fields[*collective]));
    const std::string median_column = absl::StrCat("time_stats.", row.collective, ".median");
    absl::StatusOr<size_t> median = columns.Find(path, median_column);
    if (!median.ok()) return CsvLineError(path, line, absl::StrCat("no column '", median_column, "'"));
    double w = 0, dpn = 0, ms = 0;
    if (absl::Status s = ParseNumber(path, line, "num_workers", fields[*workers], &w); !s.ok()) return s;
    if (absl::Status s = ParseNumber(path, line, "devices_per_node", fields[*devices], &dpn); !s.ok()) return s;
    if (absl::Status s = ParseNumber(path, line, "size", fields[*size], &row.size_bytes); !s.ok()) return s;
    if (absl::Status s = ParseNumber(path, line, median_column, fields[*median], &ms); !s.ok()) return s;
    if (w < 1 || row.size_bytes <= 0 || ms <= 0) {
      return CsvLineError(path, line, "num_workers, size and the median time must be positive");
    }
    row.num_workers = static_cast<int>(w);
    row.devices_per_node = static_cast<int>(dpn);
    row.median_s = ms * 1e-3;
    rows.push_back(std::move(row));
    return absl::OkStatus();
  });
  if (!read.ok()) return read;
  if (rows.empty()) return CsvLineError(path, 2, "no data rows");
  return rows;
}

}  // namespace infergrid
