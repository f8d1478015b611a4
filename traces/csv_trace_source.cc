#include "traces/csv_trace_source.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "traces/wall_clock.h"

namespace infergrid {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr size_t kMaxModelsRemembered = 32;

// A row with another number of fields than the header is bad (reason columns).
bool CheckColumnCount(const CsvLayout& layout, const std::vector<CsvField>& fields, RowProblem* problem) {
  if (static_cast<int>(fields.size()) == layout.num_columns) return true;
  problem->reason = std::string(reason::kColumns);
  problem->column =
      static_cast<int>(fields.size()) > layout.num_columns ? fields[static_cast<size_t>(layout.num_columns)].column : 0;
  problem->message = absl::StrCat("expected ", layout.num_columns, " fields (", absl::StrJoin(layout.names, ","),
                                  "), got ", fields.size());
  return false;
}

// The row's time, in the layout's unit (none: nothing to parse).
bool ParseRowTime(const CsvLayout& layout, const std::vector<CsvField>& fields, RowTime* time, RowProblem* problem) {
  auto at = [&](int index) -> const CsvField& { return fields[static_cast<size_t>(index)]; };
  const std::string& time_name = layout.time >= 0 ? layout.names[static_cast<size_t>(layout.time)] : "";
  time->kind = layout.time_kind;
  if (layout.time >= 0) time->column = at(layout.time).column;
  if (layout.time_kind == RowTime::Kind::kWallClockNs) {
    if (!ParseWallClockNs(TrimBlanks(at(layout.time).text), &time->ns, problem)) {
      problem->column += at(layout.time).column;
      return false;
    }
  } else if (layout.time_kind == RowTime::Kind::kSeconds) {
    if (!ParseNonNegativeReal(at(layout.time).text, time_name, &time->value, problem)) {
      problem->column = at(layout.time).column;
      return false;
    }
  }
  return true;
}

bool ParsePriority(const CsvField& field, int32_t* priority, RowProblem* problem) {
  int64_t value = 0;
  if (!ParseInteger(field.text, INT32_MIN, INT32_MAX, "priority", &value, problem)) {
    problem->column = field.column;
    return false;
  }
  *priority = static_cast<int32_t>(value);
  return true;
}

// The space-separated block hashes of `field`, appended to `hashes`.
bool ParseBlockHashes(const CsvField& field, std::vector<uint64_t>* hashes, RowProblem* problem) {
  absl::string_view rest = field.text;
  size_t offset = 0;
  while (true) {
    while (offset < rest.size() && rest[offset] == ' ') ++offset;
    if (offset == rest.size()) return true;
    size_t stop = rest.find(' ', offset);
    if (stop == absl::string_view::npos) stop = rest.size();
    uint64_t hash = 0;
    if (!ParseUint64(rest.substr(offset, stop - offset), "block hash", &hash, problem)) {
      problem->column = field.column + static_cast<int>(offset);
      return false;
    }
    hashes->push_back(hash);
    offset = stop;
  }
}

}  // namespace

std::string PercentEncode(absl::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '%' || c == ',' || c == '"' || u < 0x20 || u == 0x7F) {
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

CsvTraceSource::CsvTraceSource(std::unique_ptr<LineReader> reader, const TraceOptions& options, TraceReadStats* stats,
                               CsvLayout layout)
    : LineTraceSource(std::move(reader), options, stats, layout.format, false, ""), layout_(std::move(layout)) {
  fields_.reserve(static_cast<size_t>(layout_.num_columns) + 1);
}

bool CsvTraceSource::ParseText(const CsvField& field, std::string* out, RowProblem* problem) {
  absl::string_view text = field.text;
  if (layout_.percent_decode && text.find('%') != absl::string_view::npos) {
    out->clear();
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] != '%') {
        out->push_back(text[i]);
        continue;
      }
      const bool room = i + 2 < text.size();
      const int hi = room ? HexValue(text[i + 1]) : -1;
      const int lo = room ? HexValue(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        problem->reason = std::string(reason::kBadEscape);
        problem->column = field.column + static_cast<int>(i);
        problem->message = "'%' in a text field must be followed by two hex digits";
        return false;
      }
      out->push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    }
  } else {
    out->assign(text.data(), text.size());
  }
  size_t bad = 0;
  if (!IsValidUtf8(*out, &bad)) {
    problem->reason = std::string(reason::kInvalidUtf8);
    problem->column = field.column + static_cast<int>(std::min(bad, field.text.size()));
    problem->message = absl::StrCat("invalid UTF-8 in a text field: ", ShowField(*out));
    return false;
  }
  return true;
}

bool CsvTraceSource::ParseOptionalText(int column, std::string* out, RowProblem* problem) {
  if (column >= 0) return ParseText(fields_[static_cast<size_t>(column)], out, problem);
  out->clear();
  return true;
}

