// OpenTrace: format detection from the first line and the column layouts of the CSV formats.
#include "traces/trace_reader.h"

#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/csv_line.h"
#include "traces/csv_trace_source.h"
#include "traces/line_reader.h"
#include "traces/mooncake_trace_source.h"

namespace infergrid {
namespace {

enum class Role { kTime, kInput, kOutput, kTotal, kModel, kLogType, kPriority, kSession, kHashes, kIgnored };

struct ColumnSpec {
  absl::string_view name;  // compared case-insensitively
  Role role;
  bool required;
};

struct CsvFormat {
  absl::string_view name;
  RowTime::Kind time_kind;
  std::vector<ColumnSpec> columns;
  bool zero_output_is_failure = false;
  bool percent_decode = false;
};

const std::vector<CsvFormat>& CsvFormats() {
  static const std::vector<CsvFormat>* formats = new std::vector<CsvFormat>{
      {"infergrid",
       RowTime::Kind::kSeconds,
       {{"arrival_s", Role::kTime, true},
        {"input_tokens", Role::kInput, true},
        {"output_tokens", Role::kOutput, true},
        {"priority", Role::kPriority, false},
        {"session", Role::kSession, false},
        {"model", Role::kModel, false},
        {"log_type", Role::kLogType, false},
        {"block_hashes", Role::kHashes, false}},
       false,
       true},
      {"azure",
       RowTime::Kind::kWallClockNs,
       {{"TIMESTAMP", Role::kTime, true},
        {"ContextTokens", Role::kInput, true},
        {"GeneratedTokens", Role::kOutput, true}}},
      {"burstgpt",
       RowTime::Kind::kSeconds,
       {{"Timestamp", Role::kTime, true},
        {"Model", Role::kModel, true},
        {"Request tokens", Role::kInput, true},
        {"Response tokens", Role::kOutput, true},
        {"Total tokens", Role::kTotal, false},
        {"Log Type", Role::kLogType, false}},
       true},
      {"vidur",
       RowTime::Kind::kSeconds,
       {{"arrived_at", Role::kTime, true},
        {"num_prefill_tokens", Role::kInput, true},
        {"num_decode_tokens", Role::kOutput, true},
        {"num_total_tokens", Role::kTotal, false},
        {"pd_ratio", Role::kIgnored, false}}},
      {"lengths",
       RowTime::Kind::kNone,
       {{"num_prefill_tokens", Role::kInput, true},
        {"num_decode_tokens", Role::kOutput, true},
        {"num_total_tokens", Role::kTotal, false},
        {"pd_ratio", Role::kIgnored, false}}},
  };
  return *formats;
}

std::string RequiredColumns(const CsvFormat& format) {
  std::vector<std::string> names;
  for (const ColumnSpec& c : format.columns) {
    if (c.required) names.emplace_back(c.name);
  }
  return absl::StrJoin(names, ",");
}

std::string KnownHeaders() {
  std::vector<std::string> lines;
  for (const CsvFormat& f : CsvFormats()) {
    lines.push_back(absl::StrCat(f.name, " (", RequiredColumns(f), ")"));
  }
  lines.push_back("mooncake (JSON lines with timestamp, input_length, output_length)");
  return absl::StrJoin(lines, "; ");
}

int FindColumn(const std::vector<std::string>& names, absl::string_view wanted) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (absl::EqualsIgnoreCase(names[i], wanted)) return static_cast<int>(i);
  }
  return -1;
}

bool HasRequired(const CsvFormat& format, const std::vector<std::string>& names) {
  for (const ColumnSpec& c : format.columns) {
    if (c.required && FindColumn(names, c.name) < 0) return false;
  }
  return true;
}

// True when the first field of a header line is a number or a date: the file has no header.
bool LooksLikeData(absl::string_view first_field) {
  first_field = TrimBlanks(first_field);
  return !first_field.empty() && (absl::ascii_isdigit(static_cast<unsigned char>(first_field[0])) ||
                                  first_field[0] == '-' || first_field[0] == '.');
}

absl::StatusOr<CsvLayout> BuildLayout(const CsvFormat& format, const std::vector<std::string>& names,
                                      const std::string& path, TraceReadStats* stats) {
  CsvLayout layout;
  layout.format = std::string(format.name);
  layout.num_columns = static_cast<int>(names.size());
  layout.time_kind = format.time_kind;
  layout.zero_output_is_failure = format.zero_output_is_failure;
  layout.percent_decode = format.percent_decode;
  layout.names = names;
  std::vector<bool> used(names.size(), false);
  for (const ColumnSpec& c : format.columns) {
    const int index = FindColumn(names, c.name);
    if (index < 0) {
      if (c.required) {
        return absl::InvalidArgumentError(absl::StrCat(path, ":1: the header has no '", c.name, "' column, which the ",
                                                       format.name, " format needs (", RequiredColumns(format),
                                                       "); header: ", ShowField(absl::StrJoin(names, ","))));
      }
      continue;
    }
    used[static_cast<size_t>(index)] = true;
    switch (c.role) {
      case Role::kTime: layout.time = index; break;
      case Role::kInput: layout.input = index; break;
      case Role::kOutput: layout.output = index; break;
      case Role::kTotal: layout.total = index; break;
      case Role::kModel: layout.model = index; break;
      case Role::kLogType: layout.log_type = index; break;
      case Role::kPriority: layout.priority = index; break;
      case Role::kSession: layout.session = index; break;
      case Role::kHashes: layout.block_hashes = index; break;
      case Role::kIgnored: break;
    }
  }
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (absl::EqualsIgnoreCase(names[i], names[j])) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ":1: column '", names[i], "' appears twice in the header"));
      }
    }
    if (!used[i]) {
      stats->warnings.push_back(
          absl::StrCat("column '", names[i], "' is not part of the ", format.name, " format: ignored"));
    }
  }
  return layout;
}

