// Tests of models/: catalog, exact parameter counts, dtypes, KV size, the accounting lesson's
// pass formulas, config.json import and safetensors headers.
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
  for (const char* name : {"llama-3-8b", "llama-3-70b", "llama-3.1-405b", "mistral-7b",
                           "mixtral-8x7b", "qwen2.5-7b", "qwen2.5-72b", "deepseek-v3", "qwen3-30b-a3b"}) {
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
      {"llama-3-8b-instruct", "llama-3-8b", ""},      // a catalog name with a variant word
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

// The element counts of the published checkpoints.
TEST(ParameterCount, MatchesPublishedCheckpoints) {
  const std::pair<const char*, int64_t> expected[] = {
      {"llama-2-7b", 6'738'415'616},     {"llama-3-8b", 8'030'261'248},
      {"llama-3-70b", 70'553'706'496},   {"llama-3.1-405b", 405'853'388'800},
      {"mistral-7b", 7'241'732'096},     {"mixtral-8x7b", 46'702'792'704},
      {"qwen2.5-0.5b", 494'032'768},     {"qwen2.5-7b", 7'615'616'512},
      {"qwen2.5-72b", 72'706'203'648},   {"llama-3.1-70b", 70'553'706'496},
      {"llama-3.2-1b", 1'235'814'400},   {"llama-3.2-3b", 3'212'749'824},
      {"llama-2-13b", 13'015'864'320},   {"llama-2-70b", 68'976'648'192},
      {"codellama-34b", 33'743'970'304}, {"mistral-7b-v0.3", 7'248'023'552},
      {"qwen2.5-1.5b", 1'543'714'304},   {"qwen2.5-3b", 3'085'938'688},
      {"qwen2.5-14b", 14'770'033'664},   {"qwen2.5-32b", 32'763'876'352},
      // Qwen3's counts include its per-head query and key RMSNorms (qk_norm, 2 x 128 a layer).
      {"qwen3-8b", 8'190'735'360},     {"qwen3-14b", 14'768'307'200},
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
  llama70.set_num_kv_heads(64);              // the MHA variant
  const double mha = KvBytes(llama70, DType::FP16, 8192, 4);
  EXPECT_DOUBLE_EQ(mha, 85'899'345'920.0);   // 85.90 GB = 80 GiB, not "over 160 GB"
  EXPECT_DOUBLE_EQ(mha / gqa, 8.0);          // the 8x reduction itself is right
}

PassInputs Nominal8B(const ModelSpec& m, DType kv) {
  return PassInputs{8e9, 16e9, KvBytesPerToken(m, kv)};
}

// Lesson section 6.2 table.
TEST(PassAccounting, PrefillTable) {
  const ModelSpec m = testing::CatalogModel("llama-3-8b");
  const PassAccounting p256 = PrefillPass(m, Nominal8B(m, DType::FP16), 256, 1);
  EXPECT_EQ(std::round(p256.attention_flops / 1e9), 17.0);  // 0.017 TFLOP
  EXPECT_DOUBLE_EQ(p256.linear_flops, 4.096e12);            // 4.10 TFLOP
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

TEST(HfConfig, ImportsLlama3_8BAsInTheCatalog) {
  const std::string path = testing::WriteFile(testing::TestDir() / "Meta-Llama-3-8B/config.json", R"({
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu",
    "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256,
    "max_position_embeddings": 8192, "rope_theta": 500000.0, "tie_word_embeddings": false,
    "torch_dtype": "bfloat16", "rms_norm_eps": 1e-05})");
  absl::StatusOr<ModelSpec> spec = ResolveModel(path);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name(), "meta-llama-3-8b");
  EXPECT_EQ(spec->head_dim(), 128);
  EXPECT_EQ(spec->dtype(), DType::BF16);
  EXPECT_TRUE(spec->gated_mlp());
  EXPECT_EQ(CountParameters(*spec).Total(), 8'030'261'248);
  EXPECT_EQ(KvBytesPerToken(*spec, DType::FP16), 131072);
}

TEST(HfConfig, ImportsMixtralAndQwen2) {
  absl::StatusOr<ModelSpec> mixtral = ImportHfConfig(R"({"model_type": "mixtral",
    "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 32000,
    "num_local_experts": 8, "num_experts_per_tok": 2, "hidden_act": "silu"})", "mixtral.json");
  ASSERT_TRUE(mixtral.ok()) << mixtral.status();
  EXPECT_EQ(CountParameters(*mixtral).Total(), 46'702'792'704);
  absl::StatusOr<ModelSpec> qwen = ImportHfConfig(R"({"model_type": "qwen2",
    "hidden_size": 3584, "intermediate_size": 18944, "num_attention_heads": 28,
    "num_hidden_layers": 28, "num_key_value_heads": 4, "vocab_size": 152064,
    "tie_word_embeddings": false, "hidden_act": "silu"})", "qwen.json");
  ASSERT_TRUE(qwen.ok()) << qwen.status();
  EXPECT_TRUE(qwen->attention_bias());
  EXPECT_EQ(CountParameters(*qwen).Total(), 7'615'616'512);
}

TEST(HfConfig, ErrorsNameTheFileLineAndField) {
  absl::StatusOr<ModelSpec> bad_json = ImportHfConfig("{\n  \"hidden_size\": 4096,\n  oops\n}", "c.json");
  ASSERT_FALSE(bad_json.ok());
  EXPECT_THAT(bad_json.status().message(), HasSubstr("c.json:3:3: invalid JSON"));

  absl::StatusOr<ModelSpec> missing = ImportHfConfig(R"({"hidden_size": 4096})", "c.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("c.json: missing field \"num_hidden_layers\""));

  absl::StatusOr<ModelSpec> not_int = ImportHfConfig(
      R"({"num_hidden_layers": "32", "hidden_size": 4096, "num_attention_heads": 32, "vocab_size": 10})",
      "c.json");
  ASSERT_FALSE(not_int.ok());
  EXPECT_THAT(not_int.status().message(), HasSubstr("\"num_hidden_layers\" must be an integer"));

  EXPECT_FALSE(ImportHfConfig("[1, 2]", "c.json").ok());
  EXPECT_FALSE(ImportHfConfig("", "c.json").ok());
  absl::StatusOr<ModelSpec> negative = ImportHfConfig(
      R"({"num_hidden_layers": -3, "hidden_size": 4096, "num_attention_heads": 32, "vocab_size": 10})",
      "c.json");
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(negative.status().message(), HasSubstr("out of range"));
}

// The checks every model passes speak of the config's keys as the file writes them, not of
// ModelSpec's fields (num_kv_heads, ffn_dim), and with the one range both hold.
TEST(HfConfig, ModelChecksNameTheConfigsKeys) {
  const std::string llama = R"("hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
    "num_hidden_layers": 32, "vocab_size": 32000)";
  const struct {
    std::string json;
    std::string expected;
    std::string internal;  // the ModelSpec field the message used to name
  } cases[] = {
      {absl::StrCat("{", llama, R"(, "num_key_value_heads": 5})"),
       "c.json: num_attention_heads must be a multiple of num_key_value_heads", "num_kv_heads"},
      {absl::StrCat(R"({"text_config": {)", llama, R"(, "num_key_value_heads": 5}})"),
       "c.json: text_config.num_attention_heads must be a multiple of text_config.num_key_value_heads", "num_kv_heads"},
      {R"({"n_layer": 2, "n_embd": 64, "n_head": 4, "vocab_size": 100, "n_inner": 20000000})",
       "c.json: n_inner must be in 1..1e7", "ffn_dim"},
      {R"({"hidden_size": 1040000, "num_attention_heads": 32, "num_hidden_layers": 2, "vocab_size": 100})",
       "c.json: hidden_size is 1040000; expected 1..1000000", "1..1e6"},
      {absl::StrCat("{", llama, R"(, "model_type": "qwen3_next", "linear_num_key_heads": 2000,
        "linear_num_value_heads": 32, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
        "linear_conv_kernel_dim": 4, "full_attention_interval": 4})"),
       "c.json: field \"linear_num_key_heads\" is 2000; expected 1..1024", "linear_attention's"},
  };
  for (const auto& c : cases) {
    const absl::StatusOr<ModelSpec> spec = ImportHfConfig(c.json, "c.json");
    ASSERT_FALSE(spec.ok()) << c.json;
    EXPECT_THAT(spec.status().message(), HasSubstr(c.expected)) << c.json;
    EXPECT_THAT(spec.status().message(), ::testing::Not(HasSubstr(c.internal))) << c.json;
  }
}

// An imported config equals the catalog entry in everything that decides memory and time;
// only the naming fields may differ.
void ExpectSameShapeAsCatalog(ModelSpec imported, const std::string& name) {
  ModelSpec catalog = testing::CatalogModel(name);
  for (ModelSpec* m : {&imported, &catalog}) {
    m->clear_display_name();
    m->clear_hf_id();
    m->clear_hf_aliases();
    m->clear_tuned_max_position_embeddings();
    m->clear_source();
    m->clear_nominal_parameters();
  }
  EXPECT_EQ(imported.DebugString(), catalog.DebugString()) << name;
}

// DeepSeek-V3's config.json (the fields that decide its shape, as published): multi-head latent
// attention, 256 routed experts and one shared expert after three dense layers, FP8 weights.
constexpr char kDeepSeekV3Config[] = R"({
  "architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
  "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
  "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128,
  "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "moe_layer_freq": 1,
  "first_k_dense_replace": 3, "kv_lora_rank": 512, "q_lora_rank": 1536, "n_group": 8,
  "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "topk_group": 4,
  "max_position_embeddings": 163840, "num_nextn_predict_layers": 1, "hidden_act": "silu",
  "vocab_size": 129280, "torch_dtype": "bfloat16", "tie_word_embeddings": false,
  "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                          "weight_block_size": [128, 128]}})";

TEST(HfConfig, DeepSeekV3ImportsAsTheCatalogEntry) {
  absl::StatusOr<ModelSpec> spec = ImportHfConfig(kDeepSeekV3Config, "deepseek-v3/config.json");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(ValidateModelSpec(*spec, "deepseek-v3").ok());
  ExpectSameShapeAsCatalog(*spec, "deepseek-v3");
  EXPECT_EQ(spec->mla().kv_lora_rank(), 512);
  EXPECT_EQ(spec->head_dim(), 192);
  EXPECT_EQ(spec->num_kv_heads(), 1);
  EXPECT_EQ(spec->moe().first_dense_layers(), 3);
  EXPECT_EQ(spec->moe().num_shared_experts(), 1);
  EXPECT_EQ(spec->checkpoint_quantization(), "fp8");
}

// Qwen3-30B-A3B's config.json as published (Qwen/Qwen3-30B-A3B): 128 experts, top-8, every layer
// sparse, an explicit head_dim (128, not hidden / heads = 64), no sliding window.
constexpr char kQwen3MoeConfig[] = R"({
  "architectures": ["Qwen3MoeForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128,
  "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 6144,
  "max_position_embeddings": 40960, "max_window_layers": 48, "mlp_only_layers": [],
  "model_type": "qwen3_moe", "moe_intermediate_size": 768, "norm_topk_prob": true,
  "num_attention_heads": 32, "num_experts": 128, "num_experts_per_tok": 8, "num_hidden_layers": 48,
  "num_key_value_heads": 4, "output_router_logits": false, "rms_norm_eps": 1e-06,
  "rope_scaling": null, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001,
  "sliding_window": null, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0", "use_cache": true, "use_sliding_window": false,
  "vocab_size": 151936})";

