// Appends numbers to a CSV row (or any text the output writers build) without printf: integers
// and fixed-point doubles through std::to_chars, which the standard defines to print exactly
// what printf("%d") and printf("%.Nf") print in the C locale. Writers call these once per field
// of every iteration, so they must not allocate beyond the growing buffer nor parse a format
// string.
#ifndef INFERGRID_SIM_OUTPUT_CSV_APPEND_H_
#define INFERGRID_SIM_OUTPUT_CSV_APPEND_H_

#include <charconv>
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
inline void AppendFixedText(std::string* out, double value, int precision) {
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

#endif  // INFERGRID_SIM_OUTPUT_CSV_APPEND_H_
