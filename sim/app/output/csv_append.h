// Appends numbers to a CSV row (or any text the output writers build) without printf: integers
// and fixed-point doubles through std::to_chars, which the standard defines to print exactly
// what printf("%d") and printf("%.Nf") print in the C locale. Writers call these once per field
// of every iteration, so they must not allocate beyond the growing buffer nor parse a format
// string.
#ifndef INFERGRID_SIM_APP_OUTPUT_CSV_APPEND_H_
#define INFERGRID_SIM_APP_OUTPUT_CSV_APPEND_H_

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/string_view.h"

namespace infergrid {

// "00" to "99", for writing digits two at a time.
inline constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// `value` (< 10,000) in decimal at `at`, two digits at a time.
[[gnu::always_inline]] inline char* SmallIntChars(char* at, uint32_t value) {
  if (value < 100) {
    if (value < 10) {
      *at = static_cast<char>('0' + value);
      return at + 1;
    }
    std::memcpy(at, &kDigitPairs[2 * value], 2);
    return at + 2;
  }
  const uint32_t high = value / 100;
  const uint32_t low = value % 100;
  if (high < 10) {
    *at++ = static_cast<char>('0' + high);
  } else {
    std::memcpy(at, &kDigitPairs[2 * high], 2);
    at += 2;
  }
  std::memcpy(at, &kDigitPairs[2 * low], 2);
  return at + 2;
}

// IntChars past 10,000 (out of line: rarer, and the common case stays small enough to inline).
[[gnu::noinline]] inline char* LargeIntChars(char* at, int64_t value) {
  if (value >= 0 && value < 100000000) {
    const auto v = static_cast<uint32_t>(value);
    at = SmallIntChars(at, v / 10000);
    const uint32_t low = v % 10000;
    std::memcpy(at, &kDigitPairs[2 * (low / 100)], 2);
    std::memcpy(at + 2, &kDigitPairs[2 * (low % 100)], 2);
    return at + 4;
  }
  return std::to_chars(at, at + 20, value).ptr;
}

// `value` in decimal at `at` (at most 20 bytes), as std::to_chars writes it; the counts, indices
// and integer parts of an iteration's row are below 10^8 (simulated seconds, KV blocks,
// iteration numbers), written two digits at a time without std::to_chars's digit count.
[[gnu::always_inline]] inline char* IntChars(char* at, int64_t value) {
  if (value >= 0 && value < 10000) [[likely]]
    return SmallIntChars(at, static_cast<uint32_t>(value));
  return LargeIntChars(at, value);
}

// `value` alone (printf "%d").
inline void AppendIntText(std::string* out, int64_t value) {
  char buffer[24];
  out->append(buffer, IntChars(buffer, value));
}

// 10^n for 0 <= n <= 9.
constexpr uint32_t PowerOfTen(int n) { return n == 0 ? 1 : 10 * PowerOfTen(n - 1); }

// `count` decimal digits of `digits` (< 10^count) ending at `end`, two at a time from the last.
inline void DigitsBefore(char* end, uint32_t digits, int count) {
  for (; count >= 2; count -= 2) {
    end -= 2;
    std::memcpy(end, &kDigitPairs[2 * (digits % 100)], 2);
    digits /= 100;
  }
  if (count == 1) end[-1] = static_cast<char>('0' + digits);
}

// Fast path of the fixed-point text below for kPrecision decimals, written at `at` (at most
// kFastFixedChars bytes); nullptr where it does not apply.
// For 0 <= value < 2^53 and precision <= 9, the integer part i = trunc(value) and the fraction
// f = value - i are exact doubles, and f x 10^precision (< 10^9) is computed with an error below
// 2^-23; when that product is not within 1e-6 of a rounding tie, rounding it gives exactly the
// digits printf rounds the exact value to. Anything else (ties, negative, -0, huge, NaN) is
// left to std::to_chars, which the standard defines to match printf.
inline constexpr int kFastFixedChars = 16 + 1 + 9;
template <int kPrecision>
inline char* FastFixedCharsOf(char* at, double value) {
  static_assert(kPrecision >= 1 && kPrecision <= 9);
  constexpr uint32_t kScale = PowerOfTen(kPrecision);
  if (std::signbit(value) || !(value < 9007199254740992.0)) return nullptr;
  // Truncation (one instruction) is the floor here: value is neither negative nor past 2^53.
  auto integer = static_cast<uint64_t>(static_cast<int64_t>(value));
  const double scaled = (value - static_cast<double>(static_cast<int64_t>(integer))) * kScale;
  const auto below = static_cast<uint32_t>(static_cast<int32_t>(scaled));
  const double distance_to_tie = scaled - static_cast<double>(static_cast<int32_t>(below)) - 0.5;
  if (std::fabs(distance_to_tie) <= 1e-6) return nullptr;
  uint32_t digits = below + (distance_to_tie > 0 ? 1 : 0);
  if (digits == kScale) {  // .999...95 rounds up
    digits = 0;
    ++integer;
  }
  char* end = IntChars(at, static_cast<int64_t>(integer));  // integer < 2^53
  *end++ = '.';
  end += kPrecision;
  // Two independent halves where there are enough digits (shorter dependency chains).
  if constexpr (kPrecision >= 6) {
    constexpr int kLow = kPrecision / 2 % 2 == 0 ? kPrecision / 2 : kPrecision / 2 + 1;  // even
    constexpr uint32_t kSplit = PowerOfTen(kLow);
    DigitsBefore(end, digits % kSplit, kLow);
    DigitsBefore(end - kLow, digits / kSplit, kPrecision - kLow);
  } else {
    DigitsBefore(end, digits, kPrecision);
  }
  return end;
}

// FastFixedCharsOf for a precision known only at run time (a constant one folds the switch).
inline char* FastFixedChars(char* at, double value, int precision) {
  switch (precision) {
    case 1: return FastFixedCharsOf<1>(at, value);
    case 2: return FastFixedCharsOf<2>(at, value);
    case 3: return FastFixedCharsOf<3>(at, value);
    case 4: return FastFixedCharsOf<4>(at, value);
    case 5: return FastFixedCharsOf<5>(at, value);
    case 6: return FastFixedCharsOf<6>(at, value);
    case 7: return FastFixedCharsOf<7>(at, value);
    case 8: return FastFixedCharsOf<8>(at, value);
    case 9: return FastFixedCharsOf<9>(at, value);
    default: return nullptr;
  }
}

// `value` alone with `precision` digits after the point (printf "%.{precision}f").
inline void AppendFixedText(std::string* out, double value, int precision) {
  char buffer[352];  // the largest double in fixed notation: 309 digits, point and 9 decimals
  char* end = FastFixedChars(buffer, value, precision);
  if (end == nullptr) {
    end = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::fixed, precision).ptr;
  }
  out->append(buffer, end);
}

