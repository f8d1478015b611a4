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

bool ParseDecimal(absl::string_view text, double* value) {
  text = absl::StripAsciiWhitespace(text);
  return IsDecimalNumber(text, true) && absl::SimpleAtod(text, value) && std::isfinite(*value);
}

}  // namespace infergrid
