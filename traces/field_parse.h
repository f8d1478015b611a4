// Parsing one text field of a trace row into a number, with the failure classified: a reason
// key (counted under --on-bad-row=skip) and a message saying what was expected and what was
// found. No allocation on success: these run once per field of every row.
#ifndef INFERGRID_TRACES_FIELD_PARSE_H_
#define INFERGRID_TRACES_FIELD_PARSE_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace infergrid {

// Why a row was rejected or dropped. `reason` is a short stable key ("not_a_number",
// "negative", ...); `column` is 1-based within the line (0: the whole line).
struct RowProblem {
  std::string reason;
  int column = 0;
  std::string message;
};

// The largest timestamp magnitude a trace row may have, in seconds (2^32 s, 136 years): beyond
// it seconds held as doubles no longer resolve a microsecond. Rows past it are out_of_range.
inline constexpr double kMaxTimestampS = 4294967296.0;

// Stable reason keys.
namespace reason {
inline constexpr absl::string_view kColumns = "columns";  // wrong number of fields
inline constexpr absl::string_view kEmptyField = "empty_field";
inline constexpr absl::string_view kNotANumber = "not_a_number";
inline constexpr absl::string_view kNotAnInteger = "not_an_integer";
inline constexpr absl::string_view kNegative = "negative";
inline constexpr absl::string_view kNotFinite = "not_finite";  // NaN or infinity
inline constexpr absl::string_view kOverflow = "overflow";  // past int64 / double range
inline constexpr absl::string_view kOutOfRange = "out_of_range";  // fits int64, not the field
inline constexpr absl::string_view kZeroTokens = "zero_tokens";
inline constexpr absl::string_view kBadTimestamp = "bad_timestamp";
inline constexpr absl::string_view kOutOfOrder = "out_of_order";
inline constexpr absl::string_view kLineTooLong = "line_too_long";
inline constexpr absl::string_view kInvalidUtf8 = "invalid_utf8";
inline constexpr absl::string_view kBadQuote = "bad_quote";
inline constexpr absl::string_view kBadEscape = "bad_escape";
inline constexpr absl::string_view kJsonSyntax = "json_syntax";
inline constexpr absl::string_view kNotAnObject = "not_an_object";
inline constexpr absl::string_view kTooDeep = "too_deep";
inline constexpr absl::string_view kMissingKey = "missing_key";
inline constexpr absl::string_view kDuplicateKey = "duplicate_key";
inline constexpr absl::string_view kWrongType = "wrong_type";
inline constexpr absl::string_view kBlankLine = "blank_line";
inline constexpr absl::string_view kFailedRequest = "failed_request";  // BurstGPT, 0 response
inline constexpr absl::string_view kModelFilter = "model_filter";
}  // namespace reason

// A field shown in a message: quoted, escaped, cut to 40 bytes.
std::string ShowField(absl::string_view text);

// Strips ASCII spaces and tabs at both ends.
absl::string_view TrimBlanks(absl::string_view text);

// A decimal integer in [minimum, maximum]. `what` names the quantity in messages.
bool ParseInteger(absl::string_view text, int64_t minimum, int64_t maximum, absl::string_view what, int64_t* value,
                  RowProblem* problem);

// A token count: an integer in [0, 2^31 - 1].
bool ParseTokenCount(absl::string_view text, absl::string_view what, int32_t* value, RowProblem* problem);

// An unsigned 64-bit integer (hash ids).
bool ParseUint64(absl::string_view text, absl::string_view what, uint64_t* value, RowProblem* problem);

// A finite decimal number >= 0 (seconds or milliseconds).
bool ParseNonNegativeReal(absl::string_view text, absl::string_view what, double* value, RowProblem* problem);

// True when `text` is well-formed UTF-8 (no overlongs, surrogates or code points > U+10FFFF);
// otherwise `*bad_offset` is the offset of the first bad byte.
bool IsValidUtf8(absl::string_view text, size_t* bad_offset);

}  // namespace infergrid

#endif  // INFERGRID_TRACES_FIELD_PARSE_H_
