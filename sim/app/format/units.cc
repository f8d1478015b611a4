#include "sim/app/format/units.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace infergrid::format {

std::string Fixed(double value, int decimals) { return absl::StrFormat("%.*f", decimals, value); }

std::string Grouped(double value) {
  const bool negative = value < 0;
  std::string digits = absl::StrFormat("%.0f", std::fabs(value));
  std::string out;
  const int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    out.push_back(digits[i]);
    if ((n - i - 1) % 3 == 0 && i != n - 1) out.push_back(',');
  }
  return negative ? "-" + out : out;
}

std::string Duration(double seconds) {
  const double s = std::fabs(seconds);
  if (s >= 1.0) return absl::StrFormat("%.3f s", seconds);
  if (s >= 1e-3) return absl::StrFormat("%.3f ms", seconds * 1e3);
  return absl::StrFormat("%.3f us", seconds * 1e6);
}

std::string Scientific(double value) {
  if (value == 0) return "0";
  int exponent = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  // A mantissa that rounds up to 10.00 (999,999,999) is 1.00 of the next power.
  if (std::fabs(value) / std::pow(10.0, exponent) >= 9.995) ++exponent;
  return absl::StrFormat("%.2fe%d", value / std::pow(10.0, exponent), exponent);
}

std::string Percent(double fraction, int decimals) { return absl::StrCat(Fixed(100 * fraction, decimals), "%"); }

}  // namespace infergrid::format
