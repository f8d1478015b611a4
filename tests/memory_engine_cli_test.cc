// `infergrid memory --engine=...` (sim/app/commands), as a user runs it: the table with the
// engine's log lines, the JSON capacities (past int32 too), each engine's own flags and the
// errors; the table's numbers against the memory plan's (tests/memory_plan_helpers.h).

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/command_runner.h"
#include "tests/memory_plan_helpers.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;
using testing::RunInfergrid;

constexpr char kV19Args[] =
    "memory --engine=vllm-v1@0.19 --model=llama-3.1-8b --gpu=h100-sxm --gpu-memory-utilization=0.95 "
    "--max-model-len=8192";

TEST(MemoryEngineCli, TablePrintsTermsAndTheEngineLog) {
  const testing::CommandResult r = RunInfergrid(kV19Args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const MemoryPlan plan = Explain(ReferenceRequest(kReference[0])).plan;
  EXPECT_THAT(r.out, HasSubstr("as vllm-v1@0.19"));
  EXPECT_THAT(r.out, HasSubstr("budget = total x 0.95"));
  EXPECT_THAT(r.out, HasSubstr("- activation peak (profile run)"));
  EXPECT_THAT(r.out, HasSubstr("CUDA-graph estimate (not subtracted)"));
  EXPECT_THAT(r.out, HasSubstr("Model loading took 14.99 GiB memory"));
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("GPU KV cache size: ", plan.kv_tokens / 1000, ",")));
  EXPECT_THAT(r.out, HasSubstr("Maximum concurrency for 8,192 tokens per request: 58.1"));
  EXPECT_EQ(r.err, "");
}

TEST(MemoryEngineCli, JsonHasCapacityInBytesTokensAndBlocks) {
  const testing::CommandResult r = RunInfergrid(std::string(kV19Args) + " --format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["engine"], "vllm-v1@0.19");
  ASSERT_TRUE(j["kv_cache"]["tokens"].is_number());
  ASSERT_TRUE(j["kv_cache"]["blocks"].is_number());
  ASSERT_TRUE(j["kv_cache"]["bytes"].is_number());
  EXPECT_NEAR(j["kv_cache"]["tokens"].get<double>(), 476016, 4760);
  EXPECT_EQ(j["kv_cache"]["tokens"].get<int64_t>(), j["kv_cache"]["blocks"].get<int64_t>() * 16);
  EXPECT_NEAR(j["kv_cache"]["bytes"].get<double>() / kGiB, 58.11, 0.03);
  EXPECT_DOUBLE_EQ(j["kv_cache"]["bytes_per_token"].get<double>(), 131072);
  EXPECT_NEAR(j["activation_peak_bytes"].get<double>() / kGiB, 1.89, 0.01);
  EXPECT_EQ(j["fraction_flag"], "gpu_memory_utilization");
  EXPECT_FALSE(j["log_lines"].empty());
}

// A capacity past 2^31 tokens (a one-layer model of 4 bytes a token) is counted in 64 bits in
// memory --engine and in simulate's summary: the int32 fields wrapped it (to 1,827,022,672 here,
// negative for other sizes).
TEST(MemoryEngineCli, CapacitiesPastInt32AreExact) {
  const std::string config = testing::WriteFile(testing::TestDir() / "tiny" / "config.json", R"({"model_type": "llama",
      "hidden_size": 64, "intermediate_size": 64, "num_attention_heads": 64, "num_key_value_heads": 1,
      "num_hidden_layers": 1, "vocab_size": 100, "max_position_embeddings": 8192})");
  const testing::CommandResult r = RunInfergrid("memory --engine=vllm-v1 --format=json --model=" + config);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["kv_cache"]["tokens"].is_number());
  EXPECT_EQ(j["kv_cache"]["tokens"].get<int64_t>(), j["kv_cache"]["blocks"].get<int64_t>() * 16);
  EXPECT_GT(j["kv_cache"]["tokens"].get<int64_t>(), int64_t{1} << 34);
  const std::string tokens = absl::StrCat(j["kv_cache"]["tokens"].get<int64_t>());
  const testing::CommandResult summary =
      RunInfergrid("simulate --max-requests=3 --format=json --record-wall-time=false --model=" + config);
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  const nlohmann::json memory = nlohmann::json::parse(summary.out)["memory"];
  EXPECT_EQ(absl::StrCat(memory["kv_tokens"].get<int64_t>()), tokens);
  EXPECT_EQ(memory["kv_tokens"].get<int64_t>(), memory["num_gpu_blocks"].get<int64_t>() * 16);
}

