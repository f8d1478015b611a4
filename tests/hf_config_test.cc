// models/hf_config.h: config.json import, its errors and refusals.

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "base/embedded_catalog.h"
#include "base/textproto.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/attention_layout.h"
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
    "num_local_experts": 8, "num_experts_per_tok": 2, "hidden_act": "silu"})",
                                                     "mixtral.json");
  ASSERT_TRUE(mixtral.ok()) << mixtral.status();
  EXPECT_EQ(CountParameters(*mixtral).Total(), 46'702'792'704);
  absl::StatusOr<ModelSpec> qwen = ImportHfConfig(R"({"model_type": "qwen2",
    "hidden_size": 3584, "intermediate_size": 18944, "num_attention_heads": 28,
    "num_hidden_layers": 28, "num_key_value_heads": 4, "vocab_size": 152064,
    "tie_word_embeddings": false, "hidden_act": "silu"})",
                                                  "qwen.json");
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
      R"({"num_hidden_layers": "32", "hidden_size": 4096, "num_attention_heads": 32, "vocab_size": 10})", "c.json");
  ASSERT_FALSE(not_int.ok());
  EXPECT_THAT(not_int.status().message(), HasSubstr("\"num_hidden_layers\" must be an integer"));

  EXPECT_FALSE(ImportHfConfig("[1, 2]", "c.json").ok());
  EXPECT_FALSE(ImportHfConfig("", "c.json").ok());
  absl::StatusOr<ModelSpec> negative = ImportHfConfig(
      R"({"num_hidden_layers": -3, "hidden_size": 4096, "num_attention_heads": 32, "vocab_size": 10})", "c.json");
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
  absl::StatusOr<ModelSpec> bnb =
      ImportHfConfig(base + R"(, "quantization_config": {"quant_method": "bitsandbytes"}})", "c.json");
  ASSERT_FALSE(bnb.ok());
  EXPECT_THAT(bnb.status().message(),
              HasSubstr("c.json: quantization_config quant_method \"bitsandbytes\" is not modelled"));
  absl::StatusOr<ModelSpec> gptq8 =
      ImportHfConfig(base + R"(, "quantization_config": {"quant_method": "gptq", "bits": 8}})", "c.json");
  EXPECT_FALSE(gptq8.ok());
  absl::StatusOr<ModelSpec> awq =
      ImportHfConfig(base + R"(, "quantization_config": {"quant_method": "awq", "bits": 4}})", "c.json");
  ASSERT_TRUE(awq.ok()) << awq.status();
  EXPECT_EQ(awq->checkpoint_quantization(), "awq");
  // Dense layers must leave some expert layers.
  EXPECT_FALSE(ImportHfConfig(base + R"(, "first_k_dense_replace": 4})", "c.json").ok());
  // The same layer shapes under null latent fields are a plain Llama.
  EXPECT_TRUE(ImportHfConfig(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 256,
      "num_attention_heads": 4, "vocab_size": 100, "kv_lora_rank": null})",
                             "c.json")
                  .ok());
}

TEST(HfConfig, UnknownModelTypesAndDenseLayersAmongExpertsAreRefused) {
  absl::StatusOr<ModelSpec> mamba = ImportHfConfig(R"({"model_type": "jamba", "num_hidden_layers": 2,
      "hidden_size": 256, "num_attention_heads": 4, "vocab_size": 100})",
                                                   "j.json");
  ASSERT_FALSE(mamba.ok());
  EXPECT_THAT(mamba.status().message(), HasSubstr("j.json: model_type \"jamba\" is not supported (supported: llama,"));
  const char* qwen3_moe = R"({"model_type": "qwen3_moe", "num_hidden_layers": 4, "hidden_size": 256,
      "num_attention_heads": 4, "vocab_size": 100, "num_experts": 8, "num_experts_per_tok": 2,
      "moe_intermediate_size": 64)";
  EXPECT_TRUE(
      ImportHfConfig(absl::StrCat(qwen3_moe, R"(, "decoder_sparse_step": 1, "mlp_only_layers": []})"), "q.json").ok());
  absl::StatusOr<ModelSpec> sparse =
      ImportHfConfig(absl::StrCat(qwen3_moe, R"(, "decoder_sparse_step": 2})"), "q.json");
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

// Scout's text_config as published (the fields that decide its shape).
constexpr char kLlama4ScoutConfig[] = R"({"model_type": "llama4", "text_config": {
  "model_type": "llama4_text", "attention_chunk_size": 8192, "head_dim": 128, "hidden_size": 5120,
  "interleave_moe_layer_step": 1, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
  "max_position_embeddings": 10485760, "num_attention_heads": 40, "num_experts_per_tok": 1,
  "num_hidden_layers": 48, "num_key_value_heads": 8, "num_local_experts": 16,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 202048,
  "no_rope_layers": [1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0]}})";

