// models/model_catalog.h: the catalog's required models, Hugging Face ids, unknown names, a
// textproto file resolved and validated.

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

TEST(ModelCatalog, HasTheRequiredModels) {
  for (const char* name : {"llama-3-8b", "llama-3-70b", "llama-3.1-405b", "mistral-7b", "mixtral-8x7b", "qwen2.5-7b",
                           "qwen2.5-72b", "deepseek-v3", "qwen3-30b-a3b"}) {
    EXPECT_TRUE(FindCatalogModel(name).ok()) << name;
  }
  EXPECT_TRUE(FindCatalogModel("Llama-3-8B").ok()) << "names are case-insensitive";
}

// The ids the engines' --model takes, as published on Hugging Face, name the catalog entry of
// their architecture; a quantized re-upload's suffix names the weight format it ships in.
TEST(ModelCatalog, HuggingFaceIdsNameTheirArchitecture) {
  const struct {
    const char* id;
    const char* entry;
    const char* quantization;
  } cases[] = {
      {"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b", ""},
      {"meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b", ""},  // the repository's first name
      {"meta-llama/Meta-Llama-3-8B-Instruct", "llama-3-8b", ""},
      {"meta-llama/Llama-3.1-70B-Instruct", "llama-3.1-70b", ""},
      {"meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b", ""},
      {"meta-llama/Llama-3.2-1B-Instruct", "llama-3.2-1b", ""},
      {"meta-llama/Llama-2-7b-chat-hf", "llama-2-7b", ""},
      {"meta-llama/Llama-2-70b-hf", "llama-2-70b", ""},
      {"codellama/CodeLlama-34b-Instruct-hf", "codellama-34b", ""},
      {"mistralai/Mistral-7B-Instruct-v0.3", "mistral-7b-v0.3", ""},
      {"mistralai/Mistral-7B-Instruct-v0.2", "mistral-7b-v0.2", ""},
      {"mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b", ""},
      {"Qwen/Qwen2.5-32B-Instruct", "qwen2.5-32b", ""},
      {"Qwen/Qwen3-8B", "qwen3-8b", ""},
      {"deepseek-ai/DeepSeek-R1", "deepseek-v3", "fp8"},
      {"Llama-3.1-8B-Instruct", "llama-3.1-8b", ""},  // no organisation
      {"llama-3-8b-instruct", "llama-3-8b", ""},  // a catalog name with a variant word
      {"nvidia/Llama-3.1-8B-Instruct-FP8", "llama-3.1-8b", "fp8"},
      {"neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", "llama-3.1-8b", "fp8"},
      {"RedHatAI/Meta-Llama-3.1-70B-Instruct-FP8-dynamic", "llama-3.1-70b", "fp8"},
      {"hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "llama-3.1-70b", "awq"},
      {"Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "qwen2.5-7b", "gptq"},
      {"nvidia/Llama-3.3-70B-Instruct-FP4", "llama-3.3-70b", "nvfp4"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<ModelSpec> spec = FindCatalogModel(c.id);
    ASSERT_TRUE(spec.ok()) << c.id << ": " << spec.status();
    EXPECT_EQ(spec->name(), c.entry) << c.id;
    EXPECT_EQ(spec->checkpoint_quantization(), c.quantization) << c.id;
  }
  // Qwen2.5's instruct repositories say max_position_embeddings 32,768 where the base models
  // say 131,072; Llama-3.1's say the same for both.
  EXPECT_EQ(FindCatalogModel("Qwen/Qwen2.5-7B-Instruct")->max_position_embeddings(), 32768);
  EXPECT_EQ(FindCatalogModel("Qwen/Qwen2.5-72B-Instruct-AWQ")->max_position_embeddings(), 32768);
  EXPECT_EQ(FindCatalogModel("Qwen/Qwen2.5-7B")->max_position_embeddings(), 131072);
  EXPECT_EQ(FindCatalogModel("qwen2.5-7b")->max_position_embeddings(), 131072);
  EXPECT_EQ(FindCatalogModel("meta-llama/Llama-3.1-8B-Instruct")->max_position_embeddings(), 131072);
  // An 8-bit GPTQ or a w8a8 checkpoint is not a format the name can give: no entry, rather
  // than weights in the wrong format.
  for (const char* id : {"Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8",
                         "meta-llama/Llama-3.1-13B"}) {
    EXPECT_FALSE(FindCatalogModel(id).ok()) << id;
  }
}

TEST(ModelCatalog, UnknownNameListsTheCatalog) {
  absl::StatusOr<ModelSpec> spec = FindCatalogModel("llama-9");
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("unknown model 'llama-9'"));
  EXPECT_THAT(spec.status().message(), HasSubstr("llama-3-8b"));
}

TEST(ResolveModel, TextprotoFileAndValidation) {
  const auto dir = testing::TestDir();
  const std::string good =
      testing::WriteFile(dir / "tiny.textproto",
                         "num_layers: 2 hidden_size: 64 ffn_dim: 128 num_attention_heads: 4 num_kv_heads: 2 "
                         "head_dim: 16 vocab_size: 100 gated_mlp: true dtype: BF16");
  absl::StatusOr<ModelSpec> spec = ResolveModel(good);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name(), "tiny");
  const std::string bad = testing::WriteFile(dir / "bad.textproto", "num_layers: 0 hidden_size: 64");
  absl::StatusOr<ModelSpec> invalid = ResolveModel(bad);
  ASSERT_FALSE(invalid.ok());
  EXPECT_THAT(invalid.status().message(), HasSubstr("num_layers must be in 1..10000"));
}

}  // namespace
}  // namespace infergrid
