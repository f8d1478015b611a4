#include "traces/field_parse.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace infergrid {
namespace {

void SetProblem(RowProblem* problem, absl::string_view reason, std::string message) {
  problem->reason = std::string(reason);
  problem->message = std::move(message);
}

bool LooksNonFinite(absl::string_view text) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  return absl::EqualsIgnoreCase(text, "nan") || absl::EqualsIgnoreCase(text, "inf") ||
         absl::EqualsIgnoreCase(text, "infinity");
}

// Classifies text that is not a plain decimal integer.
void IntegerProblem(absl::string_view text, absl::string_view what, RowProblem* problem) {
  if (text.empty()) {
    SetProblem(problem, reason::kEmptyField, absl::StrCat(what, ": expected an integer, got an empty field"));
    return;
  }
  if (LooksNonFinite(text)) {
    SetProblem(problem, reason::kNotFinite, absl::StrCat(what, ": expected a finite integer, got ", ShowField(text)));
    return;
  }
  double as_real = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), as_real);
  if (ec == std::errc() && ptr == text.data() + text.size()) {
    SetProblem(problem, reason::kNotAnInteger, absl::StrCat(what, ": expected an integer, got ", ShowField(text)));
    return;
  }
  SetProblem(problem, reason::kNotANumber, absl::StrCat(what, ": expected an integer, got ", ShowField(text)));
}

}  // namespace

std::string ShowField(absl::string_view text) {
  constexpr size_t kShown = 40;
  const bool cut = text.size() > kShown;
  return absl::StrCat("'", absl::CHexEscape(text.substr(0, kShown)), cut ? "...'" : "'");
}

absl::string_view TrimBlanks(absl::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool ParseInteger(absl::string_view text, int64_t minimum, int64_t maximum, absl::string_view what, int64_t* value,
                  RowProblem* problem) {
  text = TrimBlanks(text);
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (!text.empty() && text[0] == '+') ++first;  // from_chars rejects a leading '+'
  int64_t parsed = 0;
  const auto [ptr, ec] = std::from_chars(first, last, parsed);
  if (ec == std::errc::result_out_of_range) {
    // All digits, but past int64: the overflow class, not "not a number".
    SetProblem(problem, reason::kOverflow, absl::StrCat(what, ": ", ShowField(text), " overflows a 64-bit integer"));
    return false;
  }
  if (ec != std::errc() || ptr != last || first == last) {
    IntegerProblem(text, what, problem);
    return false;
  }
  if (parsed < minimum) {
    SetProblem(problem, parsed < 0 && minimum >= 0 ? reason::kNegative : reason::kOutOfRange,
               absl::StrCat(what, ": expected at least ", minimum, ", got ", parsed));
    return false;
  }
  if (parsed > maximum) {
    SetProblem(problem, reason::kOutOfRange, absl::StrCat(what, ": expected at most ", maximum, ", got ", parsed));
    return false;
  }
  *value = parsed;
  return true;
}

bool ParseTokenCount(absl::string_view text, absl::string_view what, int32_t* value, RowProblem* problem) {
  // Fast path: 1 to 9 plain digits, no sign, no blanks: the common case of every CSV row.
  if (!text.empty() && text.size() <= 9) {
    int32_t v = 0;
    bool digits = true;
    for (char c : text) {
      const unsigned d = static_cast<unsigned char>(c) - '0';
      if (d > 9) {
        digits = false;
        break;
      }
      v = v * 10 + static_cast<int32_t>(d);
    }
    if (digits) {
      *value = v;
      return true;
    }
  }
  int64_t wide = 0;
  if (!ParseInteger(text, 0, std::numeric_limits<int32_t>::max(), what, &wide, problem)) {
    return false;
  }
  *value = static_cast<int32_t>(wide);
  return true;
}

bool ParseUint64(absl::string_view text, absl::string_view what, uint64_t* value, RowProblem* problem) {
  text = TrimBlanks(text);
  if (!text.empty() && text[0] == '-') {
    int64_t ignored = 0;
    if (ParseInteger(text, std::numeric_limits<int64_t>::min(), -1, what, &ignored, problem)) {
      SetProblem(problem, reason::kNegative,
                 absl::StrCat(what, ": expected a non-negative integer, got ", ShowField(text)));
    }
    return false;
  }
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  if (ec == std::errc::result_out_of_range) {
    SetProblem(problem, reason::kOverflow,
               absl::StrCat(what, ": ", ShowField(text), " overflows a 64-bit unsigned integer"));
    return false;
  }
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
    IntegerProblem(text, what, problem);
    return false;
  }
  return true;
}

bool ParseNonNegativeReal(absl::string_view text, absl::string_view what, double* value, RowProblem* problem) {
  text = TrimBlanks(text);
  if (text.empty()) {
    SetProblem(problem, reason::kEmptyField, absl::StrCat(what, ": expected a number, got an empty field"));
    return false;
  }
  const char* first = text.data();
  if (text[0] == '+') ++first;
  const auto [ptr, ec] = std::from_chars(first, text.data() + text.size(), *value);
  if (ec == std::errc::result_out_of_range) {
    SetProblem(problem, reason::kOverflow,
               absl::StrCat(what, ": ", ShowField(text), " is out of the range of a double"));
    return false;
  }
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    SetProblem(problem, reason::kNotANumber, absl::StrCat(what, ": expected a number, got ", ShowField(text)));
    return false;
  }
  if (!std::isfinite(*value)) {
    SetProblem(problem, reason::kNotFinite, absl::StrCat(what, ": expected a finite number, got ", ShowField(text)));
    return false;
  }
  if (*value < 0) {
    SetProblem(problem, reason::kNegative,
               absl::StrCat(what, ": expected a non-negative number, got ", ShowField(text)));
    return false;
  }
  return true;
}

bool IsValidUtf8(absl::string_view text, size_t* bad_offset) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      *bad_offset = i;
      return false;
    }
    if (i + len > n) {
      *bad_offset = i;
      return false;
    }
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) {
        *bad_offset = i;
        return false;
      }
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    const uint32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for_len[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      *bad_offset = i;
      return false;
    }
    i += len;
  }
  return true;
}

}  // namespace infergrid
