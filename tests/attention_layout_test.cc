// Sliding-window attention: which layers attend how, what their kernels read, how each engine's
// KV cache holds them (vLLM V1's hybrid groups, worked examples from its code), the 2026 catalog
// entries against their published checkpoints, and the config keys refused by name.
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "models/attention_layout.h"
#include "models/hf_config.h"
#include "models/iteration_kernels.h"
#include "models/kv_cache_groups.h"
#include "models/kv_cache_size.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "models/pass_accounting.h"
#include "sim/core/memory_plan/memory_plan_detail.h"
#include "sim/core/memory_plan/speculative_memory.h"
#include "sim/core/serving/block_manager.h"
#include "tests/catalog_model.h"
#include "tests/memory_plan_request.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// The same model with every layer full attention.
ModelSpec WithoutWindows(ModelSpec spec) {
  spec.clear_attention();
  return spec;
}

using testing::Deployment;

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

// vLLM V1's _get_kv_cache_groups_uniform_page_size, by hand:
//   gpt-oss-20b: 12 sliding + 12 full; min = max = 12 -> group size 12, 1 full + 1 window group.
//   Gemma-3-27B: 52 sliding + 10 full; 52 >= 1.5 x 10 -> group size 10; full: 1 group; sliding:
//     ceil(52 / 10) = 6 groups, the last with 2 layers and 8 padded slots.
//   Mistral-7B v0.1: one kind -> one window group of all 32 layers.
TEST(KvCacheGroups, VllmHybridGroupsWorkedExamples) {
  const KvCacheGroups oss = VllmHybridGroups(testing::CatalogModel("gpt-oss-20b"), 0, 24);
  EXPECT_EQ(oss.layers_per_group, 12);
  EXPECT_EQ(oss.full_groups, 1);
  EXPECT_EQ(oss.window_groups, 1);
  EXPECT_EQ(oss.window_tokens, 128);
  EXPECT_EQ(oss.padded_slots, 0);
  const KvCacheGroups gemma = VllmHybridGroups(testing::CatalogModel("gemma-3-27b"), 0, 62);
  EXPECT_EQ(gemma.layers_per_group, 10);
  EXPECT_EQ(gemma.full_groups, 1);
  EXPECT_EQ(gemma.window_groups, 6);
  EXPECT_EQ(gemma.padded_slots, 8);
  const KvCacheGroups mistral = VllmHybridGroups(testing::CatalogModel("mistral-7b"), 0, 32);
  EXPECT_EQ(mistral.layers_per_group, 32);
  EXPECT_EQ(mistral.full_groups, 0);
  EXPECT_EQ(mistral.window_groups, 1);
  const KvCacheGroups llama = VllmHybridGroups(testing::CatalogModel("llama-3-8b"), 0, 32);
  EXPECT_EQ(llama.layers_per_group, 32);
  EXPECT_EQ(llama.full_groups, 1);
  EXPECT_FALSE(llama.hybrid());
}

// SlidingWindowManager frees the blocks before (L - W + 1) // B: a window of W tokens spans at
// most ceil((W - 1) / B) + 1 blocks. gpt-oss at B = 16: ceil(127 / 16) + 1 = 9.
TEST(KvCacheGroups, BlocksPerSequenceStopGrowingInWindowGroups) {
  const KvCacheGroups oss = VllmHybridGroups(testing::CatalogModel("gpt-oss-20b"), 0, 24);
  EXPECT_EQ(oss.WindowBlocks(16), 9);
  // 100 tokens: 7 blocks in each group, as a full-attention cache of 24 layers takes 7 blocks
  // of twice the size.
  EXPECT_EQ(oss.BlocksFor(100, 16), 7 + 7);
  // 131,072 tokens: 8,192 in the full group, 9 in the window group.
  EXPECT_EQ(oss.BlocksFor(131072, 16), 8192 + 9);
  // A state that does not grow past the window: Mistral's blocks at 4,096 and 1M tokens.
  const KvCacheGroups mistral = VllmHybridGroups(testing::CatalogModel("mistral-7b"), 0, 32);
  EXPECT_EQ(mistral.BlocksFor(1 << 20, 16), mistral.BlocksFor(8192, 16));
  EXPECT_EQ(mistral.BlocksFor(1 << 20, 16), (4095 + 15) / 16 + 1);
  // Transfer slots: 12 layers x (every token + the last 128).
  EXPECT_EQ(oss.TokenSlots(1000), 1000 + 128);
}

