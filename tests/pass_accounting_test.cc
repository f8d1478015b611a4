// models/pass_accounting.h: the accounting lesson's prefill and decode formulas.

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
using testing::WithoutWindows;

PassInputs Nominal8B(const ModelSpec& m, DType kv) { return PassInputs{8e9, 16e9, KvBytesPerToken(m, kv)}; }

// Lesson section 6.2 table.
TEST(PassAccounting, PrefillTable) {
  const ModelSpec m = testing::CatalogModel("llama-3-8b");
  const PassAccounting p256 = PrefillPass(m, Nominal8B(m, DType::FP16), 256, 1);
  EXPECT_EQ(std::round(p256.attention_flops / 1e9), 17.0);  // 0.017 TFLOP
  EXPECT_DOUBLE_EQ(p256.linear_flops, 4.096e12);  // 4.10 TFLOP
  EXPECT_NEAR(p256.TotalFlops(false) / 1e12, 4.11, 0.005);
  EXPECT_NEAR(100 * p256.attention_flops / p256.TotalFlops(false), 0.4, 0.05);
  const PassAccounting p2048 = PrefillPass(m, Nominal8B(m, DType::FP16), 2048, 1);
  EXPECT_NEAR(p2048.attention_flops / 1e12, 1.10, 0.005);
  EXPECT_NEAR(p2048.linear_flops / 1e12, 32.77, 0.005);
  EXPECT_NEAR(p2048.TotalFlops(false) / 1e12, 33.87, 0.005);
  EXPECT_NEAR(100 * p2048.attention_flops / p2048.TotalFlops(false), 3.2, 0.05);
  EXPECT_DOUBLE_EQ(p2048.attention_flops_causal * 2, p2048.attention_flops);
  // Nominal payload: one pass over the weights plus P x 128 KiB of KV written.
  EXPECT_DOUBLE_EQ(p2048.kv_write_bytes, 2048.0 * 131072);
  EXPECT_DOUBLE_EQ(p2048.kv_read_bytes, 0);
  EXPECT_DOUBLE_EQ(p2048.weight_bytes, 16e9);
  EXPECT_DOUBLE_EQ(p2048.payload_bytes, 16e9 + 2048.0 * 131072);
}

// Lesson sections 6.3 and 6.4.
TEST(PassAccounting, DecodeStepAt8K) {
  const ModelSpec m = testing::CatalogModel("llama-3-8b");
  const PassAccounting d = DecodeStep(m, Nominal8B(m, DType::FP16), 8192, 1);
  EXPECT_DOUBLE_EQ(d.linear_flops, 16e9);
  EXPECT_NEAR(d.attention_flops / 1e9, 4.29, 0.005);
  EXPECT_NEAR(d.TotalFlops(false) / 1e9, 20.29, 0.005);
  EXPECT_NEAR(d.kv_read_bytes / 1e9, 1.07, 0.005);
  EXPECT_DOUBLE_EQ(d.kv_write_bytes, 131072);
  EXPECT_NEAR(d.payload_bytes / 1e9, 17.07, 0.005);
  EXPECT_DOUBLE_EQ(d.TotalBytes() - d.payload_bytes, 131072);
  EXPECT_NEAR(d.Intensity(false), 1.19, 0.005);
}

// Lesson section 8: the FP16 vs FP8 KV decision at batch 4, S = 8K.
TEST(PassAccounting, KvPrecisionDecisionTable) {
  const ModelSpec m = testing::CatalogModel("llama-3-8b");
  const PassAccounting fp16 = DecodeStep(m, Nominal8B(m, DType::FP16), 8192, 4);
  const PassAccounting fp8 = DecodeStep(m, Nominal8B(m, DType::FP8_E4M3), 8192, 4);
  const double gib = 1073741824.0;
  EXPECT_DOUBLE_EQ(fp16.kv_read_bytes / gib, 4.0);
  EXPECT_NEAR(fp16.kv_read_bytes / 1e9, 4.29, 0.005);
  EXPECT_DOUBLE_EQ(fp8.kv_read_bytes / gib, 2.0);
  EXPECT_NEAR(fp8.kv_read_bytes / 1e9, 2.15, 0.005);
  EXPECT_NEAR(fp16.payload_bytes / 1e9, 20.29, 0.005);
  EXPECT_NEAR(fp8.payload_bytes / 1e9, 18.15, 0.005);
  EXPECT_NEAR(fp16.payload_bytes / gib, 18.90, 0.005);
  EXPECT_NEAR(fp8.payload_bytes / gib, 16.90, 0.005);
  const double delta = fp16.payload_bytes - fp8.payload_bytes;
  EXPECT_NEAR(delta / 1e9, 2.15, 0.005);
  EXPECT_NEAR(100 * delta / fp16.payload_bytes, 10.6, 0.05);
}

TEST(PassAccounting, LatentAttentionPairsDifferByPath) {
  const ModelSpec ds = testing::CatalogModel("deepseek-v3");
  // Prefill over up-projected heads (qk 192 + v 128); decode in the latent space (576 + 512).
  EXPECT_DOUBLE_EQ(AttentionFlopsPerPair(ds, false), 2.0 * 61 * 128 * (192 + 128));
  EXPECT_DOUBLE_EQ(AttentionFlopsPerPair(ds, true), 2.0 * 61 * 128 * (576 + 512));
  const ModelSpec llama = testing::CatalogModel("llama-3-8b");
  EXPECT_DOUBLE_EQ(AttentionFlopsPerPair(llama, false), 4.0 * 32 * 32 * 128);
  EXPECT_DOUBLE_EQ(AttentionFlopsPerPair(llama, true), AttentionFlopsPerPair(llama, false));
}

// The roofline's pass accounting: gpt-oss-20b decoding at S = 32,768, batch 8: 12 full layers
// read 32,768 keys, 12 windowed ones 128; 4 x 64 heads x 64 = 16,384 FLOPs and 2,048 B of K and V
// per key and layer. Below the window the windowed model's numbers are the full model's.
TEST(PassAccounting, WindowedLayersCountTheirWindow) {
  const ModelSpec oss = testing::CatalogModel("gpt-oss-20b");
  const PassInputs inputs{1e9, 1e9, KvBytesPerToken(oss, DType::BF16)};
  const PassAccounting decode = DecodeStep(oss, inputs, 32768, 8);
  EXPECT_EQ(decode.attention_flops, 16384.0 * (12 * 32768 + 12 * 128) * 8);
  EXPECT_EQ(decode.kv_read_bytes, 2048.0 * (12 * 32768 + 12 * 128) * 8);
  const ModelSpec full = WithoutWindows(oss);
  EXPECT_EQ(DecodeStep(oss, inputs, 100, 8).attention_flops, DecodeStep(full, inputs, 100, 8).attention_flops);
  EXPECT_EQ(DecodeStep(oss, inputs, 100, 8).kv_read_bytes, DecodeStep(full, inputs, 100, 8).kv_read_bytes);
  EXPECT_EQ(PrefillPass(oss, inputs, 100, 2).attention_flops, PrefillPass(full, inputs, 100, 2).attention_flops);
  EXPECT_LT(PrefillPass(oss, inputs, 8192, 2).attention_flops, PrefillPass(full, inputs, 8192, 2).attention_flops);
}

}  // namespace
}  // namespace infergrid
