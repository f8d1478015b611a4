// models/attention_layout.h: which layers attend how (sliding windows, chunked, linear and sparse
// attention) and what that does to a model's counts, KV bytes and kernels: the 2026 catalog
// entries (Llama-4, Qwen3-Next, DeepSeek-V3.2) against their published checkpoints.
#include <cstdint>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/attention_layout.h"
#include "models/hf_config.h"
#include "models/iteration_kernels.h"
#include "models/kv_cache_groups.h"
#include "models/kv_cache_size.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "tests/catalog_model.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

TEST(AttentionLayout, PatternsRepeatFromLayerZero) {
  const ModelSpec oss = testing::CatalogModel("gpt-oss-20b");
  EXPECT_EQ(LayerAttentionKind(oss, 0), SLIDING_WINDOW);
  EXPECT_EQ(LayerAttentionKind(oss, 1), FULL_ATTENTION);
  EXPECT_EQ(LayerAttentionKind(oss, 23), FULL_ATTENTION);
  EXPECT_EQ(CountAttentionLayers(oss).window, 12);
  // Gemma-3-1B: six-layer pattern over 26 layers, layers 5, 11, 17, 23 full; 24 and 25 windowed.
  const ModelSpec gemma = testing::CatalogModel("gemma-3-1b");
  EXPECT_EQ(CountAttentionLayers(gemma).full, 4);
  EXPECT_EQ(LayerAttentionKind(gemma, 25), SLIDING_WINDOW);
  // Mistral-7B v0.1: a window and no pattern: every layer.
  EXPECT_EQ(CountAttentionLayers(testing::CatalogModel("mistral-7b")).window, 32);
  EXPECT_EQ(SlidingWindowTokens(testing::CatalogModel("mistral-7b-v0.2")), 0);
  // Only the stage's layers count: gpt-oss layers 3..8 hold windowed 4, 6, 8.
  EXPECT_EQ(CountAttentionLayers(oss, 3, 6).window, 3);
}

TEST(AttentionLayout, PrefillPairsMatchTheQueryByQuerySum) {
  for (int64_t window : {0, 1, 3, 16, 128}) {
    for (int64_t context : {0, 1, 5, 127, 128, 300}) {
      for (int64_t n : {1, 2, 7, 128, 500}) {
        double expected = 0;
        for (int64_t i = 0; i < n; ++i) expected += static_cast<double>(AttendedKeys(context + i, window));
        EXPECT_EQ(PrefillPairs(n, context, window), expected) << window << " " << context << " " << n;
      }
    }
  }
  // Without a window: n*c + n(n+1)/2.
  EXPECT_EQ(PrefillPairs(100, 50, 0), 100.0 * 50 + 100.0 * 101 / 2);
}

TEST(AttentionLayout, InconsistentLayoutsAreRefused) {
  ModelSpec m = testing::CatalogModel("gpt-oss-20b");
  m.mutable_attention()->set_sliding_window(0);
  EXPECT_THAT(std::string(ValidateModelSpec(m, "x").message()), HasSubstr("sliding_window must be positive"));
  m = testing::CatalogModel("llama-3-8b");
  m.mutable_attention()->set_sliding_window(4096);
  m.mutable_attention()->add_layer_pattern(FULL_ATTENTION);
  EXPECT_THAT(std::string(ValidateModelSpec(m, "x").message()), HasSubstr("windows no layer"));
  m = testing::CatalogModel("deepseek-v3");
  m.mutable_attention()->set_sliding_window(128);
  EXPECT_THAT(std::string(ValidateModelSpec(m, "x").message()), HasSubstr("not modelled"));
}

TEST(AttentionLayout, ChunkedPairsMatchTheQueryByQuerySum) {
  for (int64_t chunk : {1, 4, 16, 8192}) {
    for (int64_t context : {0, 3, 15, 16, 8191, 20000}) {
      for (int64_t n : {1, 5, 17, 100, 9000}) {
        double expected = 0;
        for (int64_t i = 0; i < n; ++i) expected += static_cast<double>(ChunkedKeys(context + i, chunk));
        EXPECT_EQ(ChunkedPrefillPairs(n, context, chunk), expected) << chunk << " " << context << " " << n;
      }
    }
  }
}