TEST(HfConfig, Qwen3MoeImportsAsTheCatalogEntry) {
  absl::StatusOr<ModelSpec> spec = ImportHfConfig(kQwen3MoeConfig, "qwen3-30b-a3b/config.json");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(ValidateModelSpec(*spec, "qwen3-30b-a3b").ok());
  ExpectSameShapeAsCatalog(*spec, "qwen3-30b-a3b");
  EXPECT_EQ(spec->head_dim(), 128);
  EXPECT_EQ(spec->moe().num_experts(), 128);
  EXPECT_EQ(spec->moe().experts_per_token(), 8);
  EXPECT_EQ(spec->moe().expert_ffn_dim(), 768);
  EXPECT_FALSE(spec->has_mla());
  // Grouped-query attention with the explicit head size: 2 x 48 layers x 4 KV heads x 128 x 2 B.
  EXPECT_EQ(KvBytesPerToken(*spec, DType::BF16), 2 * 48 * 4 * 128 * 2);
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

// Term by term: embedding and LM head, MLA projections (q_a, q_b, kv_a, kv_b, o) and their two
// latent norms, three dense MLPs, 58 layers of 257 experts and a router, two norms a layer and
// the final one. The technical report gives 671B total and 37B activated.
TEST(ParameterCount, DeepSeekV3LatentAttentionAndExperts) {
  const int64_t d = 7168, heads = 128, layers = 61, dense = 3, moe_layers = layers - dense;
  const int64_t attention = d * 1536 + 1536 * heads * 192 + d * (512 + 64) + 512 * heads * (128 + 128) +
                            heads * 128 * d;
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
  EXPECT_NEAR(static_cast<double>(ActiveParametersPerToken(testing::CatalogModel("qwen3-30b-a3b"))), 3.3e9, 0.02 * 3.3e9);
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

TEST(HfConfig, WhatItCannotReadIsRefusedNotGuessed) {
  // Latent attention is read whole or not at all.
  const std::string partial = R"({"model_type": "deepseek_v3", "num_hidden_layers": 2,
      "hidden_size": 256, "num_attention_heads": 4, "vocab_size": 100, "kv_lora_rank": 64,
      "qk_rope_head_dim": 16, "qk_nope_head_dim": 32})";
  absl::StatusOr<ModelSpec> one = ImportHfConfig(partial, "c.json");
  ASSERT_FALSE(one.ok());
  EXPECT_THAT(one.status().message(), HasSubstr("c.json: multi-head latent attention (MLA) needs"));
  EXPECT_THAT(one.status().message(), HasSubstr("field \"v_head_dim\" is missing"));
  // Expert layers every other layer, and quantization methods without a price.
  const std::string base = R"({"model_type": "deepseek_v3", "num_hidden_layers": 4, "hidden_size": 256,
      "num_attention_heads": 4, "vocab_size": 100, "n_routed_experts": 8, "num_experts_per_tok": 2)";
  absl::StatusOr<ModelSpec> freq = ImportHfConfig(base + R"(, "moe_layer_freq": 2})", "c.json");
  ASSERT_FALSE(freq.ok());
  EXPECT_THAT(freq.status().message(), HasSubstr("c.json: field \"moe_layer_freq\" = 2"));
  absl::StatusOr<ModelSpec> bnb = ImportHfConfig(
      base + R"(, "quantization_config": {"quant_method": "bitsandbytes"}})", "c.json");
  ASSERT_FALSE(bnb.ok());
  EXPECT_THAT(bnb.status().message(), HasSubstr("c.json: quantization_config quant_method \"bitsandbytes\" is not modelled"));
  absl::StatusOr<ModelSpec> gptq8 = ImportHfConfig(
      base + R"(, "quantization_config": {"quant_method": "gptq", "bits": 8}})", "c.json");
  EXPECT_FALSE(gptq8.ok());
  absl::StatusOr<ModelSpec> awq = ImportHfConfig(
      base + R"(, "quantization_config": {"quant_method": "awq", "bits": 4}})", "c.json");
  ASSERT_TRUE(awq.ok()) << awq.status();
  EXPECT_EQ(awq->checkpoint_quantization(), "awq");
  // Dense layers must leave some expert layers.
  EXPECT_FALSE(ImportHfConfig(base + R"(, "first_k_dense_replace": 4})", "c.json").ok());
  // The same layer shapes under null latent fields are a plain Llama.
  EXPECT_TRUE(ImportHfConfig(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 256,
      "num_attention_heads": 4, "vocab_size": 100, "kv_lora_rank": null})", "c.json").ok());
}

