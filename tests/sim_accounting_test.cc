// The accounting lesson's figures, as they come out of the memory and roofline reports.
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/commands/command.h"
#include "sim/app/accounting/memory_result.h"
#include "sim/app/accounting/roofline_result.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;
constexpr double kGiB = 1073741824.0;

class AccountingTest : public ::testing::Test {
 protected:
  // Flags as a command line would give them, later ones winning; each test starts from the
  // defaults.
  void Set(const std::string& flag, const std::string& value) { flags_[flag] = value; }

  absl::StatusOr<AccountingSetup> Resolve() {
    std::vector<std::string> args;
    for (const auto& [flag, value] : flags_) args.push_back("--" + flag + "=" + value);
    absl::StatusOr<cli::ParsedCommandLine> parsed = cli::ParseCommandLine(args, MemoryCommand().flags);
    if (!parsed.ok()) return parsed.status();
    return cli::ResolveAccountingSetup(parsed->flags);
  }

  AccountingSetup Setup(const std::string& params = "nominal") {
    Set("params", params);
    absl::StatusOr<AccountingSetup> setup = Resolve();
    EXPECT_TRUE(setup.ok()) << setup.status();
    return setup.ok() ? *setup : AccountingSetup();
  }

 private:
  std::map<std::string, std::string> flags_;
};

// Lesson section 5: Llama 3 8B on H100 SXM, batch 1, S = 8,192, FP16 KV.
TEST_F(AccountingTest, MemoryPayloadTable) {
  const MemoryResult r = BuildMemoryResult(Setup(), 8192, 1);
  EXPECT_EQ(r.parameters().used(), "nominal");
  EXPECT_DOUBLE_EQ(r.weights().bytes(), 16e9);
  EXPECT_NEAR(r.weights().bytes() / kGiB, 14.90, 0.005);
  EXPECT_DOUBLE_EQ(r.kv_cache().bytes_per_token(), 131072);
  EXPECT_DOUBLE_EQ(r.kv_cache().bytes() / kGiB, 1.00);
  EXPECT_NEAR(r.kv_cache().bytes() / 1e9, 1.07, 0.005);
  EXPECT_NEAR(r.payload_bytes() / 1e9, 17.07, 0.005);
  EXPECT_NEAR(r.payload_bytes() / kGiB, 15.90, 0.005);
  EXPECT_EQ(r.device().reported_total_mib(), 81559);
  EXPECT_NEAR(r.device().total_bytes() / 1e9, 85.52, 0.005);
  EXPECT_NEAR(r.device().total_bytes() / kGiB, 79.65, 0.005);
  EXPECT_NEAR(r.remainder_bytes() / kGiB, 63.75, 0.005);
  EXPECT_THAT(r.notes(0), HasSubstr("nominal"));
}

// Lesson section 3.2: weight bytes by precision for the nominal 8e9.
TEST_F(AccountingTest, WeightBytesByPrecision) {
  const std::pair<const char*, double> cases[] = {{"fp16", 16e9}, {"fp8", 8e9}, {"int4", 4e9}, {"fp32", 32e9}};
  for (const auto& [format, bytes] : cases) {
    Set("weight_dtype", format);
    const MemoryResult r = BuildMemoryResult(Setup(), 8192, 1);
    EXPECT_DOUBLE_EQ(r.weights().bytes(), bytes) << format;
  }
  Set("weight_dtype", "fp8");
  EXPECT_NEAR(BuildMemoryResult(Setup(), 8192, 1).weights().bytes() / kGiB, 7.45, 0.005);
  Set("weight_dtype", "int4");
  const MemoryResult int4 = BuildMemoryResult(Setup(), 8192, 1);
  EXPECT_NEAR(int4.weights().bytes() / kGiB, 3.73, 0.005);
  EXPECT_TRUE(int4.weights().raw_floor());
}

// Lesson section 4: weight precision and KV precision are separate decisions.
TEST_F(AccountingTest, Fp8CheckpointWithEitherKvDtype) {
  Set("weight_dtype", "fp8");
  Set("kv_cache_dtype", "fp16");
  MemoryResult r = BuildMemoryResult(Setup(), 8192, 1);
  EXPECT_NEAR(r.weights().bytes() / kGiB, 7.45, 0.005);
  EXPECT_DOUBLE_EQ(r.kv_cache().bytes() / kGiB, 1.00);
  Set("kv_cache_dtype", "fp8");
  r = BuildMemoryResult(Setup(), 8192, 1);
  EXPECT_DOUBLE_EQ(r.kv_cache().bytes() / kGiB, 0.50);
  EXPECT_NEAR(r.kv_cache().bytes() / 1e9, 0.54, 0.005);
}

