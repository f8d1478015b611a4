// Device conversions between float and the element types the kernels store, defined once for
// every .cu file: fp16 and bf16 to float (one element, or a packed pair of them) and back,
// fp8 e4m3 and float itself from float (for the fills). Float to a narrower type rounds to
// nearest even.
#ifndef INFERGRID_KERNELS_FLOAT_CONVERSIONS_CUH_
#define INFERGRID_KERNELS_FLOAT_CONVERSIONS_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace infergrid::calib {

template <typename T>
__device__ __forceinline__ float ToFloat1(T x);
template <>
__device__ __forceinline__ float ToFloat1<__half>(__half x) {
  return __half2float(x);
}
template <>
__device__ __forceinline__ float ToFloat1<__nv_bfloat16>(__nv_bfloat16 x) {
  return __bfloat162float(x);
}

template <typename T>
__device__ __forceinline__ T FromFloat1(float x);
template <>
__device__ __forceinline__ __half FromFloat1<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 FromFloat1<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
template <>
__device__ __forceinline__ __nv_fp8_e4m3 FromFloat1<__nv_fp8_e4m3>(float x) {
  return __nv_fp8_e4m3(x);  // round to nearest even, saturating to +-448
}
template <>
__device__ __forceinline__ float FromFloat1<float>(float x) {
  return x;
}

// The packed two-element type of a 16-bit type (__half2, __nv_bfloat162), and its conversion
// to two floats: vector loads read pairs.
template <typename T>
struct PackedPair;
template <>
struct PackedPair<__half> {
  using Type = __half2;
};
template <>
struct PackedPair<__nv_bfloat16> {
  using Type = __nv_bfloat162;
};

__device__ __forceinline__ float2 ToFloat2(__half2 x) { return __half22float2(x); }
__device__ __forceinline__ float2 ToFloat2(__nv_bfloat162 x) { return __bfloat1622float2(x); }

}  // namespace infergrid::calib

#endif  // INFERGRID_KERNELS_FLOAT_CONVERSIONS_CUH_
