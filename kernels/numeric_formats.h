// Host-side encoding and decoding of the 16- and 8-bit formats the calibration kernels read:
// IEEE fp16, bfloat16 and fp8 e4m3 (OCP "E4M3FN": no infinities, max 448, NaN = S.1111.111).
// Encoding rounds to nearest even and saturates to the largest finite value, as the CUDA
// conversions with saturation do; the correctness checks use these to build inputs whose
// exact values the CPU reference knows.
#ifndef INFERGRID_KERNELS_NUMERIC_FORMATS_H_
#define INFERGRID_KERNELS_NUMERIC_FORMATS_H_

#include <cstdint>

// HashIndex and UniformFromHash are shared with device code.
#ifdef __CUDACC__
#define INFERGRID_HOST_DEVICE __host__ __device__
#else
#define INFERGRID_HOST_DEVICE
#endif

namespace infergrid::calib {

uint16_t FloatToBf16(float value);
float Bf16ToFloat(uint16_t bits);

uint16_t FloatToFp16(float value);
float Fp16ToFloat(uint16_t bits);

uint8_t FloatToFp8E4M3(float value);
float Fp8E4M3ToFloat(uint8_t bits);

// Deterministic uniform value in [-1, 1) from (seed, index): the same on host and device
// (device_common.cu fills with the same hash), so inputs need no host-to-device copy.
INFERGRID_HOST_DEVICE inline uint32_t HashIndex(uint64_t seed, uint64_t index) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + index;
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDull;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ull;
  x ^= x >> 33;
  return static_cast<uint32_t>(x);
}
INFERGRID_HOST_DEVICE inline float UniformFromHash(uint32_t h) {
  return static_cast<float>(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

}  // namespace infergrid::calib

#endif  // INFERGRID_KERNELS_NUMERIC_FORMATS_H_