// The text a column printed for its last value, reused when the next row's value is the same
// double, bit for bit (so -0 and 0 stay apart): iterations.csv repeats most of its durations
// from one iteration to the next, and each row's start is the row before's end.
struct FixedMemo {
  static constexpr size_t kTextBytes = 32;  // >= kFastFixedChars; copied whole
  uint64_t bits = 0;
  uint32_t size = 0;  // 0: nothing remembered
  char text[kTextBytes];
};
static_assert(FixedMemo::kTextBytes >= kFastFixedChars);

// One row built in a fixed array of its own, then appended to `out` in one piece by the
// destructor, for writers that emit a row per iteration: fields are written through a pointer,
// without the string's checks or its zero-filling growth per field. A row longer than the array
// is appended in parts (so `out` must not be flushed before the row ends). The text is what the
// Append functions give.
class TextRow {
 public:
  explicit TextRow(std::string* out) : out_(out), p_(row_) {}
  ~TextRow() { Spill(); }
  TextRow(const TextRow&) = delete;
  TextRow& operator=(const TextRow&) = delete;

  [[gnu::always_inline]] void Int(int64_t value, char separator = ',') {
    Ensure(21);
    p_ = IntChars(p_, value);
    *p_++ = separator;
  }
  // Inlined, so that a constant precision selects its fast path at compile time.
  [[gnu::always_inline]] void Fixed(double value, int precision, char separator = ',') {
    Ensure(kFastFixedChars + 1);
    char* end = FastFixedChars(p_, value, precision);
    if (end == nullptr) [[unlikely]] {
      FixedByToChars(value, precision, separator);
      return;
    }
    p_ = end;
    *p_++ = separator;
  }
  // Fixed, through `memo`: the same value as the memo's last one copies its text; another
  // is formatted and remembered (one the fast path does not take is not remembered).
  [[gnu::always_inline]] void Fixed(double value, int precision, FixedMemo& memo, char separator = ',') {
    Ensure(FixedMemo::kTextBytes + 1);
    const auto bits = std::bit_cast<uint64_t>(value);
    if (bits == memo.bits && memo.size != 0) {
      std::memcpy(p_, memo.text, FixedMemo::kTextBytes);
      p_ += memo.size;
    } else {
      char* end = FastFixedChars(p_, value, precision);
      if (end == nullptr) [[unlikely]] {
        memo.size = 0;
        FixedByToChars(value, precision, separator);
        return;
      }
      std::memcpy(memo.text, p_, FixedMemo::kTextBytes);  // the row's array has the room
      memo.bits = bits;
      memo.size = static_cast<uint32_t>(end - p_);
      p_ = end;
    }
    *p_++ = separator;
  }
  void Text(absl::string_view text, char separator = ',') {
    Ensure(text.size() + 1);
    if (text.size() + 1 > kRoom) {  // longer than the whole array: straight to `out`
      out_->append(text.data(), text.size());
      out_->push_back(separator);
      return;
    }
    std::memcpy(p_, text.data(), text.size());
    p_ += text.size();
    *p_++ = separator;
  }

 private:
  static constexpr size_t kRoom = 512;
  [[gnu::noinline]] void FixedByToChars(double value, int precision, char separator) {
    char buffer[352];
    const char* end = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::fixed, precision).ptr;
    Text(absl::string_view(buffer, static_cast<size_t>(end - buffer)), separator);
  }
  void Ensure(size_t bytes) {
    if (static_cast<size_t>(row_ + kRoom - p_) >= bytes) [[likely]]
      return;
    Spill();
  }
  void Spill() {
    out_->append(row_, static_cast<size_t>(p_ - row_));
    p_ = row_;
  }

  std::string* out_;
  char* p_;
  char row_[kRoom];
};

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