TEST(KvCacheGroups, BlockManagerChargesEveryGroup) {
  BlockManagerOptions options;
  options.num_gpu_blocks = 100;
  options.block_size = 16;
  options.watermark = 0;
  options.groups = VllmHybridGroups(testing::CatalogModel("gpt-oss-20b"), 0, 24);
  BlockManager blocks(options);
  Sequence seq;
  EXPECT_EQ(blocks.Needed(seq, 100), 14);
  blocks.Grow(seq, blocks.Needed(seq, 100));
  // Growing to 1,000 tokens: the full group adds 63 - 7 blocks, the window group 9 - 7.
  EXPECT_EQ(blocks.Needed(seq, 1000), (63 - 7) + (9 - 7));
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

TEST(IterationKernels, WindowedLayersReadOnlyTheWindow) {
  const ModelSpec oss = testing::CatalogModel("gpt-oss-20b");
  IterationKernelOptions options;
  absl::StatusOr<IterationKernelBuilder> windowed = IterationKernelBuilder::Create(oss, options);
  absl::StatusOr<IterationKernelBuilder> full = IterationKernelBuilder::Create(WithoutWindows(oss), options);
  ASSERT_TRUE(windowed.ok() && full.ok());
  const auto attention = [](const IterationKernelBuilder& b, const BatchShape& batch, const char* name) {
    IterationKernels k;
    b.Build(batch, &k);
    for (const Kernel& kernel : k) {
      if (std::string(kernel.name) == name) return kernel;
    }
    return Kernel{};
  };
  BatchShape decode;
  decode.decode_context_tokens = {10000, 50};
  const Kernel window = attention(*windowed, decode, "attention_decode_window");
  const Kernel whole = attention(*windowed, decode, "attention_decode");
  EXPECT_EQ(window.repeat, 12);
  EXPECT_EQ(whole.repeat, 12);
  // Keys: min(context + 1, 128) per sequence on the window layers, context + 1 on the others.
  const double flops_per_key = 4.0 * 64 * 64;  // 64 query heads of 64
  EXPECT_EQ(window.tensor_flops, flops_per_key * (128 + 51));
  EXPECT_EQ(whole.tensor_flops, flops_per_key * (10001 + 51));
  // Sinks: one more score per query and head in the softmax (4 CUDA-core FLOPs a score).
  EXPECT_EQ(window.cuda_flops, 4.0 * 64 * (128 + 51 + 2));
  // Below the window the two kernels of the windowed model add up to the full model's one.
  BatchShape short_decode;
  short_decode.decode_context_tokens = {20, 100};
  const Kernel unwindowed = attention(*full, short_decode, "attention_decode");
  EXPECT_EQ(unwindowed.repeat, 24);
  EXPECT_EQ(attention(*windowed, short_decode, "attention_decode_window").tensor_flops, unwindowed.tensor_flops);
  BatchShape prefill;
  prefill.prefill = {{.new_tokens = 2048, .context_tokens = 0}};
  EXPECT_EQ(attention(*windowed, prefill, "attention_prefill_window").tensor_flops,
            4.0 * 64 * 64 * PrefillPairs(2048, 0, 128));
}

// The memory plans of gpt-oss-20b on an H100: vLLM V1 cuts blocks of 12 layers and holds every
// token only in the full group; SGLang and TensorRT-LLM allocate the windows as full attention,
// and say so.
TEST(EngineMemory, HybridGroupsByEngine) {
  absl::StatusOr<GpuSpec> gpu = ResolveGpu("h100-sxm");
  ASSERT_TRUE(gpu.ok());
  MemoryPlanRequest r;
  r.model = testing::CatalogModel("gpt-oss-20b");
  r.gpu = *gpu;
  absl::StatusOr<WeightFormat> mxfp4 = ParseWeightFormat("mxfp4");
  ASSERT_TRUE(mxfp4.ok());
  r.weights = *mxfp4;
  r.weights.experts_only = true;
  r.block_size = 0;
  r.engine = "vllm-v1";
  absl::StatusOr<MemoryPlanDetail> v1 = ExplainEngineMemory(r);
  ASSERT_TRUE(v1.ok()) << v1.status();
  const int64_t per_layer_token = 2 * 8 * 64 * 2;
  EXPECT_EQ(v1->plan.kv_bytes_per_token, 12 * per_layer_token);
  EXPECT_EQ(v1->plan.num_blocks, static_cast<int64_t>(v1->plan.kv_cache_bytes / (16.0 * 12 * per_layer_token)));
  EXPECT_TRUE(v1->plan.kv_groups.hybrid());
  EXPECT_THAT(absl::StrJoin(v1->notes, "\n"), HasSubstr("keeps only the window's blocks"));
  for (const char* engine : {"sglang", "trtllm"}) {
    r.engine = engine;
    absl::StatusOr<MemoryPlanDetail> other = ExplainEngineMemory(r);
    ASSERT_TRUE(other.ok()) << other.status();
    EXPECT_FALSE(other->plan.kv_groups.hybrid()) << engine;
    EXPECT_EQ(other->plan.kv_bytes_per_token, 24 * per_layer_token) << engine;
    EXPECT_THAT(absl::StrJoin(other->notes, "\n"), HasSubstr("allocates their KV as full attention")) << engine;
  }
  r.engine = "vllm-v1";
  r.pipeline_parallel = 2;
  EXPECT_THAT(std::string(ExplainEngineMemory(r).status().message()), HasSubstr("not modelled"));
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

TEST(EngineMemory, ChunkedLayersAreAllocatedWhole) {
  const MemoryPlanRequest r = Deployment("llama-4-scout", "h100-sxm", 4, 32768);
  absl::StatusOr<MemoryPlanDetail> plan = ExplainEngineMemory(r);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(plan->plan.kv_groups.hybrid());
  EXPECT_EQ(plan->plan.kv_bytes_per_token, 48 * 2 * 2 * 128 * 2);  // 2 KV heads a GPU
  EXPECT_THAT(absl::StrJoin(plan->notes, "\n"), HasSubstr("8192-token chunks"));
}

// SGLang 0.5.3 keeps Llama-4's 36 chunked layers in a hybrid SWA pool of their own
// (model_runner.py set_num_token_hybrid, swa_full_tokens_ratio 0.8). Worked example, Scout at
// TP 4 on an H200 (2 KV heads of 128 per GPU, bf16: 1,024 B a token and layer): the profiled
// T tokens of every layer (what the plan without the split holds, 0.4.9's) become
//   full = int(T x 48 / (0.8 x 36 + 12)) = int(T x 48 / 40.8),  swa = int(full x 0.8),
// the two pools taking T x 48 layer-tokens between them: 12 x full + 36 x swa <= 48 x T. A
// running sequence's token takes a slot in both, so the capacity is swa, 5.9% below T.
TEST(EngineMemory, SglangSplitsChunkedLayersIntoTheirOwnPool) {
  MemoryPlanRequest r = Deployment("llama-4-scout", "h200-sxm", 4, 131072, "sglang@0.5.3");
  absl::StatusOr<MemoryPlanDetail> split = ExplainEngineMemory(r);
  ASSERT_TRUE(split.ok()) << split.status();
  const int64_t per_layer_token = 2 * 2 * 128 * 2;
  const int64_t t = static_cast<int64_t>(split->plan.kv_cache_bytes / (48.0 * per_layer_token));
  EXPECT_EQ(t, 1'529'851);
  const int64_t full = static_cast<int64_t>(static_cast<double>(t * 48) / 40.8);
  EXPECT_EQ(full, 1'799'824);
  EXPECT_EQ(split->plan.full_pool_tokens, full);
  EXPECT_EQ(split->plan.swa_pool_tokens, 1'439'859);  // int(1,799,824 x 0.8) = int(1,439,859.2)
  EXPECT_EQ(split->plan.swa_pool_layers, 36);
  EXPECT_EQ(split->plan.num_blocks, 1'439'859);
  EXPECT_LE(12 * full + 36 * split->plan.swa_pool_tokens, 48 * t);
  EXPECT_THAT(absl::StrJoin(split->plan.log_lines, "\n"), HasSubstr("max_total_num_tokens=1799824"));
  EXPECT_THAT(absl::StrJoin(split->notes, "\n"), HasSubstr("hybrid SWA pool"));
  // --swa-full-tokens-ratio 0.5: full = int(1,529,851 x 48 / (0.5 x 36 + 12)) = int(2,447,761.6),
  // swa = int(2,447,761 x 0.5).
  MemoryPlanRequest half = r;
  half.swa_full_tokens_ratio = 0.5;
  absl::StatusOr<MemoryPlanDetail> halved = ExplainEngineMemory(half);
  ASSERT_TRUE(halved.ok()) << halved.status();
  EXPECT_EQ(halved->plan.full_pool_tokens, 2'447'761);
  EXPECT_EQ(halved->plan.swa_pool_tokens, 1'223'880);
  EXPECT_EQ(halved->plan.num_blocks, 1'223'880);
  // A draft beside the split pools is refused, not priced as one pool.
  MemoryPlan with_draft = split->plan;
  EXPECT_THAT(std::string(AddDraftToPlan(DraftMemory{1e9, 1e9, 1024}, r, with_draft).message()),
              HasSubstr("hybrid SWA pool is not modelled"));
  // The release before keeps one pool of every layer: T tokens.
  r.engine = "sglang@0.4.9";
  absl::StatusOr<MemoryPlanDetail> one = ExplainEngineMemory(r);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->plan.swa_pool_tokens, 0);
  EXPECT_EQ(one->plan.num_blocks, t);
  // Sliding windows stay full attention in 0.5.3 (forced off for gpt-oss and Gemma).
  r.engine = "sglang@0.5.3";
  r.model = testing::CatalogModel("gemma-3-27b");
  r.tensor_parallel = 2;
  r.max_model_len = 32768;
  absl::StatusOr<MemoryPlanDetail> gemma = ExplainEngineMemory(r);
  ASSERT_TRUE(gemma.ok()) << gemma.status();
  EXPECT_EQ(gemma->plan.swa_pool_tokens, 0);
  EXPECT_THAT(absl::StrJoin(gemma->notes, "\n"), HasSubstr("allocates their KV as full attention"));
  // Pipeline stages with the pool are refused, not priced as something else.
  r.model = testing::CatalogModel("llama-4-scout");
  r.tensor_parallel = 2;
  r.pipeline_parallel = 2;
  EXPECT_THAT(std::string(ExplainEngineMemory(r).status().message()), HasSubstr("hybrid SWA pool across pipeline"));
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

// vLLM aligns the attention block to the state (HybridAttentionMambaModelConfig): at TP 1,
// 16 x ceil(1,097,728 / (16 x 2,048)) = 544 tokens, one state padded to a 1,114,112-B block.
TEST(LinearAttention, VllmAlignsTheBlockToTheState) {
  MemoryPlanRequest r = Deployment("qwen3-next-80b-a3b", "h200-sxm", 1, 32768);
  r.weights = *ParseWeightFormat("fp8");
  absl::StatusOr<MemoryPlanDetail> plan = ExplainEngineMemory(r);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->plan.block_size, 544);
  EXPECT_EQ(plan->plan.kv_bytes_per_token, 12 * 2048);
  EXPECT_EQ(plan->plan.kv_groups.state_groups, 3);
  EXPECT_EQ(plan->plan.num_blocks, static_cast<int64_t>(plan->plan.kv_cache_bytes / (544.0 * 12 * 2048)));
  for (const char* engine : {"sglang@0.4.9", "trtllm"}) {
    r.engine = engine;
    EXPECT_THAT(std::string(ExplainEngineMemory(r).status().message()), HasSubstr("not modelled")) << engine;
  }
}

// SGLang 0.5.3 holds Qwen3-Next's linear-attention states in its Mamba pool (model_runner.py for
// hybrid GDN models, configs/qwen3_next.py mamba_cache_per_req): 512 slots without
// --max-running-requests, each every linear layer's convolution state (3 x 8,192 / TP elements,
// bf16) and recurrent state (32 / TP x 128 x 128, float32). At TP 4: 36 x (6,144 x 2 + 131,072
// x 4) = 36 x 536,576 = 19,316,736 B a slot, 9,890,168,832 B for 512 (9.21 GiB), reserved
// before the KV tokens of the 12 full-attention layers (one KV head of 256 a GPU: 1,024 B a
// layer) are counted. The pool does not grow with the context; the running requests are capped
// to the slots.
TEST(LinearAttention, SglangHoldsTheStatesInAMambaPool) {
  MemoryPlanRequest r = Deployment("qwen3-next-80b-a3b", "h200-sxm", 4, 32768, "sglang@0.5.3");
  absl::StatusOr<MemoryPlanDetail> plan = ExplainEngineMemory(r);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->plan.state_pool_slots, 512);
  EXPECT_DOUBLE_EQ(plan->plan.state_pool_bytes, 512.0 * 36 * (6144 * 2 + 131072 * 4));
  EXPECT_DOUBLE_EQ(plan->plan.state_pool_bytes, 9'890'168'832.0);
  EXPECT_EQ(plan->plan.kv_bytes_per_token, 12 * 1024);
  EXPECT_EQ(plan->max_num_seqs, 512);
  MemoryPlan with_draft = plan->plan;
  EXPECT_THAT(std::string(AddDraftToPlan(DraftMemory{1e9, 1e9, 1024}, r, with_draft).message()),
              HasSubstr("Mamba pool is not modelled"));
  const StagePlan& stage = plan->stages.front();
  EXPECT_DOUBLE_EQ(stage.kv_cache_bytes, stage.free_before_weights_bytes * plan->fraction - stage.weights.Total() -
                                             stage.req_to_token_bytes - 9'890'168'832.0);
  EXPECT_EQ(plan->plan.num_blocks, static_cast<int64_t>(stage.kv_cache_bytes / (12.0 * 1024)));
  // The states do not grow with the context.
  r.max_model_len = 131072;
  absl::StatusOr<MemoryPlanDetail> longer = ExplainEngineMemory(r);
  ASSERT_TRUE(longer.ok()) << longer.status();
  EXPECT_DOUBLE_EQ(longer->plan.state_pool_bytes, plan->plan.state_pool_bytes);
  // --max-running-requests sizes the pool.
  r.max_num_seqs = 64;
  absl::StatusOr<MemoryPlanDetail> fewer = ExplainEngineMemory(r);
  ASSERT_TRUE(fewer.ok()) << fewer.status();
  EXPECT_EQ(fewer->plan.state_pool_slots, 64);
  EXPECT_DOUBLE_EQ(fewer->plan.state_pool_bytes, 64.0 * 19'316'736);
  EXPECT_EQ(fewer->max_num_seqs, 64);
  r.max_num_seqs = 0;
  r.pipeline_parallel = 2;
  EXPECT_THAT(std::string(ExplainEngineMemory(r).status().message()), HasSubstr("Mamba pool across pipeline"));
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
