// Wall-clock timestamps as the Azure LLM inference traces write them:
// "2023-11-16 18:15:46.6805900" (2023: 7 fractional digits, no zone) and
// "2024-05-10 00:00:00.012345+00:00" (2024: microseconds and a UTC offset), mixed freely.
// A zone-less time is taken as UTC; an offset (+HH:MM, -HH:MM, Z) is applied. 'T' may replace
// the space. Up to 9 fractional digits (nanoseconds) are kept exactly.
#ifndef INFERGRID_TRACES_WALL_CLOCK_H_
#define INFERGRID_TRACES_WALL_CLOCK_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "traces/field_parse.h"

namespace infergrid {

// Nanoseconds since 1970-01-01T00:00:00Z. Years 1900..2200 (so that nanoseconds fit int64).
// On failure `problem` says which part is wrong (reason bad_timestamp) and `problem->column` is
// the 0-based offset of the bad character within `text`.
bool ParseWallClockNs(absl::string_view text, int64_t* ns, RowProblem* problem);

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t year, int month, int day);

}  // namespace infergrid

#endif  // INFERGRID_TRACES_WALL_CLOCK_H_