TEST(MemoryEngineCli, EachEngineWithItsOwnFlags) {
  testing::CommandResult r =
      RunInfergrid("memory --engine=sglang@0.4.1 --model=llama-3.1-8b --mem-fraction-static=0.88 --format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(nlohmann::json::parse(r.out)["kv_cache"]["tokens"].get<double>(), 444500, 4445);

  const std::string gpu = testing::WriteFile(testing::TestDir() / "rtx-5090.textproto", R"(
name: "rtx-5090" display_name: "NVIDIA GeForce RTX 5090" reported_total_mib: 32607
framework_total_gib: 31.84 tensor_peaks { fp16_flops: 209.5e12 } hbm_bytes_per_s: 1.792e12)");
  r = RunInfergrid(
      "memory --engine=trtllm --model=llama-3.1-8b --quantization=fp8 --kv-cache-dtype=fp8 "
      "--block-size=32 --free-gpu-memory-fraction=0.9 --gpu=" +
      gpu);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(
      r.out,
      HasSubstr("Memory usage when calculating max tokens in paged kv cache: total: 31.84 GiB, available: 17.8"));
  EXPECT_THAT(r.out, HasSubstr("Number of tokens per block: 32."));

  r = RunInfergrid(
      "memory --engine=vllm-v0 --model=llama-3-8b --tensor-parallel-size=2 --max-num-seqs=128 "
      "--kv-cache-dtype=fp8 --format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tensor_parallel"], 2);
  EXPECT_EQ(j["max_num_seqs"], 128);
  EXPECT_DOUBLE_EQ(j["kv_cache"]["bytes_per_token"].get<double>(), 32 * 2 * 4 * 128 * 1);

  r = RunInfergrid(
      "memory --engine=vllm-v1 --model=llama-3.1-8b --kv-cache-memory=10GiB --max-model-len=8192 --format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["kv_cache"]["tokens"], 81920);

  r = RunInfergrid(
      "memory --engine=vllm-v1 --model=llama-3.1-8b --num-gpu-blocks-override=2048 --max-model-len=8192 --format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["kv_cache"]["blocks"], 2048);

  r = RunInfergrid(
      "memory --engine=vllm-v1 --model=llama-3.3-70b --quantization=fp8 --pipeline-parallel-size=2 "
      "--tensor-parallel-size=2 --max-model-len=8192");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("pipeline stages (layers: blocks): 40: "));
}

TEST(MemoryEngineCli, BadInputIsAClearError) {
  const testing::CliErrorCase cases[] = {
      {"memory --engine=vllm-v1 --gpu-memory-utilization=1.5", 2, "--gpu-memory-utilization=1.5 is outside (0, 1]"},
      {"memory --engine=vllm-v1 --gpu-memory-utilization=0", 2, "--gpu-memory-utilization=0 is outside (0, 1]"},
      {"memory --engine=sglang --mem-fraction-static=2", 2, "--mem-fraction-static=2 is outside (0, 1]"},
      {"memory --engine=trtllm --free-gpu-memory-fraction=-1", 2, "--free-gpu-memory-fraction=-1 is outside (0, 1]"},
      {"memory --engine=vllm-v1 --mem-fraction-static=0.8", 2,
       "not a vllm-v1 flag; its fraction is --gpu-memory-utilization"},
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --tensor-parallel-size=3", 2,
       "does not divide the 32 attention heads"},
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --pipeline-parallel-size=33", 2, "--pipeline-parallel-size=33"},
      {"memory --engine=vllm-v2", 2, "--engine: unknown engine 'vllm-v2'"},
      {"memory --engine=vllm-v1 --kv-cache-memory=lots", 2, "--kv-cache-memory"},
      {"memory --tensor-parallel-size=2", 2, "--tensor-parallel-size is an engine flag"},
      {"memory --engine=sglang@0.5.3 --swa-full-tokens-ratio=1.5", 2, "--swa-full-tokens-ratio=1.5 is outside (0, 1]"},
      {"memory --engine=sglang@0.4.9 --swa-full-tokens-ratio=0.5", 2, "sglang@0.4.9 does not have (sglang@0.5.3 does)"},
      {"memory --swa-full-tokens-ratio=0.5", 2, "--swa-full-tokens-ratio is an engine flag"},
      {"memory --engine=vllm-v1 --model=llama-3.3-70b", 1, "does not fit"},
      {"memory --engine=sglang --model=llama-3.3-70b", 1, "exceed mem_fraction_static"},
      {"memory --engine=vllm-v1@0.19 --model=llama-3.3-70b --quantization=fp8", 1, "lower --max-model-len"},
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --num-gpu-blocks-override=100", 1, "it holds 1600 tokens"},
      // Overrides checked against the device and the engine (a flag the engine would ignore).
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --num-gpu-blocks-override=2147483647", 2,
       "take 4194304.00 GiB per GPU, more than the GPU's 79.19 GiB"},
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --kv-cache-memory=1e15", 2,
       "--kv-cache-memory=931322.57 GiB is more than the GPU's 79.19 GiB"},
      {"memory --engine=sglang --model=llama-3.1-8b --num-gpu-blocks-override=1000000000", 2,
       "blocks sglang@0.4.9 computes; its cap (--max-total-tokens) only lowers the count"},
      {"simulate --engine=trtllm --num-gpu-blocks-override=1000000000", 1,
       "its cap (max_tokens) only lowers the count"},
      // One range per flag: the command line's, however far past it the value is.
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --pipeline-parallel-size=2000", 2,
       "--pipeline-parallel-size=2000 is out of range (1..1024)"},
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --pipeline-parallel-size=33", 2,
       "--pipeline-parallel-size=33 is more than the 32 layers of llama-3.1-8b"},
      {"memory --engine=vllm-v1 --model=llama-3.1-8b --num-gpu-blocks-override=2147483648", 2,
       "--num-gpu-blocks-override=2147483648 is out of range (0..2147483647)"},
  };
  for (const testing::CliErrorCase& c : cases) testing::ExpectOneLineError(c);
}

}  // namespace
}  // namespace infergrid
