// trtllm-bench's own max_batch_size and max_num_tokens (tensorrt_llm/bench/build/tuning.py):
// every expected number below is worked by hand from the rule in
// sim/core/memory_plan/trtllm_bench_tuning.h, with H100's NVML total of 81,559 MiB (79.647 GiB)
// and the checkpoints' parameter counts (Llama-3.1-8B 8,030,261,248; Llama-3.3-70B 70,553,706,496).
#include <string>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "models/parameter_count.h"
#include "sim/core/memory_plan/trtllm_bench_tuning.h"
#include "sim/core/personality/personality_catalog.h"
#include "tests/catalog_model.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

BenchTuning RuleOf(const char* engine) {
  absl::StatusOr<EnginePersonality> p = ResolveEnginePersonality(engine);
  EXPECT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p.ok() && p->has_bench_tuning()) << engine;
  return p.ok() ? p->bench_tuning() : BenchTuning();
}

TrtllmBenchTuningRequest Fp8OnH100(const char* model, int64_t isl, int64_t osl) {
  TrtllmBenchTuningRequest r;
  r.model = testing::CatalogModel(model);
  absl::StatusOr<GpuSpec> gpu = ResolveGpu("h100-sxm");
  EXPECT_TRUE(gpu.ok()) << gpu.status();
  if (gpu.ok()) r.gpu = *gpu;
  absl::StatusOr<WeightFormat> fp8 = ParseWeightFormat("fp8");
  EXPECT_TRUE(fp8.ok());
  if (fp8.ok()) r.weights = *fp8;
  r.kv_dtype = DType::FP8_E4M3;
  r.dataset = {isl, osl, isl};
  return r;
}

TrtllmBenchChoice Choose(const char* engine, const TrtllmBenchTuningRequest& r) {
  absl::StatusOr<TrtllmBenchChoice> c = ChooseTrtllmBenchSettings(RuleOf(engine), r, 2048, 8192);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : TrtllmBenchChoice();
}

bool Logged(const TrtllmBenchChoice& c, const std::string& text) {
  for (const std::string& line : c.log_lines) {
    if (absl::StrContains(line, text)) return true;
  }
  return false;
}

TEST(TrtllmBenchTuning, ParameterCountsTheExpectationsUse) {
  EXPECT_EQ(CountParameters(testing::CatalogModel("llama-3.1-8b")).Total(), 8030261248);
  EXPECT_EQ(CountParameters(testing::CatalogModel("llama-3.3-70b")).Total(), 70553706496);
}

// Llama-3.1-8B FP8, fp8 KV (65,536 B a token), one H100, the PyTorch flow's 0.90:
// weights 8,030,261,248 B = 7.48 GiB, (79.647 - 7.479) x 0.90 = 64.95 GiB = 1,064,171 tokens.
TEST(TrtllmBenchTuning, Llama8BFp8OnH100ChoosesAsTrtllmBench) {
  // F01's 128/128: 4,156.9 requests, capped at 4,096; 8,192 tokens (a 1,024-multiple).
  TrtllmBenchChoice c = Choose("trtllm@pytorch", Fp8OnH100("llama-3.1-8b", 128, 128));
  ASSERT_TRUE(c.tuned);
  EXPECT_NEAR(c.engine_size_gb, 7.479, 0.001);
  EXPECT_NEAR(c.cache_gb, 64.952, 0.001);
  EXPECT_NEAR(c.kv_max_requests, 4156.9, 0.1);
  EXPECT_EQ(c.max_batch_size, 4096);
  EXPECT_EQ(c.max_num_tokens, 8192);  // above the floor of 128 + 4,096
  EXPECT_TRUE(Logged(c, "Estimated max number of requests in KV cache memory: 4156.92"));
  EXPECT_TRUE(Logged(c, "Estimated max batch size (after fine-tune): 4096"));
  EXPECT_TRUE(Logged(c, "Using heuristics or pre-defined settings: max_batch_size=4096, max_num_tokens=8192."));
  // F03's 1000/1000: 532.1 requests -> 640 (a 128-multiple); 1,064 tokens -> the 2,048 minimum.
  c = Choose("trtllm@pytorch", Fp8OnH100("llama-3.1-8b", 1000, 1000));
  EXPECT_EQ(c.max_batch_size, 640);
  EXPECT_EQ(c.max_num_tokens, 2048);
  // F05's 2048/2048: 259.8 requests -> 384; 2,048 tokens, raised to 2,048 + 384 without chunking.
  c = Choose("trtllm@pytorch", Fp8OnH100("llama-3.1-8b", 2048, 2048));
  EXPECT_NEAR(c.kv_max_requests, 259.81, 0.01);
  EXPECT_EQ(c.max_batch_size, 384);
  EXPECT_EQ(c.max_num_tokens, 2432);
  EXPECT_TRUE(Logged(c, "Forcing max_num_tokens to 2432."));
}

