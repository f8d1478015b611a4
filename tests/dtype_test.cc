// base/dtype.h: storage dtypes' sizes and names, and weight formats' bytes per parameter.

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "base/embedded_catalog.h"
#include "base/textproto.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/hf_config.h"
#include "models/kv_cache_size.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "models/pass_accounting.h"
#include "models/safetensors_header.h"
#include "tests/catalog_model.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

TEST(DType, SizesAndNames) {
  EXPECT_EQ(BitsPerElement(DType::FP32), 32);
  EXPECT_EQ(BitsPerElement(DType::BF16), 16);
  EXPECT_EQ(BitsPerElement(DType::FP8_E5M2), 8);
  EXPECT_EQ(BitsPerElement(DType::INT4), 4);
  EXPECT_EQ(*ParseDType("bfloat16"), DType::BF16);
  EXPECT_EQ(*ParseDType("FP8"), DType::FP8_E4M3);
  EXPECT_EQ(*ParseDType("fp8_e5m2"), DType::FP8_E5M2);
  EXPECT_EQ(*ParseDType("half"), DType::FP16);
  EXPECT_FALSE(ParseDType("fp7").ok());
  EXPECT_THAT(ParseDType("fp7").status().message(), HasSubstr("unknown dtype 'fp7'"));
}

TEST(WeightFormat, BytesPerParameter) {
  EXPECT_DOUBLE_EQ(ParseWeightFormat("bf16")->BytesPerParameter(), 2.0);
  EXPECT_DOUBLE_EQ(ParseWeightFormat("fp8")->BytesPerParameter(), 1.0);
  EXPECT_DOUBLE_EQ(ParseWeightFormat("int4")->BytesPerParameter(), 0.5);
  EXPECT_TRUE(ParseWeightFormat("int4")->IsRawFloor());
  // One fp16 scale per 128 weights: 0.5 + 2/128.
  EXPECT_DOUBLE_EQ(ParseWeightFormat("int4-g128")->BytesPerParameter(), 0.515625);
  EXPECT_FALSE(ParseWeightFormat("int4-g128")->IsRawFloor());
  // AWQ/GPTQ: fp16 scale + packed 4-bit zero per 128 weights.
  EXPECT_DOUBLE_EQ(ParseWeightFormat("awq")->BytesPerParameter(), 0.5 + 2.5 / 128);
  EXPECT_FALSE(ParseWeightFormat("bf16-g128").ok());
  EXPECT_FALSE(ParseWeightFormat("int4-g0").ok());
  EXPECT_FALSE(ParseWeightFormat("int4-gx").ok());
}

// FP4 formats count their block scales: NVFP4 = 4 + 8/16 bits, MXFP4 = 4 + 8/32 bits.
TEST(WeightFormat, Fp4FormatsIncludeTheirBlockScales) {
  EXPECT_EQ(BitsPerElement(DType::FP4_E2M1), 4);
  EXPECT_EQ(DTypeName(DType::FP4_E2M1), "fp4_e2m1");
  for (const char* name : {"nvfp4", "NVFP4", "modelopt_fp4"}) {
    absl::StatusOr<WeightFormat> f = ParseWeightFormat(name);
    ASSERT_TRUE(f.ok()) << name;
    EXPECT_EQ(f->dtype, DType::FP4_E2M1);
    EXPECT_DOUBLE_EQ(f->BytesPerParameter() * 8, 4.5) << name;
    EXPECT_FALSE(f->IsRawFloor());
  }
  absl::StatusOr<WeightFormat> mx = ParseWeightFormat("mxfp4");
  ASSERT_TRUE(mx.ok());
  EXPECT_EQ(mx->dtype, DType::FP4_E2M1);
  EXPECT_DOUBLE_EQ(mx->BytesPerParameter() * 8, 4.25);
  // e2m1 without its scales is no format anyone stores.
  EXPECT_FALSE(ParseDType("fp4_e2m1").ok());
  EXPECT_FALSE(ParseWeightFormat("nvfp4-g32").ok());
}

}  // namespace
}  // namespace infergrid
