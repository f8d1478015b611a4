#include "kernels/numeric_formats.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace infergrid::calib {
namespace {

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float BitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

// Rounds |value| (finite, >= 0) to a format with `mantissa_bits` explicit mantissa bits,
// minimum normal exponent `min_exp` (value = 1.m * 2^e, e >= min_exp; below it subnormals
// with a fixed 2^(min_exp - mantissa_bits) step) using round-to-nearest-even. Returns the
// rounded magnitude as a double (exact).
double RoundToFormat(double magnitude, int mantissa_bits, int min_exp) {
  if (magnitude == 0) return 0;
  int exp;
  std::frexp(magnitude, &exp);  // magnitude = f * 2^exp, f in [0.5, 1)
  int e = exp - 1;  // magnitude = 1.x * 2^e
  if (e < min_exp) e = min_exp;
  const double step = std::ldexp(1.0, e - mantissa_bits);
  return std::nearbyint(magnitude / step) * step;  // default rounding mode: nearest even
}

}  // namespace

uint16_t FloatToBf16(float value) {
  uint32_t bits = FloatBits(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x0040);
  const uint32_t rounding = 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float Bf16ToFloat(uint16_t bits) { return BitsFloat(static_cast<uint32_t>(bits) << 16); }

uint16_t FloatToFp16(float value) {
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value)) return 0x7E00;
  const double magnitude = std::fabs(static_cast<double>(value));
  const double rounded = RoundToFormat(magnitude, 10, -14);
  if (rounded >= 65536.0) return sign | 0x7C00;  // past the largest finite (65504): infinity
  if (rounded == 0) return sign;
  int exp;
  const double f = std::frexp(rounded, &exp);
  const int e = exp - 1;
  if (e < -14) {  // subnormal: rounded = mant * 2^-24
    return sign | static_cast<uint16_t>(std::ldexp(rounded, 24));
  }
  const uint16_t mant = static_cast<uint16_t>(std::ldexp(f * 2 - 1, 10));
  return sign | static_cast<uint16_t>((e + 15) << 10) | mant;
}

float Fp16ToFloat(uint16_t bits) {
  const float sign = (bits & 0x8000) ? -1.0f : 1.0f;
  const int exp = (bits >> 10) & 0x1F;
  const int mant = bits & 0x3FF;
  if (exp == 0x1F) return mant ? std::numeric_limits<float>::quiet_NaN() : sign * INFINITY;
  if (exp == 0) return sign * std::ldexp(static_cast<float>(mant), -24);
  return sign * std::ldexp(static_cast<float>(mant | 0x400), exp - 25);
}

uint8_t FloatToFp8E4M3(float value) {
  const uint8_t sign = std::signbit(value) ? 0x80 : 0;
  if (std::isnan(value)) return 0x7F;
  double rounded = RoundToFormat(std::fabs(static_cast<double>(value)), 3, -6);
  if (rounded > 448.0) rounded = 448.0;  // saturate (E4M3FN has no infinity)
  if (rounded == 0) return sign;
  int exp;
  const double f = std::frexp(rounded, &exp);
  const int e = exp - 1;
  if (e < -6) {  // subnormal: rounded = mant * 2^-9
    return sign | static_cast<uint8_t>(std::ldexp(rounded, 9));
  }
  const uint8_t mant = static_cast<uint8_t>(std::ldexp(f * 2 - 1, 3));
  return sign | static_cast<uint8_t>((e + 7) << 3) | mant;
}

float Fp8E4M3ToFloat(uint8_t bits) {
  const float sign = (bits & 0x80) ? -1.0f : 1.0f;
  const int exp = (bits >> 3) & 0xF;
  const int mant = bits & 0x7;
  if (exp == 0xF && mant == 0x7) return std::numeric_limits<float>::quiet_NaN();
  if (exp == 0) return sign * std::ldexp(static_cast<float>(mant), -9);
  return sign * std::ldexp(static_cast<float>(mant | 0x8), exp - 10);
}

}  // namespace infergrid::calib