// Llama-4: RoPE layers (three of four) attend within 8,192-token chunks; Maverick's experts sit
// in every other layer (1, 3, ..., 47) with dense layers of 16,384 between them.
TEST(Llama4, ChunkedLayersAndInterleavedExperts) {
  const ModelSpec maverick = testing::CatalogModel("llama-4-maverick");
  EXPECT_EQ(CountAttentionLayers(maverick).chunked, 36);
  EXPECT_EQ(LayerAttentionKind(maverick, 3), FULL_ATTENTION);
  EXPECT_EQ(AttentionChunkTokens(maverick), 8192);
  EXPECT_FALSE(IsExpertLayer(maverick, 0));
  EXPECT_TRUE(IsExpertLayer(maverick, 1));
  EXPECT_EQ(ExpertLayers(maverick), 24);
  EXPECT_EQ(ExpertLayers(maverick, 0, 5), 2);
  EXPECT_EQ(ExpertLayers(testing::CatalogModel("llama-4-scout")), 48);
  // Counts by hand (text model): Maverick 3,019,898,880 attention + 24 dense MLPs of 251,658,240
  // + 24 expert layers of 128 x 125,829,120 routed, one shared and a 655,360 router + norms
  // and both embeddings = 400,711,848,960, Meta's "400B"; 17B active for both.
  EXPECT_EQ(CountParameters(maverick).Total(), 400'711'848'960);
  EXPECT_EQ(CountParameters(testing::CatalogModel("llama-4-scout")).Total(), 107'769'861'120);  // 109B with vision
  EXPECT_NEAR(ActiveParametersPerToken(maverick) / 17e9, 1.0, 0.02);
  EXPECT_NEAR(ActiveParametersPerToken(testing::CatalogModel("llama-4-scout")) / 17e9, 1.0, 0.02);

  IterationKernelOptions options;
  options.tensor_parallel = 8;
  absl::StatusOr<IterationKernelBuilder> builder = IterationKernelBuilder::Create(maverick, options);
  ASSERT_TRUE(builder.ok()) << builder.status();
  BatchShape decode;
  decode.decode_context_tokens = {10000};
  IterationKernels kernels;
  builder->Build(decode, &kernels);
  double chunked = 0, full = 0;
  for (const Kernel& k : kernels) {
    if (std::string(k.name) == "attention_decode_chunked") chunked = k.tensor_flops;
    if (std::string(k.name) == "attention_decode") full = k.tensor_flops;
  }
  // 5 query heads of 128 per GPU: position 10,000 sees 10,000 mod 8,192 + 1 = 1,809 keys in its
  // chunk, 10,001 in the NoPE layers.
  EXPECT_EQ(chunked, 4.0 * 5 * 128 * 1809);
  EXPECT_EQ(full, 4.0 * 5 * 128 * 10001);
}

// Qwen3-Next's Gated DeltaNet layers hold a fixed state per sequence: at TP 1 the convolution's
// 3 x (2 x 16 x 128 + 32 x 128) = 24,576 and the recurrent 32 x 128 x 128 = 524,288 elements,
// in bf16 1,097,728 B a layer, whatever the sequence's length.
TEST(LinearAttention, StateDoesNotGrowWithContext) {
  const ModelSpec next = testing::CatalogModel("qwen3-next-80b-a3b");
  EXPECT_EQ(CountAttentionLayers(next).linear, 36);
  EXPECT_EQ(LinearStateBytesPerLayer(next, 1), (3 * (2 * 16 * 128 + 32 * 128) + 32 * 128 * 128) * 2);
  EXPECT_EQ(LinearStateBytesPerLayer(next, 2), LinearStateBytesPerLayer(next, 1) / 2);
  const double per_token = 12.0 * 2 * 2 * 256 * 2;  // 12 attention layers, 2 KV heads of 256
  const double states = 36.0 * 1'097'728;
  EXPECT_EQ(KvBytes(next, DType::BF16, 1000, 1), per_token * 1000 + states);
  EXPECT_EQ(KvBytes(next, DType::BF16, 100000, 1), per_token * 100000 + states);
  // Blocks: the state groups hold one each at any length.
  const KvCacheGroups groups = VllmHybridGroups(next, 0, 48);
  EXPECT_EQ(groups.layers_per_group, 12);
  EXPECT_EQ(groups.full_groups, 1);
  EXPECT_EQ(groups.state_groups, 3);
  EXPECT_EQ(groups.BlocksFor(544, 544), 1 + 3);
  EXPECT_EQ(groups.BlocksFor(544 * 100, 544), 100 + 3);
  // The decode kernel reads and writes each sequence's state, not its context.
  IterationKernelOptions options;
  absl::StatusOr<IterationKernelBuilder> builder = IterationKernelBuilder::Create(next, options);
  ASSERT_TRUE(builder.ok()) << builder.status();
  const auto decode_bytes = [&](int64_t context) {
    BatchShape batch;
    batch.decode_context_tokens = {context};
    IterationKernels kernels;
    builder->Build(batch, &kernels);
    for (const Kernel& k : kernels) {
      if (std::string(k.name) == "linear_attention_decode") return k.hbm_bytes;
    }
    return 0.0;
  };
  EXPECT_GT(decode_bytes(100), 2.0 * 1'097'728);
  EXPECT_EQ(decode_bytes(100), decode_bytes(100000));
}

// Qwen3-Next-80B-A3B: 79.67B by its shape (the MTP layer and the shared experts' scalar gates
// left out), Qwen's "80B"; 3.25B active without the embedding and LM head ("A3B").
TEST(LinearAttention, Qwen3NextCountsAndImport) {
  const ModelSpec next = testing::CatalogModel("qwen3-next-80b-a3b");
  EXPECT_NEAR(CountParameters(next).Total() / 80e9, 1.0, 0.01);
  const ParameterBreakdown p = CountParameters(next);
  EXPECT_NEAR((ActiveParametersPerToken(next) - p.embedding - p.lm_head) / 3e9, 1.0, 0.1);
  absl::StatusOr<ModelSpec> imported = ImportHfConfig(R"({"model_type": "qwen3_next",
      "full_attention_interval": 4, "head_dim": 256, "hidden_size": 2048, "intermediate_size": 5120,
      "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_num_key_heads": 16,
      "linear_num_value_heads": 32, "linear_value_head_dim": 128, "max_position_embeddings": 262144,
      "mlp_only_layers": [], "decoder_sparse_step": 1, "moe_intermediate_size": 512,
      "num_attention_heads": 16, "num_experts": 512, "num_experts_per_tok": 10, "num_hidden_layers": 48,
      "num_key_value_heads": 2, "shared_expert_intermediate_size": 512, "tie_word_embeddings": false,
      "torch_dtype": "bfloat16", "use_sliding_window": false, "vocab_size": 151936})",
                                                      "next/config.json");
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(CountParameters(*imported).Total(), p.Total());
  EXPECT_EQ(CountAttentionLayers(*imported).linear, 36);
  EXPECT_EQ(LayerAttentionKind(*imported, 3), FULL_ATTENTION);
}

