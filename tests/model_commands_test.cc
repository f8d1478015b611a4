// Every architecture added for 2026 runs through the commands a user points at it: `memory
// --engine`, `roofline` and `simulate` on a deployment it fits (the summary naming the attention
// approximation it used), and `bench` and `plan` on gpt-oss-20b.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/command_runner.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;
using testing::RunInfergrid;

struct Deployment {
  const char* model;
  const char* flags;  // GPU, parallelism, context
  const char* attention;  // what the summary's attention note says ("" for full attention)
};

constexpr Deployment kDeployments[] = {
    {"gpt-oss-20b", "--gpu=h100-sxm", "sliding window 128, sinks"},
    {"gpt-oss-120b", "--gpu=h100-sxm", "sliding window 128, sinks"},
    {"gemma-2-27b", "--gpu=h100-sxm", "logit soft-cap 50"},
    {"gemma-3-27b", "--gpu=h100-sxm --max-model-len=32768", "52 of 62 layers sliding window 1024"},
    {"mistral-7b", "--gpu=h100-sxm", "32 of 32 layers sliding window 4096"},
    {"llama-4-scout", "--gpu=h100-sxm --tensor-parallel-size=4 --max-model-len=32768", "chunked local attention 8192"},
    {"llama-4-maverick", "--gpu=h200-sxm --tensor-parallel-size=8 --max-model-len=32768", "chunked local attention"},
    {"qwen3-next-80b-a3b", "--gpu=h200-sxm --tensor-parallel-size=2 --max-model-len=32768", "linear attention"},
    {"qwen3-235b-a22b", "--gpu=h200-sxm --tensor-parallel-size=4", ""},
    {"kimi-k2", "--gpu=h200-sxm --tensor-parallel-size=8 --max-model-len=32768 --gpu-memory-utilization=0.95", ""},
    {"glm-4.5", "--gpu=h200-sxm --tensor-parallel-size=8", ""},
    {"deepseek-v3.2", "--gpu=h200-sxm --tensor-parallel-size=8", ""},
};

TEST(ModelCommands, EveryNewArchitectureRunsMemoryRooflineAndSimulate) {
  for (const Deployment& d : kDeployments) {
    const std::string base = std::string("--model=") + d.model + " " + d.flags;
    const testing::CommandResult memory = RunInfergrid("memory --engine=vllm-v1 " + base);
    EXPECT_EQ(memory.exit_code, 0) << d.model << "\n" << memory.err;
    EXPECT_THAT(memory.out, HasSubstr("KV capacity")) << d.model;
    // roofline prices one GPU's forward pass: no parallelism flags.
    const testing::CommandResult roofline =
        RunInfergrid(std::string("roofline --model=") + d.model + " --gpu=h200-sxm --context=32768 --batch=8");
    EXPECT_EQ(roofline.exit_code, 0) << d.model << "\n" << roofline.err;
    const std::string out = ::testing::TempDir() + "/model_commands_" + d.model;
    const testing::CommandResult run =
        RunInfergrid("simulate " + base + " --max-requests=30 --rate=2 --outputs=summary --out=" + out);
    ASSERT_EQ(run.exit_code, 0) << d.model << "\n" << run.err;
    const std::string summary = testing::ReadAll(out + "/summary.json");
    EXPECT_THAT(summary, HasSubstr("\"completed\": 30")) << d.model;
    if (*d.attention != '\0') {
      EXPECT_THAT(summary, HasSubstr(std::string("attention: ")));
      EXPECT_THAT(summary, HasSubstr(d.attention)) << d.model;
    }
  }
}

// SGLang 0.5.3's hybrid SWA pool for Llama-4, as a user sees it: both pools in the table, and a
// simulation that runs on the smaller one and says so.
TEST(ModelCommands, SglangHybridSwaPoolForLlama4) {
  const std::string base =
      "--engine=sglang@0.5.3 --model=llama-4-scout --gpu=h200-sxm --tensor-parallel-size=4 --max-model-len=131072";
  const testing::CommandResult memory = RunInfergrid("memory " + base);
  ASSERT_EQ(memory.exit_code, 0) << memory.err;
  EXPECT_THAT(memory.out, HasSubstr("KV allocated: full-attention pool (1,799,824 tokens x 12 layers)"));
  EXPECT_THAT(memory.out, HasSubstr("KV allocated: SWA pool (1,439,859 tokens x 36 layers)"));
  EXPECT_THAT(memory.out, HasSubstr("KV capacity: 1,439,859 tokens per replica"));
  EXPECT_THAT(memory.out, HasSubstr("max_total_num_tokens=1799824"));
  const std::string out = ::testing::TempDir() + "/model_commands_sglang_swa";
  const testing::CommandResult run =
      RunInfergrid("simulate " + base + " --max-requests=20 --rate=2 --outputs=summary --out=" + out);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string summary = testing::ReadAll(out + "/summary.json");
  EXPECT_THAT(summary, HasSubstr("\"completed\": 20"));
  EXPECT_THAT(summary, HasSubstr("held in two pools (SGLang's hybrid SWA pool): 1799824 tokens"));
}