TEST(HfConfig, UnknownModelTypesAndDenseLayersAmongExpertsAreRefused) {
  absl::StatusOr<ModelSpec> mamba = ImportHfConfig(R"({"model_type": "jamba", "num_hidden_layers": 2,
      "hidden_size": 256, "num_attention_heads": 4, "vocab_size": 100})", "j.json");
  ASSERT_FALSE(mamba.ok());
  EXPECT_THAT(mamba.status().message(), HasSubstr("j.json: model_type \"jamba\" is not supported (supported: llama,"));
  const char* qwen3_moe = R"({"model_type": "qwen3_moe", "num_hidden_layers": 4, "hidden_size": 256,
      "num_attention_heads": 4, "vocab_size": 100, "num_experts": 8, "num_experts_per_tok": 2,
      "moe_intermediate_size": 64)";
  EXPECT_TRUE(ImportHfConfig(absl::StrCat(qwen3_moe, R"(, "decoder_sparse_step": 1, "mlp_only_layers": []})"),
                             "q.json").ok());
  absl::StatusOr<ModelSpec> sparse = ImportHfConfig(absl::StrCat(qwen3_moe, R"(, "decoder_sparse_step": 2})"), "q.json");
  ASSERT_FALSE(sparse.ok());
  EXPECT_THAT(sparse.status().message(), HasSubstr("q.json: field \"decoder_sparse_step\" = 2"));
  absl::StatusOr<ModelSpec> dense = ImportHfConfig(absl::StrCat(qwen3_moe, R"(, "mlp_only_layers": [0]})"), "q.json");
  ASSERT_FALSE(dense.ok());
  EXPECT_THAT(dense.status().message(), HasSubstr("q.json: field \"mlp_only_layers\""));
}

