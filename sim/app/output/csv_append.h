// Appends numbers to a CSV row (or any text the output writers build) without printf: integers
// and fixed-point doubles through std::to_chars, which the standard defines to print exactly
// what printf("%d") and printf("%.Nf") print in the C locale. Writers call these once per field
// of every iteration, so they must not allocate beyond the growing buffer nor parse a format
// string.
#ifndef INFERGRID_SIM_APP_OUTPUT_CSV_APPEND_H_
#define INFERGRID_SIM_APP_OUTPUT_CSV_APPEND_H_

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace infergrid {

// `value` alone (printf "%d").
inline void AppendIntText(std::string* out, int64_t value) {
  char buffer[24];
  const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, r.ptr);
}

// `value` alone with `precision` digits after the point (printf "%.{precision}f").
// Fast path, exact: for 0 <= value < 2^53 and precision <= 9, the integer part i = floor(value)
// and the fraction f = value - i are exact doubles, and f x 10^precision (< 10^9) is computed
// with an error below 2^-23; when that product is not within 1e-6 of a rounding tie, rounding
// it gives exactly the digits printf rounds the exact value to. Anything else (ties, negative,
// -0, huge, NaN) goes through std::to_chars, which the standard defines to match printf.
inline void AppendFixedText(std::string* out, double value, int precision) {
  static constexpr double kScale[10] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
  if (!std::signbit(value) && value < 9007199254740992.0 && precision >= 1 && precision <= 9) {
    const double whole = std::floor(value);
    const double scaled = (value - whole) * kScale[precision];
    const double below = std::floor(scaled);
    const double distance_to_tie = scaled - below - 0.5;
    if (distance_to_tie > 1e-6 || distance_to_tie < -1e-6) {
      auto digits = static_cast<uint64_t>(below) + (distance_to_tie > 0 ? 1 : 0);
      auto integer = static_cast<uint64_t>(whole);
      if (digits == static_cast<uint64_t>(kScale[precision])) {  // .999...95 rounds up
        digits = 0;
        ++integer;
      }
      char buffer[32];
      char* end = std::to_chars(buffer, buffer + 20, integer).ptr;
      *end++ = '.';
      for (int i = precision - 1; i >= 0; --i) {
        end[i] = static_cast<char>('0' + digits % 10);
        digits /= 10;
      }
      out->append(buffer, end + precision);
      return;
    }
  }
  char buffer[352];  // the largest double in fixed notation: 309 digits, point and 9 decimals
  const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof(buffer), value,
                                               std::chars_format::fixed, precision);
  out->append(buffer, r.ptr);
}

// `value` then `separator`.
inline void AppendInt(std::string* out, int64_t value, char separator = ',') {
  AppendIntText(out, value);
  out->push_back(separator);
}

// `value` with `precision` digits after the point then `separator`.
inline void AppendFixed(std::string* out, double value, int precision, char separator = ',') {
  AppendFixedText(out, value, precision);
  out->push_back(separator);
}

inline void AppendField(std::string* out, absl::string_view text, char separator = ',') {
  out->append(text.data(), text.size());
  out->push_back(separator);
}

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_CSV_APPEND_H_