absl::Status CheckFormatName(const std::string& format) {
  static constexpr std::array<absl::string_view, 7> kFormats = {"auto",  "azure",   "burstgpt", "mooncake",
                                                                "vidur", "lengths", "infergrid"};
  bool known = false;
  for (absl::string_view f : kFormats) known = known || f == format;
  if (known) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("trace format '", format, "' is not one of ", absl::StrJoin(kFormats, ", ")));
}

// The first non-blank line into *line; an error when there is none, it is over the line cap,
// or the file is UTF-16.
absl::Status ReadFirstLine(LineReader& reader, const std::string& path, const TraceOptions& options,
                           absl::string_view* line) {
  LineReader::Result result;
  // Leading blank lines are not a header.
  do {
    absl::StatusOr<LineReader::Result> next = reader.Next(line);
    if (!next.ok()) return next.status();
    result = *next;
  } while (result == LineReader::Result::kLine && TrimBlanks(*line).empty());

  const absl::string_view lead = reader.leading_bytes();
  if (lead.size() >= 2 && ((lead[0] == '\xFF' && lead[1] == '\xFE') || (lead[0] == '\xFE' && lead[1] == '\xFF'))) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":1:1: the file is UTF-16 (byte-order mark ",
                                                   ShowField(lead.substr(0, 2)), "); traces must be UTF-8 or ASCII"));
  }
  if (result == LineReader::Result::kEof) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": empty file: expected a header line, one of: ", KnownHeaders()));
  }
  if (result == LineReader::Result::kTooLong) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":", reader.line_number(), ": the first line is longer than ",
                                                   options.max_line_bytes,
                                                   " bytes: not a trace header (nor a JSON line within the cap)"));
  }
  return absl::OkStatus();
}

// The CSV format `format` names, or with "auto" the first whose required columns the header
// `names` has (the header `line` is quoted when none does).
absl::StatusOr<const CsvFormat*> ChooseCsvFormat(const std::string& format, const std::vector<std::string>& names,
                                                 absl::string_view line, const std::string& path) {
  const CsvFormat* chosen = nullptr;
  if (format == "auto") {
    for (const CsvFormat& f : CsvFormats()) {
      if (chosen == nullptr && HasRequired(f, names)) chosen = &f;
    }
    if (chosen == nullptr) {
      const std::string shown = ShowField(line);
      if (LooksLikeData(names[0])) {
        return absl::InvalidArgumentError(absl::StrCat(
            path, ":1:1: the first line ", shown, " is data, not a header: add the header line of its format, one of: ",
            KnownHeaders(), " (or force one with --trace-format)"));
      }
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":1:1: unrecognized trace header ", shown, "; expected one of: ", KnownHeaders()));
    }
  } else {
    for (const CsvFormat& f : CsvFormats()) {
      if (f.name == format) chosen = &f;
    }
  }
  return chosen;
}

}  // namespace

absl::StatusOr<std::unique_ptr<RequestSource>> OpenTrace(const std::string& path, const TraceOptions& options,
                                                         TraceReadStats* stats) {
  if (absl::Status s = CheckFormatName(options.format); !s.ok()) return s;
  // Header warnings go to the caller's stats; with none, nobody would read them.
  TraceReadStats local;
  TraceReadStats* header_stats = stats != nullptr ? stats : &local;

  absl::StatusOr<std::unique_ptr<LineReader>> reader = LineReader::Open(path, options.max_line_bytes);
  if (!reader.ok()) return reader.status();
  absl::string_view line;
  if (absl::Status s = ReadFirstLine(**reader, path, options, &line); !s.ok()) return s;
  const absl::string_view trimmed = TrimBlanks(line);
  const bool json = !trimmed.empty() && trimmed[0] == '{';
  if (options.format == "mooncake" || (options.format == "auto" && json)) {
    header_stats->format = "mooncake";
    return std::unique_ptr<RequestSource>(new MooncakeTraceSource(*std::move(reader), options, stats, line));
  }
  if (json) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ":1:1: the first line is a JSON object, not a header of the ", options.format,
                     " format: this looks like a Mooncake trace (--trace-format=mooncake or auto)"));
  }
  std::vector<CsvField> fields;
  std::deque<std::string> storage;
  CsvSplitError split_error;
  if (!SplitCsvLine(line, &fields, &storage, &split_error)) {
    return CsvLineError(path, 1, absl::StrCat("header: ", split_error.message), split_error.column);
  }
  std::vector<std::string> names;
  for (const CsvField& f : fields) names.emplace_back(TrimBlanks(f.text));

  absl::StatusOr<const CsvFormat*> chosen = ChooseCsvFormat(options.format, names, line, path);
  if (!chosen.ok()) return chosen.status();
  header_stats->format = std::string((*chosen)->name);
  absl::StatusOr<CsvLayout> layout = BuildLayout(**chosen, names, path, header_stats);
  if (!layout.ok()) return layout.status();
  if (!options.model_filter.empty() && layout->model < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": --model-filter needs a Model column, and this ", (*chosen)->name, " trace has none"));
  }
  return std::unique_ptr<RequestSource>(new CsvTraceSource(*std::move(reader), options, stats, *std::move(layout)));
}

}  // namespace infergrid
