#include "base/decimal_number.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"

namespace infergrid {
namespace {

bool IsDigit(char c) { return absl::ascii_isdigit(static_cast<unsigned char>(c)); }

}  // namespace

bool IsDecimalNumber(absl::string_view text, bool fraction) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  size_t digits = 0;
  while (i < text.size() && IsDigit(text[i])) ++i, ++digits;
  if (!fraction) return digits > 0 && i == text.size();
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && IsDigit(text[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    size_t exponent = 0;
    while (i < text.size() && IsDigit(text[i])) ++i, ++exponent;
    if (exponent == 0) return false;
  }
  return i == text.size();
}

bool ParseDecimal(absl::string_view text, double* value, std::string* reason) {
  text = absl::StripAsciiWhitespace(text);
  if (!IsDecimalNumber(text, true)) {
    if (reason != nullptr) *reason = "not a decimal number (digits, an optional fraction and exponent)";
    return false;
  }
  double parsed = 0;
  const bool overflow = !absl::SimpleAtod(text, &parsed) || !std::isfinite(parsed);
  // A mantissa with a digit other than 0 that reads as 0 has underflowed.
  const absl::string_view mantissa = text.substr(0, text.find_first_of("eE"));
  const bool underflow = parsed == 0 && mantissa.find_first_of("123456789") != absl::string_view::npos;
  if (overflow || underflow) {
    if (reason != nullptr) *reason = "out of range (a double holds magnitudes from 4.9e-324 to 1.8e308)";
    return false;
  }
  *value = parsed;
  return true;
}

}  // namespace infergrid
