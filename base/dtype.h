// Storage formats: their sizes and their names as users (and vLLM) spell them.
// KV cache precision and weight precision are separate choices; both use DType, and weights
// may add per-group scale metadata (WeightFormat) on top of the raw element size.
#ifndef INFERGRID_BASE_DTYPE_H_
#define INFERGRID_BASE_DTYPE_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "base/dtype.pb.h"

namespace infergrid {

// Bits of one element: 32, 16, 8 or 4. DTYPE_UNSPECIFIED has 0.
int BitsPerElement(DType dtype);
inline double BytesPerElement(DType dtype) { return BitsPerElement(dtype) / 8.0; }

// Canonical lower-case name ("bf16", "fp8_e4m3").
absl::string_view DTypeName(DType dtype);

// Parses fp32/float32/float, fp16/float16/half, bf16/bfloat16, fp8/fp8_e4m3, fp8_e5m2,
// int8, int4 (case-insensitive). "auto" is not a dtype: callers resolve it to the model's.
absl::StatusOr<DType> ParseDType(absl::string_view name);

// Weights as stored: an element type plus optional per-group scale/zero metadata.
// int4 without groups is the raw payload, a floor that no real checkpoint reaches.
struct WeightFormat {
  DType dtype = DType::BF16;
  int group_size = 0;  // elements sharing one scale; 0: no group metadata
  double metadata_bytes_per_group = 0;  // scale (+ zero point) bytes per group
  std::string label;  // as the user named it ("int4-g128", "awq")
  // Only the routed experts' linears are stored in this format; every other linear stays in
  // the model's float dtype (gpt-oss's MXFP4 checkpoints: ModelSpec.checkpoint_quantizes_experts_only).
  bool experts_only = false;

  double BytesPerParameter() const;
  bool IsRawFloor() const { return dtype == DType::INT4 && group_size == 0; }
};

// Parses a weight format: any DType name, "int4-g<N>" / "int8-g<N>" (one fp16 scale per N
// weights), and vLLM's quantization names "awq" / "gptq" (int4, groups of 128, fp16 scale
// plus a packed 4-bit zero point), "fp8" (fp8_e4m3, per-tensor scale), and the 4-bit float
// formats "nvfp4" (alias vLLM's "modelopt_fp4"; an fp8 scale per 16 weights, 4.5 bits) and
// "mxfp4" (an e8m0 scale per 32 weights, 4.25 bits). fp4_e2m1 is no plain dtype: it exists
// only with its block scales, so ParseDType refuses it.
absl::StatusOr<WeightFormat> ParseWeightFormat(absl::string_view name);

}  // namespace infergrid

#endif  // INFERGRID_BASE_DTYPE_H_