// SGLang 0.5.3's Mamba pool for Qwen3-Next: the state slots in the table, the run capped to them.
TEST(ModelCommands, SglangMambaPoolForQwen3Next) {
  const std::string base =
      "--engine=sglang@0.5.3 --model=qwen3-next-80b-a3b --gpu=h200-sxm --tensor-parallel-size=4 --max-model-len=32768";
  const testing::CommandResult memory = RunInfergrid("memory " + base);
  ASSERT_EQ(memory.exit_code, 0) << memory.err;
  EXPECT_THAT(memory.out, HasSubstr("- Mamba pool (512 linear-attention states)        9.21    9,890,168,832"));
  EXPECT_THAT(memory.out, HasSubstr("max_num_seqs 512"));
  const std::string out = ::testing::TempDir() + "/model_commands_sglang_mamba";
  const testing::CommandResult run =
      RunInfergrid("simulate " + base + " --max-requests=20 --rate=2 --outputs=summary --out=" + out);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string summary = testing::ReadAll(out + "/summary.json");
  EXPECT_THAT(summary, HasSubstr("\"completed\": 20"));
  EXPECT_THAT(summary, HasSubstr("SGLang's Mamba pool of 512 slots"));
}

// TensorRT-LLM's pools per window for gpt-oss, as a user sets them: the pools in the table and
// the JSON, a simulation bound by the window pool (each of its 1,114 blocks x 32 tokens holds a
// fourth of one request's 128-token window), and the settings it does not model refused.
TEST(ModelCommands, TrtllmWindowPoolsForGptOss) {
  const std::string base = "--engine=trtllm --model=gpt-oss-20b --gpu=h100-sxm --max-model-len=8192";
  const std::string pools = " --max-attention-window=128,8192";
  const testing::CommandResult memory = RunInfergrid("memory " + base + pools);
  ASSERT_EQ(memory.exit_code, 0) << memory.err;
  EXPECT_THAT(memory.out, HasSubstr("KV allocated: 8,192-token window pool (71,340 blocks x 12 layers, share 0.9846)"));
  EXPECT_THAT(memory.out, HasSubstr("KV allocated: 128-token window pool (1,114 blocks x 12 layers, share 0.01538)"));
  const testing::CommandResult json = RunInfergrid("memory --format=json " + base + pools);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"window_tokens\": 128"));
  EXPECT_THAT(json.out, HasSubstr("\"blocks_per_request\": 4"));
  const std::string out = ::testing::TempDir() + "/model_commands_trtllm_pools";
  const testing::CommandResult run =
      RunInfergrid("simulate " + base + pools + " --max-requests=400 --rate=100 --outputs=summary --out=" + out);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string summary = testing::ReadAll(out + "/summary.json");
  EXPECT_THAT(summary, HasSubstr("\"completed\": 400"));
  EXPECT_THAT(summary, HasSubstr("1114 blocks for the 12 layers of window 128"));
  const testing::CommandResult vllm =
      RunInfergrid("memory --engine=vllm-v1 --model=gpt-oss-20b --gpu=h100-sxm" + pools);
  EXPECT_EQ(vllm.exit_code, 2);
  EXPECT_THAT(vllm.err, HasSubstr("--engine=vllm-v1@0.21 has no such setting"));
  const testing::CommandResult cached =
      RunInfergrid("simulate " + base + pools + " --enable-prefix-caching --max-requests=5");
  EXPECT_EQ(cached.exit_code, 2);
  EXPECT_THAT(cached.err, HasSubstr("--max-attention-window with --enable-prefix-caching"));
  const testing::CommandResult bad = RunInfergrid("memory " + base + " --max-attention-window=128,x");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("expected window sizes in tokens separated by commas"));
}

TEST(ModelCommands, GptOssBenchAndPlan) {
  const testing::CommandResult bench = RunInfergrid(
      "bench latency --model=openai/gpt-oss-20b --gpu=h100-sxm --input-len=512 --output-len=32 --batch-size=4");
  EXPECT_EQ(bench.exit_code, 0) << bench.err;
  EXPECT_THAT(bench.out, HasSubstr("Avg latency"));
  const testing::CommandResult plan = RunInfergrid(
      "plan --model=gpt-oss-20b --gpu=h100-sxm --slo='ttft_p99<=2s,tpot_p99<=100ms' --target-rate=5 --max-requests=200 "
      "--verify-seeds=1 --tolerance=0.25 --cost-stride=16");
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_THAT(plan.out, HasSubstr("rank"));
}

}  // namespace
}  // namespace infergrid