// NVFP4 and MXFP4 weights: exact bits per weight with their block scales, and FP4 math only
// where the GPU has FP4 tensor cores (elsewhere dequantized to bf16, as vLLM's Marlin does).
TEST_F(AccountingTest, Fp4WeightsCountScalesAndComputeInFp4OnlyOnBlackwell) {
  Set("weight_dtype", "nvfp4");
  AccountingSetup h100 = Setup("exact");
  EXPECT_DOUBLE_EQ(BuildMemoryResult(h100, 8192, 1).weights().bytes(), 8'030'261'248 * 4.5 / 8);
  EXPECT_EQ(h100.compute_dtype, DType::BF16);
  Set("gpu", "b200");
  AccountingSetup b200 = Setup("exact");
  EXPECT_EQ(b200.compute_dtype, DType::FP4_E2M1);
  RooflineQuery q;
  q.context_tokens = 8192;
  const RooflineResult r = BuildRooflineResult(b200, q);
  EXPECT_DOUBLE_EQ(r.bounds().peak_flops(), 9e15);
  EXPECT_EQ(r.bounds().compute_dtype(), "fp4_e2m1");
  Set("weight_dtype", "");
  Set("quantization", "mxfp4");
  AccountingSetup mx = Setup("exact");
  EXPECT_DOUBLE_EQ(BuildMemoryResult(mx, 8192, 1).weights().bytes(), 8'030'261'248 * 4.25 / 8);
  EXPECT_EQ(mx.compute_dtype, DType::FP4_E2M1);
  Set("quantization", "int3");
  absl::StatusOr<AccountingSetup> bad = Resolve();
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("--quantization: unknown method 'int3'"));
}

TEST_F(AccountingTest, ExactCountIsTheDefaultAndIsLabelled) {
  Set("params", "exact");
  absl::StatusOr<AccountingSetup> setup = Resolve();
  ASSERT_TRUE(setup.ok());
  const MemoryResult r = BuildMemoryResult(*setup, 8192, 1);
  EXPECT_EQ(r.parameters().used(), "exact");
  EXPECT_DOUBLE_EQ(r.weights().bytes(), 2.0 * 8'030'261'248);
  EXPECT_DOUBLE_EQ(r.parameters().nominal(), 8e9);
}

TEST_F(AccountingTest, DecodeRooflineAt8K) {
  RooflineQuery q;
  q.context_tokens = 8192;
  q.batch = 1;
  const RooflineResult r = BuildRooflineResult(Setup(), q);
  EXPECT_NEAR(r.flops().total() / 1e9, 20.29, 0.005);
  EXPECT_NEAR(r.bytes().payload() / 1e9, 17.07, 0.005);
  EXPECT_NEAR(r.intensity(), 1.19, 0.005);
  EXPECT_EQ(r.bounds().larger(), "hbm");
  EXPECT_NEAR(r.bounds().machine_balance(), 295, 0.5);
  // Exercise 3: 17.07 GB at a measured 2.1 TB/s memcpy rate is ~8.1 ms.
  EXPECT_NEAR(r.bytes().payload() / 2.1e12 * 1e3, 8.1, 0.05);
}

TEST_F(AccountingTest, PrefillRooflineTableRows) {
  RooflineQuery q;
  q.prefill = true;
  q.batch = 1;
  q.prompt_tokens = 256;
  RooflineResult r = BuildRooflineResult(Setup(), q);
  EXPECT_NEAR(r.flops().attention() / 1e12, 0.017, 0.0005);
  EXPECT_NEAR(r.flops().linear() / 1e12, 4.10, 0.005);
  EXPECT_NEAR(r.flops().total() / 1e12, 4.11, 0.005);
  EXPECT_NEAR(100 * r.flops().attention_share(), 0.4, 0.05);
  q.prompt_tokens = 2048;
  r = BuildRooflineResult(Setup(), q);
  EXPECT_NEAR(r.flops().total() / 1e12, 33.87, 0.005);
  EXPECT_NEAR(100 * r.flops().attention_share(), 3.2, 0.05);
  EXPECT_EQ(r.bounds().larger(), "compute");
  q.causal = true;
  r = BuildRooflineResult(Setup(), q);
  EXPECT_EQ(r.flops().attention_mode(), "causal");
  EXPECT_NEAR(r.flops().total() / 1e12, 32.77 + 0.55, 0.005);
}

TEST_F(AccountingTest, KvDecisionTableFromTheReports) {
  RooflineQuery q;
  q.context_tokens = 8192;
  q.batch = 4;
  Set("kv_cache_dtype", "fp16");
  const RooflineResult fp16 = BuildRooflineResult(Setup(), q);
  Set("kv_cache_dtype", "fp8_e4m3");
  const RooflineResult fp8 = BuildRooflineResult(Setup(), q);
  EXPECT_NEAR(fp16.bytes().payload() / 1e9, 20.29, 0.005);
  EXPECT_NEAR(fp8.bytes().payload() / 1e9, 18.15, 0.005);
  EXPECT_NEAR(100 * (1 - fp8.bytes().payload() / fp16.bytes().payload()), 10.6, 0.05);
}

TEST_F(AccountingTest, BadFlagValuesAreUsageErrors) {
  Set("kv_cache_dtype", "fp7");
  absl::StatusOr<AccountingSetup> setup = Resolve();
  ASSERT_FALSE(setup.ok());
  EXPECT_THAT(setup.status().message(), HasSubstr("--kv-cache-dtype: unknown dtype 'fp7'"));
  Set("kv_cache_dtype", "auto");
  Set("model", "no-such-model");
  setup = Resolve();
  ASSERT_FALSE(setup.ok());
  EXPECT_THAT(setup.status().message(), HasSubstr("--model: unknown model 'no-such-model'"));
}

}  // namespace
}  // namespace infergrid
