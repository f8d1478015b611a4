// Flag values as text. A flag's value is held as canonical text (Abseil's flag marshalling:
// absl::UnparseFlag of the parsed value: "0.9", "true"), so command lines can be laid over one
// another (compare's A and B over the shared flags, a sweep point over its base) before they
// are read into typed structs. Numbers must be spelled in decimal: Abseil's parsers also take
// hexadecimal (0x10 = 16), "inf" and "nan", which no flag means.
#ifndef INFERGRID_SIM_APP_CLI_FLAG_VALUE_TEXT_H_
#define INFERGRID_SIM_APP_CLI_FLAG_VALUE_TEXT_H_

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/flags/marshalling.h"
#include "absl/strings/string_view.h"
#include "base/decimal_number.h"

namespace infergrid::cli {

// Parse, Unparse and Canonical for one scalar flag type.
template <typename T>
struct FlagText {
  static_assert(std::is_same_v<T, bool> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
                    std::is_same_v<T, uint64_t> || std::is_same_v<T, double> || std::is_same_v<T, std::string>,
                "flag types: bool, int32_t, int64_t, uint64_t, double, std::string");

  // Parses `text` into *value; false with Abseil's reason (or the decimal rule) otherwise.
  static bool Parse(absl::string_view text, T* value, std::string* error = nullptr) {
    std::string ignored;
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      constexpr bool kInteger = std::is_integral_v<T>;
      if constexpr (kInteger) {
        if (!IsDecimalNumber(text, false)) {
          if (error != nullptr) *error = "not a decimal integer";
          return false;
        }
        if (!absl::ParseFlag(text, value, &ignored)) {
          if (error != nullptr) {
            *error = std::is_unsigned_v<T> ? "out of range for an unsigned 64-bit integer"
                     : sizeof(T) == 4      ? "out of range for a 32-bit integer"
                                           : "out of range for a 64-bit integer";
          }
          return false;
        }
        return true;
      } else {
        // One parse for every decimal (base/decimal_number.h): 1e309 is refused, not read as inf;
        // no blanks around it either.
        if (!IsDecimalNumber(text, true)) {
          if (error != nullptr) *error = "not a decimal number (digits, an optional fraction and exponent)";
          return false;
        }
        return ParseDecimal(text, value, error == nullptr ? &ignored : error);
      }
    }
    return absl::ParseFlag(text, value, error == nullptr ? &ignored : error);
  }
  static std::string Unparse(const T& value) { return absl::UnparseFlag(value); }
  static bool Canonical(absl::string_view text, std::string* canonical, std::string* error) {
    T value{};
    if (!Parse(text, &value, error)) return false;
    *canonical = Unparse(value);
    return true;
  }
};

// A list of integers: "1,8,16" (canonical: no blanks).
struct IntegerListText {
  static bool Parse(absl::string_view text, std::vector<int64_t>* values, std::string* error = nullptr);
  static std::string Unparse(const std::vector<int64_t>& values);
  static bool Canonical(absl::string_view text, std::string* canonical, std::string* error);
};

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_FLAG_VALUE_TEXT_H_
