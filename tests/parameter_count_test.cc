// models/parameter_count.h: exact parameter counts.

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

// The element counts of the published checkpoints.
TEST(ParameterCount, MatchesPublishedCheckpoints) {
  const std::pair<const char*, int64_t> expected[] = {
      {"llama-2-7b", 6'738'415'616},
      {"llama-3-8b", 8'030'261'248},
      {"llama-3-70b", 70'553'706'496},
      {"llama-3.1-405b", 405'853'388'800},
      {"mistral-7b", 7'241'732'096},
      {"mixtral-8x7b", 46'702'792'704},
      {"qwen2.5-0.5b", 494'032'768},
      {"qwen2.5-7b", 7'615'616'512},
      {"qwen2.5-72b", 72'706'203'648},
      {"llama-3.1-70b", 70'553'706'496},
      {"llama-3.2-1b", 1'235'814'400},
      {"llama-3.2-3b", 3'212'749'824},
      {"llama-2-13b", 13'015'864'320},
      {"llama-2-70b", 68'976'648'192},
      {"codellama-34b", 33'743'970'304},
      {"mistral-7b-v0.3", 7'248'023'552},
      {"qwen2.5-1.5b", 1'543'714'304},
      {"qwen2.5-3b", 3'085'938'688},
      {"qwen2.5-14b", 14'770'033'664},
      {"qwen2.5-32b", 32'763'876'352},
      // Qwen3's counts include its per-head query and key RMSNorms (qk_norm, 2 x 128 a layer).
      {"qwen3-8b", 8'190'735'360},
      {"qwen3-14b", 14'768'307'200},
      {"qwen3-32b", 32'762'123'264}};
  for (const auto& [name, count] : expected) {
    EXPECT_EQ(CountParameters(testing::CatalogModel(name)).Total(), count) << name;
  }
}

TEST(ParameterCount, BreakdownOfLlama3_8B) {
  const ParameterBreakdown p = CountParameters(testing::CatalogModel("llama-3-8b"));
  EXPECT_EQ(p.embedding, 128256LL * 4096);
  EXPECT_EQ(p.lm_head, 128256LL * 4096);
  EXPECT_EQ(p.attention, 32LL * (4096 * 4096 * 2 + 2 * 4096 * 1024));
  EXPECT_EQ(p.mlp, 32LL * 3 * 4096 * 14336);
  EXPECT_EQ(p.norms, 32LL * 2 * 4096 + 4096);
}

TEST(ParameterCount, TiedEmbeddingsHaveNoLmHead) {
  EXPECT_EQ(CountParameters(testing::CatalogModel("qwen2.5-0.5b")).lm_head, 0);
}

TEST(ParameterCount, MixtralActivePerTokenUsesTopTwoExperts) {
  const ModelSpec m = testing::CatalogModel("mixtral-8x7b");
  // Published: ~12.9B active. 6 idle experts x 32 layers x 3 x 4096 x 14336 fewer.
  EXPECT_EQ(ActiveParametersPerToken(m), 46'702'792'704LL - 6LL * 32 * 3 * 4096 * 14336);
  EXPECT_EQ(ActiveParametersPerToken(testing::CatalogModel("llama-3-8b")), 8'030'261'248LL);
}

// Term by term: embedding and LM head, MLA projections (q_a, q_b, kv_a, kv_b, o) and their two
// latent norms, three dense MLPs, 58 layers of 257 experts and a router, two norms a layer and
// the final one. The technical report gives 671B total and 37B activated.
TEST(ParameterCount, DeepSeekV3LatentAttentionAndExperts) {
  const int64_t d = 7168, heads = 128, layers = 61, dense = 3, moe_layers = layers - dense;
  const int64_t attention =
      d * 1536 + 1536 * heads * 192 + d * (512 + 64) + 512 * heads * (128 + 128) + heads * 128 * d;
  const int64_t expert = 3 * d * 2048;
  const ParameterBreakdown p = CountParameters(testing::CatalogModel("deepseek-v3"));
  EXPECT_EQ(p.embedding, 129280 * d);
  EXPECT_EQ(p.lm_head, 129280 * d);
  EXPECT_EQ(p.attention, layers * attention);
  EXPECT_EQ(p.mlp, dense * 3 * d * 18432 + moe_layers * 257 * expert);
  EXPECT_EQ(p.router, moe_layers * d * 256);
  EXPECT_EQ(p.norms, layers * (2 * d + 1536 + 512) + d);
  EXPECT_EQ(p.Total(), 671'026'404'352);
  EXPECT_NEAR(static_cast<double>(p.Total()), 671e9, 0.001 * 671e9);
  const int64_t active = ActiveParametersPerToken(testing::CatalogModel("deepseek-v3"));
  EXPECT_EQ(active, p.Total() - moe_layers * (256 - 8) * expert);
  EXPECT_NEAR(static_cast<double>(active), 37e9, 0.02 * 37e9);
  // Qwen3-30B-A3B: 30.5B total, 3.3B activated (model card).
  const ParameterBreakdown q = CountParameters(testing::CatalogModel("qwen3-30b-a3b"));
  EXPECT_NEAR(static_cast<double>(q.Total()), 30.5e9, 0.005 * 30.5e9);
  EXPECT_NEAR(static_cast<double>(ActiveParametersPerToken(testing::CatalogModel("qwen3-30b-a3b"))), 3.3e9,
              0.02 * 3.3e9);
}

// Counts against the published checkpoints. gpt-oss: OpenAI's model card gives 20.91B and
// 116.83B total, 3.61B and 5.13B active without the embedding. Gemma-3-27B's checkpoint,
// 27,432,406,640, includes the SigLIP vision tower (27 layers of 15,239,504, patch and
// position embeddings 678,528 + 4,718,592, post norm 2,304) and the projector (1,152 x 5,376 +
// 1,152): 423,060,336, which the catalog's language model leaves out.
TEST(ParameterCount, TwentyTwentySixCatalogMatchesCheckpoints) {
  EXPECT_EQ(CountParameters(testing::CatalogModel("gpt-oss-20b")).Total(), 20'914'757'184);
  EXPECT_EQ(CountParameters(testing::CatalogModel("gpt-oss-120b")).Total(), 116'829'156'672);
  for (const auto& [name, active] : {std::pair{"gpt-oss-20b", 3.61e9}, std::pair{"gpt-oss-120b", 5.13e9}}) {
    const ModelSpec m = testing::CatalogModel(name);
    const double without_embedding = static_cast<double>(ActiveParametersPerToken(m) - CountParameters(m).embedding);
    EXPECT_NEAR(without_embedding / active, 1.0, 0.002) << name;
  }
  EXPECT_EQ(CountParameters(testing::CatalogModel("gemma-2-9b")).Total(), 9'241'705'984);
  EXPECT_EQ(CountParameters(testing::CatalogModel("gemma-2-27b")).Total(), 27'227'128'320);
  EXPECT_EQ(CountParameters(testing::CatalogModel("gemma-3-1b")).Total(), 999'885'952);
  const int64_t vision = 27 * 15'239'504 + 678'528 + 4'718'592 + 2'304 + 1'152 * 5'376 + 1'152;
  EXPECT_EQ(vision, 423'060'336);
  EXPECT_EQ(CountParameters(testing::CatalogModel("gemma-3-27b")).Total(), 27'432'406'640 - vision);
  // Published in rounded form only: Qwen3-235B-A22B 235B total, 22B active; Kimi-K2 1T, 32B.
  EXPECT_NEAR(CountParameters(testing::CatalogModel("qwen3-235b-a22b")).Total() / 235e9, 1.0, 0.005);
  EXPECT_NEAR(ActiveParametersPerToken(testing::CatalogModel("qwen3-235b-a22b")) / 22e9, 1.0, 0.025);
  EXPECT_NEAR(CountParameters(testing::CatalogModel("kimi-k2")).Total() / 1.0e12, 1.0, 0.05);
  EXPECT_NEAR(ActiveParametersPerToken(testing::CatalogModel("kimi-k2")) / 32e9, 1.0, 0.03);
  // GLM-4.5 (and 4.6): 352.8B by its 92 layers, Zhipu's "355B" with the MTP layer left out
  // (about 1%); "32B active" without the embedding and LM head.
  for (const char* glm : {"glm-4.5", "glm-4.6"}) {
    const ModelSpec m = testing::CatalogModel(glm);
    const ParameterBreakdown count = CountParameters(m);
    EXPECT_NEAR(count.Total() / 355e9, 1.0, 0.01) << glm;
    EXPECT_NEAR((ActiveParametersPerToken(m) - count.embedding - count.lm_head) / 32e9, 1.0, 0.01) << glm;
  }
  // Only the experts are MXFP4: 19,116,933,120 expert parameters at 4.25 bits.
  EXPECT_EQ(RoutedExpertParameters(testing::CatalogModel("gpt-oss-20b")), 24LL * 32 * (3 * 2880 * 2880 + 3 * 2880));
}

}  // namespace
}  // namespace infergrid