TEST(HfConfig, InconsistentHeadsAreRejectedByValidation) {
  const std::string path = testing::WriteFile(testing::TestDir() / "m/config.json",
      R"({"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 8,
          "num_key_value_heads": 3, "vocab_size": 100, "intermediate_size": 128})");
  absl::StatusOr<ModelSpec> spec = ResolveModel(path);
  ASSERT_FALSE(spec.ok());
  // In the config's words: num_key_value_heads, not ModelSpec's num_kv_heads.
  EXPECT_THAT(spec.status().message(), HasSubstr("multiple of num_key_value_heads"));
}

// A safetensors file: 8-byte little-endian header length, JSON header, then the data.
std::string Safetensors(const std::string& header, size_t data_bytes) {
  std::string file(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) file[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return file + header + std::string(data_bytes, '\0');
}

TEST(Safetensors, CountsParametersPerDtypeFromTheHeader) {
  const std::string header =
      R"({"__metadata__": {"format": "pt"},
          "embed.weight": {"dtype": "BF16", "shape": [10, 4], "data_offsets": [0, 80]},
          "layer.weight": {"dtype": "F8_E4M3", "shape": [4, 4], "data_offsets": [80, 96]},
          "layer.scale": {"dtype": "F32", "shape": [], "data_offsets": [96, 100]}})";
  const std::string path = testing::WriteFile(testing::TestDir() / "model.safetensors",
                                              Safetensors(header, 100));
  absl::StatusOr<SafetensorsSummary> s = ReadSafetensorsHeader(path);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->tensors, 3);
  EXPECT_EQ(s->elements, 40 + 16 + 1);
  EXPECT_EQ(s->bytes, 100);
  EXPECT_EQ(s->by_dtype.at("BF16").elements, 40);
  EXPECT_EQ(s->by_dtype.at("F8_E4M3").bytes, 16);
  EXPECT_EQ(s->by_dtype.at("F32").elements, 1);
}

