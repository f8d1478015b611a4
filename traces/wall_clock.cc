#include "traces/wall_clock.h"

#include "absl/strings/str_cat.h"

namespace infergrid {
namespace {

constexpr absl::string_view kExpected =
    "expected a time like 2023-11-16 18:15:46.6805900 or 2024-05-10 00:00:00.012345+00:00";

bool Fail(absl::string_view text, size_t at, absl::string_view what, RowProblem* problem) {
  problem->reason = std::string(reason::kBadTimestamp);
  problem->column = static_cast<int>(at);
  problem->message = absl::StrCat("timestamp ", ShowField(text), ": ", what, " (", kExpected, ")");
  return false;
}

// Reads exactly `n` digits at text[*at].
bool Digits(absl::string_view text, size_t* at, size_t n, int* value) {
  if (*at + n > text.size()) return false;
  int v = 0;
  for (size_t k = 0; k < n; ++k) {
    const unsigned d = static_cast<unsigned char>(text[*at + k]) - '0';
    if (d > 9) return false;
    v = v * 10 + static_cast<int>(d);
  }
  *at += n;
  *value = v;
  return true;
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int64_t y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

}  // namespace

int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool ParseWallClockNs(absl::string_view text, int64_t* ns, RowProblem* problem) {
  size_t at = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  auto expect = [&](char c) {
    if (at < text.size() && text[at] == c) {
      ++at;
      return true;
    }
    return false;
  };
  if (!Digits(text, &at, 4, &year)) return Fail(text, at, "bad year", problem);
  if (!expect('-') || !Digits(text, &at, 2, &month)) return Fail(text, at, "bad month", problem);
  if (!expect('-') || !Digits(text, &at, 2, &day)) return Fail(text, at, "bad day", problem);
  if (!expect(' ') && !expect('T')) return Fail(text, at, "expected ' ' or 'T' after the date", problem);
  if (!Digits(text, &at, 2, &hour)) return Fail(text, at, "bad hour", problem);
  if (!expect(':') || !Digits(text, &at, 2, &minute)) return Fail(text, at, "bad minute", problem);
  if (!expect(':') || !Digits(text, &at, 2, &second)) return Fail(text, at, "bad second", problem);
  if (year < 1900 || year > 2200) return Fail(text, 0, "year outside 1900..2200", problem);
  if (month < 1 || month > 12) return Fail(text, 5, "month outside 1..12", problem);
  if (day < 1 || day > DaysInMonth(year, month)) return Fail(text, 8, "no such day in that month", problem);
  if (hour > 23) return Fail(text, 11, "hour outside 0..23", problem);
  if (minute > 59) return Fail(text, 14, "minute outside 0..59", problem);
  if (second > 60) return Fail(text, 17, "second outside 0..60", problem);  // 60: leap second
  int64_t fraction_ns = 0;
  if (at < text.size() && text[at] == '.') {
    ++at;
    const size_t start = at;
    int64_t scale = 100'000'000;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      if (at - start >= 9) return Fail(text, at, "more than 9 fractional digits", problem);
      fraction_ns += (text[at] - '0') * scale;
      scale /= 10;
      ++at;
    }
    if (at == start) return Fail(text, at, "no digits after '.'", problem);
  }
  int64_t offset_s = 0;
  if (at < text.size()) {
    if (text[at] == 'Z') {
      ++at;
    } else if (text[at] == '+' || text[at] == '-') {
      const int sign = text[at] == '-' ? -1 : 1;
      ++at;
      int oh = 0, om = 0;
      if (!Digits(text, &at, 2, &oh)) return Fail(text, at, "bad UTC offset hours", problem);
      if (at < text.size() && text[at] == ':') ++at;
      if (!Digits(text, &at, 2, &om)) return Fail(text, at, "bad UTC offset minutes", problem);
      if (oh > 23 || om > 59) return Fail(text, at - 2, "UTC offset out of range", problem);
      offset_s = sign * (oh * 3600 + om * 60);
    }
  }
  if (at != text.size()) return Fail(text, at, "unexpected characters", problem);
  const int64_t seconds = DaysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  *ns = seconds * 1'000'000'000 + fraction_ns;
  return true;
}

}  // namespace infergrid
