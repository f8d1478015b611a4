#include "base/dtype.h"

#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace infergrid {

int BitsPerElement(DType dtype) {
  switch (dtype) {
    case DType::FP32: return 32;
    case DType::FP16:
    case DType::BF16: return 16;
    case DType::FP8_E4M3:
    case DType::FP8_E5M2:
    case DType::INT8: return 8;
    case DType::INT4:
    case DType::FP4_E2M1: return 4;
    default: return 0;
  }
}

absl::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::FP32: return "fp32";
    case DType::FP16: return "fp16";
    case DType::BF16: return "bf16";
    case DType::FP8_E4M3: return "fp8_e4m3";
    case DType::FP8_E5M2: return "fp8_e5m2";
    case DType::INT8: return "int8";
    case DType::INT4: return "int4";
    case DType::FP4_E2M1: return "fp4_e2m1";
    default: return "unspecified";
  }
}

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  const std::string n = absl::AsciiStrToLower(name);
  if (n == "fp32" || n == "float32" || n == "float") return DType::FP32;
  if (n == "fp16" || n == "float16" || n == "half") return DType::FP16;
  if (n == "bf16" || n == "bfloat16") return DType::BF16;
  if (n == "fp8" || n == "fp8_e4m3" || n == "float8_e4m3fn") return DType::FP8_E4M3;
  if (n == "fp8_e5m2" || n == "float8_e5m2") return DType::FP8_E5M2;
  if (n == "int8") return DType::INT8;
  if (n == "int4") return DType::INT4;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown dtype '", name, "' (expected fp32, fp16, bf16, fp8_e4m3, fp8_e5m2, int8 or int4)"));
}

double WeightFormat::BytesPerParameter() const {
  double bytes = BytesPerElement(dtype);
  if (group_size > 0) bytes += metadata_bytes_per_group / group_size;
  return bytes;
}

absl::StatusOr<WeightFormat> ParseWeightFormat(absl::string_view name) {
  const std::string n = absl::AsciiStrToLower(name);
  WeightFormat format;
  format.label = n;
  // Microscaling formats: e2m1 values in blocks sharing one 8-bit scale. NVFP4 (NVIDIA
  // ModelOpt, vLLM's modelopt_fp4): an fp8 e4m3 scale per 16 values = 4.5 bits per weight.
  // MXFP4 (OCP MX, gpt-oss): an e8m0 scale per 32 values = 4.25 bits. NVFP4's one fp32
  // per-tensor scale is a few bytes per matrix and left out.
  if (n == "nvfp4" || n == "modelopt_fp4") {
    format.dtype = DType::FP4_E2M1;
    format.group_size = 16;
    format.metadata_bytes_per_group = 1.0;
    return format;
  }
  if (n == "mxfp4") {
    format.dtype = DType::FP4_E2M1;
    format.group_size = 32;
    format.metadata_bytes_per_group = 1.0;
    return format;
  }
  if (n == "awq" || n == "gptq") {
    format.dtype = DType::INT4;
    format.group_size = 128;
    format.metadata_bytes_per_group = 2.0 + 0.5;  // fp16 scale + packed 4-bit zero point
    return format;
  }
  absl::string_view base = n;
  absl::string_view group;
  if (const size_t dash = n.find("-g"); dash != std::string::npos) {
    base = absl::string_view(n).substr(0, dash);
    group = absl::string_view(n).substr(dash + 2);
  }
  absl::StatusOr<DType> dtype = ParseDType(base);
  if (!dtype.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown weight format '", name, "' (expected a dtype, int4-g<N>, int8-g<N>, awq, gptq, fp8, nvfp4 or mxfp4)"));
  }
  format.dtype = *dtype;
  if (!group.empty()) {
    int size = 0;
    if ((*dtype != DType::INT4 && *dtype != DType::INT8) || !absl::SimpleAtoi(group, &size) || size <= 0 ||
        size > (1 << 20)) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad weight format '", name, "': groups apply to int4/int8 as -g<N>, N in 1..1048576"));
    }
    format.group_size = size;
    format.metadata_bytes_per_group = 2.0;  // one fp16 scale per group (symmetric)
  }
  return format;
}

}  // namespace infergrid