TEST(Safetensors, FolderSumsItsShards) {
  const auto dir = testing::TestDir();
  testing::WriteFile(dir / "a.safetensors",
      Safetensors(R"({"x": {"dtype": "F16", "shape": [3], "data_offsets": [0, 6]}})", 6));
  testing::WriteFile(dir / "b.safetensors",
      Safetensors(R"({"y": {"dtype": "F16", "shape": [2, 2], "data_offsets": [0, 8]}})", 8));
  absl::StatusOr<SafetensorsSummary> s = ReadSafetensorsHeader(dir.string());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->elements, 7);
}

TEST(Safetensors, RejectsMalformedHeaders) {
  const auto dir = testing::TestDir();
  struct Case { const char* name; std::string contents; const char* error; };
  const Case cases[] = {
      {"short", std::string("\x05\x00", 2), "shorter than its 8-byte header length"},
      {"huge_length", std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8) + "{}", "exceeds the file"},
      {"not_json", Safetensors("{nope", 0), "invalid JSON"},
      {"array", Safetensors("[1]", 0), "not a JSON object"},
      {"no_dtype", Safetensors(R"({"t": {"shape": [1], "data_offsets": [0, 2]}})", 2), "missing \"dtype\""},
      {"bad_dtype", Safetensors(R"({"t": {"dtype": "Q3", "shape": [1], "data_offsets": [0, 2]}})", 2), "unknown dtype"},
      {"negative_dim", Safetensors(R"({"t": {"dtype": "F16", "shape": [-1], "data_offsets": [0, 2]}})", 2), "non-negative"},
      {"span_mismatch", Safetensors(R"({"t": {"dtype": "F16", "shape": [4], "data_offsets": [0, 2]}})", 2), "needs 8"},
      {"past_end", Safetensors(R"({"t": {"dtype": "F16", "shape": [4], "data_offsets": [0, 8]}})", 2), "fall outside"},
      {"overflow", Safetensors(R"({"t": {"dtype": "F16", "shape": [4294967296, 4294967296], "data_offsets": [0, 8]}})", 8), "overflows"},
  };
  for (const Case& c : cases) {
    const std::string path = testing::WriteFile(dir / (std::string(c.name) + ".safetensors"), c.contents);
    absl::StatusOr<SafetensorsSummary> s = ReadSafetensorsHeader(path);
    ASSERT_FALSE(s.ok()) << c.name;
    EXPECT_THAT(s.status().message(), HasSubstr(c.error)) << c.name;
    EXPECT_THAT(s.status().message(), HasSubstr(path)) << c.name;
  }
}