// DeepSeek-V3.2: the indexer adds 13,959,424 weights a layer (wq_b 1,536 x 8,192, wk 7,168 x
// 128, weights_proj 7,168 x 64, the key's LayerNorm 2 x 128) and 132 B a token and layer to the
// cache (128 fp8 values and an fp32 scale); the latent attention reads at most 2,048 tokens a
// query while the indexer scores them all.
TEST(SparseAttention, IndexerCostsAndTopKReads) {
  const ModelSpec v3 = testing::CatalogModel("deepseek-v3");
  const ModelSpec v32 = testing::CatalogModel("deepseek-v3.2");
  EXPECT_EQ(CountParameters(v32).Total() - CountParameters(v3).Total(), 61LL * 13'959'424);
  EXPECT_EQ(KvBytesPerToken(v32, DType::BF16), KvBytesPerToken(v3, DType::BF16) + 61 * 132);
  IterationKernelOptions options;
  options.tensor_parallel = 8;
  absl::StatusOr<IterationKernelBuilder> builder = IterationKernelBuilder::Create(v32, options);
  ASSERT_TRUE(builder.ok()) << builder.status();
  const auto kernel = [&](int64_t context, const char* name) {
    BatchShape batch;
    batch.decode_context_tokens = {context};
    IterationKernels kernels;
    builder->Build(batch, &kernels);
    for (const Kernel& k : kernels) {
      if (std::string(k.name) == name) return k;
    }
    return Kernel{};
  };
  // 16 heads a GPU, scores over 576 and outputs over 512 latent dimensions.
  const double per_key = 2.0 * 16 * (576 + 512);
  EXPECT_EQ(kernel(999, "attention_sparse").tensor_flops, per_key * 1000);
  EXPECT_EQ(kernel(99999, "attention_sparse").tensor_flops, per_key * 2048);
  EXPECT_EQ(kernel(99999, "indexer_scores").tensor_flops, 2.0 * 64 * 128 * 100000);
  EXPECT_EQ(kernel(99999, "indexer_scores").tensor_dtype, DType::FP8_E4M3);
  absl::StatusOr<ModelSpec> imported = ImportHfConfig(R"({"model_type": "deepseek_v32", "num_hidden_layers": 61,
      "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048, "n_routed_experts": 256,
      "num_experts_per_tok": 8, "n_shared_experts": 1, "first_k_dense_replace": 3, "num_attention_heads": 128,
      "num_key_value_heads": 128, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
      "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 129280, "max_position_embeddings": 163840,
      "index_n_heads": 64, "index_head_dim": 128, "index_topk": 2048, "tie_word_embeddings": false,
      "quantization_config": {"quant_method": "fp8"}})",
                                                      "v32/config.json");
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(CountParameters(*imported).Total(), CountParameters(v32).Total());
  EXPECT_EQ(imported->sparse_attention().index_topk(), 2048);
}

}  // namespace
}  // namespace infergrid