// Llama-3.3-70B FP8 on one H100: 65.71 GiB of weights leave 13.94 GiB, 12.55 GiB at 0.90, 82,217
// fp8 tokens of 163,840 B.
TEST(TrtllmBenchTuning, Llama70BFp8OnOneH100ChoosesSmallLimits) {
  TrtllmBenchChoice c = Choose("trtllm@pytorch", Fp8OnH100("llama-3.3-70b", 128, 128));
  EXPECT_NEAR(c.kv_max_tokens, 82217, 1);
  EXPECT_NEAR(c.kv_max_requests, 321.16, 0.01);
  EXPECT_EQ(c.max_batch_size, 384);
  EXPECT_EQ(c.max_num_tokens, 2048);  // 642 raw tokens: the minimum
  EXPECT_FALSE(Logged(c, "less than 10 GB"));
  c = Choose("trtllm@pytorch", Fp8OnH100("llama-3.3-70b", 2048, 2048));
  EXPECT_NEAR(c.kv_max_requests, 20.07, 0.01);
  EXPECT_EQ(c.max_batch_size, 64);  // the minimum
  EXPECT_EQ(c.max_num_tokens, 2112);  // 2,048 + 64
  EXPECT_TRUE(Logged(c, "[TRT-LLM] [W] The maximum number of requests in the KV cache is too small"));
}

// The TRT engine flow's early tuning.py takes the weights in decimal GB (70.55 "GB" from a GiB
// total) at its own 0.95, whatever the runtime's fraction, and has no max-ISL floor.
TEST(TrtllmBenchTuning, EarlyRuleTakesWeightsInDecimalGigabytes) {
  TrtllmBenchTuningRequest r = Fp8OnH100("llama-3.3-70b", 128, 128);
  r.user_fraction = 0.5;
  TrtllmBenchChoice c = Choose("trtllm@cpp", r);
  EXPECT_NEAR(c.engine_size_gb, 70.554, 0.001);
  EXPECT_DOUBLE_EQ(c.fraction, 0.95);
  EXPECT_NEAR(c.kv_max_requests, 221.16, 0.01);
  EXPECT_EQ(c.max_batch_size, 224);
  EXPECT_EQ(c.max_num_tokens, 2048);
  EXPECT_FALSE(Logged(c, "Estimated engine size"));  // not logged before the GiB rule
  EXPECT_FALSE(Logged(c, "Forcing max_num_tokens"));
}

TEST(TrtllmBenchTuning, PytorchFlowEstimatesWithTheUsersFraction) {
  TrtllmBenchTuningRequest r = Fp8OnH100("llama-3.1-8b", 1000, 1000);
  r.user_fraction = 0.5;
  TrtllmBenchChoice c = Choose("trtllm@pytorch", r);
  EXPECT_DOUBLE_EQ(c.fraction, 0.5);
  EXPECT_NEAR(c.kv_max_requests, 532.085 * 0.5 / 0.9, 0.01);  // 295.6 -> 384
  EXPECT_EQ(c.max_batch_size, 384);
}

TEST(TrtllmBenchTuning, ChunkedPrefillKeepsTheRoundedTokens) {
  TrtllmBenchTuningRequest r = Fp8OnH100("llama-3.1-8b", 2048, 2048);
  r.chunked_prefill = true;
  TrtllmBenchChoice c = Choose("trtllm@pytorch", r);
  EXPECT_EQ(c.max_num_tokens, 2048);
  EXPECT_FALSE(Logged(c, "Chunked prefill is disabled"));
}

TEST(TrtllmBenchTuning, UntunedQuantizationKeepsBuildConfigDefaults) {
  TrtllmBenchTuningRequest r = Fp8OnH100("llama-3.1-8b", 128, 128);
  absl::StatusOr<WeightFormat> awq = ParseWeightFormat("awq");
  ASSERT_TRUE(awq.ok());
  r.weights = *awq;
  TrtllmBenchChoice c = Choose("trtllm@pytorch", r);
  EXPECT_FALSE(c.tuned);
  EXPECT_EQ(c.max_batch_size, 2048);
  EXPECT_EQ(c.max_num_tokens, 8192);
  EXPECT_TRUE(Logged(c, "Using default settings because quant_algo not supported"));
}

TEST(TrtllmBenchTuning, WeightsLargerThanTheGpusAreRefusedAsTrtllmBenchRefuses) {
  TrtllmBenchTuningRequest r = Fp8OnH100("llama-3.1-405b", 128, 128);
  absl::StatusOr<TrtllmBenchChoice> c = ChooseTrtllmBenchSettings(RuleOf("trtllm@pytorch"), r, 2048, 8192);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("The model requires at least"));
  r.tensor_parallel = 8;  // 8 x 79.6 GiB hold it
  EXPECT_TRUE(ChooseTrtllmBenchSettings(RuleOf("trtllm@pytorch"), r, 2048, 8192).ok());
}

}  // namespace
}  // namespace infergrid