// The one catalog loader: entries in file order with their paths; a file that does not parse,
// or that its catalog's validator refuses, is a build defect that stops the program naming it.
TEST(EmbeddedCatalog, LoadsInFileOrderAndStopsOnABrokenEntry) {
  const ModelSpec llama = *ResolveModel("llama-3-8b");
  const std::string text = llama.DebugString();
  const EmbeddedFile good[] = {{"catalog/b.textproto", text}, {"catalog/a.textproto", text}};
  const std::vector<CatalogEntry<ModelSpec>> entries = LoadEmbeddedCatalog<ModelSpec>(good, "catalog", ValidateModelSpec);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].path, "catalog/b.textproto");
  EXPECT_EQ(entries[1].path, "catalog/a.textproto");
  EXPECT_EQ(entries[1].message.num_layers(), 32);

  const EmbeddedFile unparsable[] = {{"catalog/broken.textproto", "name: \"x\"\nnum_layers: many\n"}};
  EXPECT_DEATH(LoadEmbeddedCatalog<ModelSpec>(unparsable, "catalog", ValidateModelSpec),
               "infergrid: internal catalog error: catalog/broken.textproto:2");
  ModelSpec no_layers = llama;
  no_layers.set_num_layers(0);
  const std::string invalid_text = no_layers.DebugString();
  const EmbeddedFile invalid[] = {{"catalog/invalid.textproto", invalid_text}};
  EXPECT_DEATH(LoadEmbeddedCatalog<ModelSpec>(invalid, "model", ValidateModelSpec),
               "infergrid: internal model error: catalog/invalid.textproto");
  // Without a validator the parse is the only check.
  EXPECT_EQ(LoadEmbeddedCatalog<ModelSpec>(invalid, "model", NoCatalogCheck<ModelSpec>).size(), 1u);
}

TEST(TextProto, ErrorsNameFileLineAndColumn) {
  ModelSpec spec;
  absl::Status status = ParseTextProto("name: \"x\"\nnum_layers: 3\nbogus: 1\n", "m.textproto", &spec);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("m.textproto:3:"));
  EXPECT_THAT(status.message(), HasSubstr("bogus"));
}

TEST(ResolveModel, TextprotoFileAndValidation) {
  const auto dir = testing::TestDir();
  const std::string good = testing::WriteFile(dir / "tiny.textproto",
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
