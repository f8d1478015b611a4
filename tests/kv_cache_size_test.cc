// models/kv_cache_size.h: KV bytes per token against the accounting lesson, per GPU under TP.

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

// Lesson section 4: 2 x L x H_kv x D x S x B x b.
TEST(KvCacheSize, LessonFigures) {
  const ModelSpec m = testing::CatalogModel("llama-3-8b");
  EXPECT_EQ(KvBytesPerToken(m, DType::FP16), 131072);  // 128 KiB
  EXPECT_EQ(KvBytesPerToken(m, DType::BF16), 131072);
  EXPECT_EQ(KvBytesPerToken(m, DType::FP8_E4M3), 65536);  // 64 KiB
  EXPECT_EQ(KvBytesPerToken(m, DType::INT4), 32768);
  const double gib = 1073741824.0;
  EXPECT_DOUBLE_EQ(KvBytes(m, DType::FP16, 2048, 1), 268435456.0);
  EXPECT_DOUBLE_EQ(KvBytes(m, DType::FP16, 4096, 1), 536870912.0);
  EXPECT_DOUBLE_EQ(KvBytes(m, DType::FP16, 8192, 1) / gib, 1.0);
  EXPECT_DOUBLE_EQ(KvBytes(m, DType::FP16, 16384, 1) / gib, 2.0);
  EXPECT_DOUBLE_EQ(KvBytes(m, DType::FP16, 32768, 1), 4294967296.0);
  // Exercise 1: 32K context, FP8 KV, batch 8 = 16 GiB.
  EXPECT_DOUBLE_EQ(KvBytes(m, DType::FP8_E4M3, 32768, 8) / gib, 16.0);
}

// The second seed document claims MHA KV for a 70B model at 8K x 4 in FP16 needs "over 160 GB"
// and GQA with 8 KV heads "~20 GB". The formula gives half of each.
// Per GPU of a tensor-parallel group: heads split, replicated once TP exceeds them.
TEST(KvCacheSize, PerGpuUnderTensorParallelism) {
  const ModelSpec m70 = *ResolveModel("llama-3-70b");  // 80 layers, 8 KV heads of 128
  EXPECT_EQ(KvHeadsPerGpu(m70, 1), 8);
  EXPECT_EQ(KvHeadsPerGpu(m70, 4), 2);
  EXPECT_EQ(KvHeadsPerGpu(m70, 16), 1);  // replicated
  EXPECT_EQ(KvBytesPerTokenLayer(m70, DType::BF16, 2), 2 * 4 * 128 * 2);
  EXPECT_EQ(KvBytesPerToken(m70, DType::BF16, 2), 163840);  // half the TP1 327,680 B
  EXPECT_EQ(KvBytesPerToken(m70, DType::FP8_E4M3, 8), 80 * 2 * 1 * 128 * 1);
  EXPECT_EQ(KvBytesPerToken(m70, DType::BF16, 16), KvBytesPerToken(m70, DType::BF16, 8));
  const KvCacheLayout layout{DType::BF16, 16, 131072, 100};
  EXPECT_DOUBLE_EQ(layout.BlockBytes(), 16.0 * 131072);
}

TEST(KvCacheSize, AnatomyDocumentKvFiguresDoNotFollowFromTheFormula) {
  ModelSpec llama70 = testing::CatalogModel("llama-3-70b");
  const double gqa = KvBytes(llama70, DType::FP16, 8192, 4);
  EXPECT_DOUBLE_EQ(gqa, 10'737'418'240.0);  // 10.74 GB = 10.00 GiB, not ~20 GB
  llama70.set_num_kv_heads(64);  // the MHA variant
  const double mha = KvBytes(llama70, DType::FP16, 8192, 4);
  EXPECT_DOUBLE_EQ(mha, 85'899'345'920.0);  // 85.90 GB = 80 GiB, not "over 160 GB"
  EXPECT_DOUBLE_EQ(mha / gqa, 8.0);  // the 8x reduction itself is right
}

// MLA caches (kv_lora_rank + qk_rope_head_dim) x layers x bytes per token, on every GPU of a
// tensor-parallel group: 70,272 B in bf16, not the 1,748,992 B of 128 heads of 56 dimensions.
TEST(KvCacheSize, LatentAttentionCachesTheLatentOnly) {
  const ModelSpec ds = testing::CatalogModel("deepseek-v3");
  EXPECT_EQ(KvElementsPerTokenLayer(ds, 1), 512 + 64);
  EXPECT_EQ(KvBytesPerToken(ds, DType::BF16), (512 + 64) * 61 * 2);
  EXPECT_EQ(KvBytesPerToken(ds, DType::BF16), 70272);
  EXPECT_EQ(KvBytesPerToken(ds, DType::FP8_E4M3, 8), (512 + 64) * 61);
  EXPECT_EQ(KvBytesPerToken(ds, DType::BF16, 8), KvBytesPerToken(ds, DType::BF16, 1));
}

// Below the window a windowed model and the same model without windows cache the same bytes;
// past it the windowed one stops growing in its windowed layers.
TEST(KvCacheSize, WindowsAgreeBelowTheWindowAndCapAboveIt) {
  const ModelSpec oss = testing::CatalogModel("gpt-oss-20b");
  const ModelSpec full = WithoutWindows(oss);
  const double per_layer_token = 2.0 * 8 * 64 * 2;  // K and V, 8 heads of 64, bf16
  EXPECT_EQ(KvBytes(oss, DType::BF16, 100, 3), KvBytes(full, DType::BF16, 100, 3));
  EXPECT_EQ(KvBytes(oss, DType::BF16, 128, 1), KvBytes(full, DType::BF16, 128, 1));
  EXPECT_EQ(KvBytes(oss, DType::BF16, 8192, 1), per_layer_token * (12 * 8192 + 12 * 128));
  EXPECT_EQ(KvBytes(full, DType::BF16, 8192, 1), per_layer_token * 24 * 8192);
}

}  // namespace
}  // namespace infergrid