TEST(HfConfig, Llama4ImportsAsTheCatalogEntry) {
  absl::StatusOr<ModelSpec> spec = ImportHfConfig(kLlama4ScoutConfig, "scout/config.json");
  ASSERT_TRUE(spec.ok()) << spec.status();
  const ModelSpec scout = testing::CatalogModel("llama-4-scout");
  EXPECT_EQ(CountParameters(*spec).Total(), CountParameters(scout).Total());
  EXPECT_EQ(CountAttentionLayers(*spec).chunked, 36);
  for (int layer = 0; layer < 48; ++layer) {
    EXPECT_EQ(LayerAttentionKind(*spec, layer), LayerAttentionKind(scout, layer)) << layer;
  }
  EXPECT_EQ(spec->moe().num_shared_experts(), 1);
}

// gpt-oss-20b's config.json as published (the fields that decide its shape).
constexpr char kGptOss20bConfig[] = R"({
  "architectures": ["GptOssForCausalLM"], "attention_bias": true, "experts_per_token": 4,
  "head_dim": 64, "hidden_act": "silu", "hidden_size": 2880, "intermediate_size": 2880,
  "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention",
    "sliding_attention", "full_attention", "sliding_attention", "full_attention"],
  "max_position_embeddings": 131072, "model_type": "gpt_oss", "num_attention_heads": 64,
  "num_experts_per_tok": 4, "num_hidden_layers": 24, "num_key_value_heads": 8,
  "num_local_experts": 32, "quantization_config": {"modules_to_not_convert": ["model.layers.*.self_attn",
  "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"], "quant_method": "mxfp4"},
  "sliding_window": 128, "swiglu_limit": 7.0, "tie_word_embeddings": false,
  "torch_dtype": "bfloat16", "vocab_size": 201088})";

TEST(HfConfig, GptOssImportsWithItsWindowsSinksAndExpertsOnlyQuantization) {
  absl::StatusOr<ModelSpec> spec = ImportHfConfig(kGptOss20bConfig, "gpt-oss-20b/config.json");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(CountParameters(*spec).Total(), CountParameters(testing::CatalogModel("gpt-oss-20b")).Total());
  EXPECT_EQ(CountAttentionLayers(*spec).window, 12);
  EXPECT_EQ(LayerAttentionKind(*spec, 0), SLIDING_WINDOW);
  EXPECT_TRUE(spec->attention().attention_sinks());
  EXPECT_EQ(spec->checkpoint_quantization(), "mxfp4");
  EXPECT_TRUE(spec->checkpoint_quantizes_experts_only());
}

TEST(HfConfig, FamilyWindowRules) {
  // Gemma-2 without layer_types: even layers windowed.
  absl::StatusOr<ModelSpec> gemma2 = ImportHfConfig(R"({"model_type": "gemma2", "num_hidden_layers": 4,
      "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128,
      "sliding_window": 32, "attn_logit_softcapping": 50.0})",
                                                    "g/config.json");
  ASSERT_TRUE(gemma2.ok()) << gemma2.status();
  EXPECT_EQ(LayerAttentionKind(*gemma2, 0), SLIDING_WINDOW);
  EXPECT_EQ(LayerAttentionKind(*gemma2, 1), FULL_ATTENTION);
  EXPECT_EQ(gemma2->attention().attn_logit_softcapping(), 50);
  EXPECT_EQ(gemma2->norms_per_layer(), 4);
  EXPECT_TRUE(gemma2->tie_word_embeddings());
  // Qwen2 declares a window it does not use (use_sliding_window false): full attention.
  absl::StatusOr<ModelSpec> qwen = ImportHfConfig(R"({"model_type": "qwen2", "num_hidden_layers": 4,
      "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128,
      "sliding_window": 131072, "use_sliding_window": false, "max_window_layers": 2})",
                                                  "q/config.json");
  ASSERT_TRUE(qwen.ok()) << qwen.status();
  EXPECT_FALSE(qwen->has_attention());
}

TEST(HfConfig, UnmodelledAttentionIsRefusedByName) {
  const std::string base = R"("num_hidden_layers": 4, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100)";
  const std::pair<std::string, std::string> cases[] = {
      {R"("attention_chunk_size": 8192)", "chunked local attention"},
      {R"("index_topk": 2048)", "lightning indexer"},
      {R"("model_type": "deepseek_v32", "index_n_heads": 64, "index_head_dim": 128, "index_topk": 2048)",
       "without latent attention"},
      {R"("full_attention_interval": 4)", "Qwen3-Next"},
      {R"("sliding_window": 8, "layer_types": ["linear_attention", "full_attention", "full_attention", "full_attention"])",
       "\"linear_attention\""},
      {R"("model_type": "llama4")", "not supported"},
  };
  for (const auto& [extra, message] : cases) {
    absl::StatusOr<ModelSpec> spec = ImportHfConfig(absl::StrCat("{", base, ", ", extra, "}"), "m/config.json");
    ASSERT_FALSE(spec.ok()) << extra;
    EXPECT_THAT(std::string(spec.status().message()), HasSubstr(message)) << extra;
    EXPECT_THAT(std::string(spec.status().message()), HasSubstr("m/config.json")) << extra;
  }
}

}  // namespace
}  // namespace infergrid
