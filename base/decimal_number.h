// One spelling of a number wherever a person types one (flags, lists in flags, SLO terms,
// prices, sizes): decimal digits with an optional sign and, for a real number, an optional
// fraction and exponent ("12", "-0.5", ".5e3"). Not hexadecimal, "inf" or "nan", which
// Abseil's and the C library's parsers also take (absl::SimpleAtod("0x10") is 16).
#ifndef INFERGRID_BASE_DECIMAL_NUMBER_H_
#define INFERGRID_BASE_DECIMAL_NUMBER_H_

#include <string>

#include "absl/strings/string_view.h"

namespace infergrid {

// Whether `text` is a decimal integer (`fraction` false) or real number (true).
bool IsDecimalNumber(absl::string_view text, bool fraction);

// A finite decimal real number in `text` (surrounding ASCII blanks allowed); false otherwise,
// with the reason in `*reason` when given: not a decimal number, or out of a double's range
// (1e309 would be infinite, 1e-400 zero: neither is what was written).
bool ParseDecimal(absl::string_view text, double* value, std::string* reason = nullptr);

}  // namespace infergrid

#endif  // INFERGRID_BASE_DECIMAL_NUMBER_H_