LineTraceSource::RowOutcome CsvTraceSource::ParseRow(absl::string_view line, Request* request, RowTime* time,
                                                     RowProblem* problem) {
  if (!SplitCsvLine(line, &fields_, &storage_, &split_error_)) {
    problem->reason = std::string(reason::kBadQuote);
    problem->column = split_error_.column;
    problem->message = split_error_.message;
    return RowOutcome::kBad;
  }
  if (!CheckColumnCount(layout_, fields_, problem)) return RowOutcome::kBad;
  auto at = [&](int index) -> const CsvField& { return fields_[static_cast<size_t>(index)]; };
  auto fail = [&](int index) {
    problem->column = at(index).column;
    return RowOutcome::kBad;
  };
  if (!ParseRowTime(layout_, fields_, time, problem)) return RowOutcome::kBad;
  const std::string& in_name = layout_.names[static_cast<size_t>(layout_.input)];
  const std::string& out_name = layout_.names[static_cast<size_t>(layout_.output)];
  if (!ParseTokenCount(at(layout_.input).text, in_name, &request->input_tokens, problem)) {
    return fail(layout_.input);
  }
  if (!ParseTokenCount(at(layout_.output).text, out_name, &request->output_tokens, problem)) {
    return fail(layout_.output);
  }
  if (!ParseOptionalText(layout_.model, &request->model, problem)) return RowOutcome::kBad;
  if (!options().model_filter.empty() && layout_.model >= 0 && request->model != options().model_filter) {
    if (models_seen_.size() < kMaxModelsRemembered) models_seen_.insert(request->model);
    problem->reason = std::string(reason::kModelFilter);
    problem->message = "another model";
    return RowOutcome::kDrop;
  }
  if (layout_.total >= 0) {
    int64_t total = 0;
    if (!ParseInteger(at(layout_.total).text, 0, int64_t{1} << 40, layout_.names[static_cast<size_t>(layout_.total)],
                      &total, problem)) {
      return fail(layout_.total);
    }
    if (total != int64_t{request->input_tokens} + request->output_tokens) {
      if (total_mismatches_++ == 0) first_mismatch_line_ = request->id + 1;
    }
  }
  if (layout_.zero_output_is_failure && request->output_tokens == 0) {
    problem->reason = std::string(reason::kFailedRequest);
    problem->message = "failed request (0 response tokens)";
    return RowOutcome::kDrop;
  }
  if (request->input_tokens == 0 || request->output_tokens == 0) {
    problem->reason = std::string(reason::kZeroTokens);
    problem->message =
        absl::StrCat(request->input_tokens == 0 ? in_name : out_name, ": expected at least 1 token, got 0");
    return fail(request->input_tokens == 0 ? layout_.input : layout_.output);
  }
  if (!ParseOptionalText(layout_.log_type, &request->log_type, problem)) return RowOutcome::kBad;
  if (!ParseOptionalText(layout_.session, &request->session, problem)) return RowOutcome::kBad;
  request->priority = 0;
  if (layout_.priority >= 0 && !TrimBlanks(at(layout_.priority).text).empty() &&
      !ParsePriority(at(layout_.priority), &request->priority, problem)) {
    return RowOutcome::kBad;
  }
  request->prefix_block_hashes.clear();
  if (layout_.block_hashes >= 0 &&
      !ParseBlockHashes(at(layout_.block_hashes), &request->prefix_block_hashes, problem)) {
    return RowOutcome::kBad;
  }
  return RowOutcome::kRequest;
}

void CsvTraceSource::Finish(TraceReadStats* stats) {
  if (total_mismatches_ > 0) {
    stats->warnings.push_back(absl::StrCat(
        total_mismatches_, " rows have ", layout_.names[static_cast<size_t>(layout_.total)], " different from ",
        layout_.names[static_cast<size_t>(layout_.input)], " + ", layout_.names[static_cast<size_t>(layout_.output)],
        " (kept; the two counts are used), the first at request ", first_mismatch_line_ - 1));
  }
  if (layout_.time_kind == RowTime::Kind::kNone && stats->rows > 0) {
    stats->warnings.push_back(
        absl::StrCat(kNoTimestampsWarning,
                     ": every arrival is 0; simulate --trace=FILE gives the rows in order an "
                     "arrival process (--arrival, --rate), simulate --lengths=FILE resamples them"));
  }
}

std::string CsvTraceSource::NoRequestHint() const {
  if (options().model_filter.empty() || models_seen_.empty()) return "";
  return absl::StrCat("; --model-filter=", options().model_filter,
                      " matched no row (models seen: ", absl::StrJoin(models_seen_, ", "), ")");
}

}  // namespace infergrid
