// Human-readable numbers for the terminal tables. Every memory figure says its unit
// (base/units.h: GB = 1e9 bytes, GiB = 2^30 bytes).
#ifndef INFERGRID_SIM_APP_FORMAT_UNITS_H_
#define INFERGRID_SIM_APP_FORMAT_UNITS_H_

#include <string>

#include "base/units.h"

namespace infergrid::format {

// Fixed-point with `decimals` digits ("16.00").
std::string Fixed(double value, int decimals);
// An integer-valued quantity with thousands separators ("16,000,000,000").
std::string Grouped(double value);
// A duration with an adaptive unit ("5.097 ms", "20.5 us").
std::string Duration(double seconds);
// Scientific with 2 decimals ("8.00e9").
std::string Scientific(double value);
// A fraction as a percentage with `decimals` digits ("40.4%").
std::string Percent(double fraction, int decimals = 1);

}  // namespace infergrid::format

#endif  // INFERGRID_SIM_APP_FORMAT_UNITS_H_
