// `infergrid models` and `infergrid gpus`: the catalogs as a user lists them, with figures that
// agree with what the other commands use (exact parameter counts, device memory, which cost
// model is measured and which extrapolated), and one-line refusals.
#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/command_runner.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;
using testing::RunInfergrid;

nlohmann::json Entry(const nlohmann::json& list, const std::string& name) {
  for (const nlohmann::json& e : list) {
    if (e["name"] == name) return e;
  }
  ADD_FAILURE() << name << " is not listed";
  return nlohmann::json::object();
}

TEST(CatalogListing, ModelsGiveExactCountsAndTheirShape) {
  const testing::CommandResult r = RunInfergrid("models --format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json models = nlohmann::json::parse(r.out)["models"];
  ASSERT_GE(models.size(), 40u);
  for (size_t i = 1; i < models.size(); ++i) EXPECT_LT(models[i - 1]["name"], models[i]["name"]);
  const nlohmann::json llama = Entry(models, "llama-3-8b");
  EXPECT_EQ(llama["parameters"], 8030261248.0);  // Meta-Llama-3-8B's safetensors hold 8,030,261,248
  EXPECT_EQ(llama["active_parameters"], llama["parameters"]);
  EXPECT_EQ(llama["attention"], "GQA");
  EXPECT_EQ(llama["num_kv_heads"], 8);
  EXPECT_EQ(llama["num_experts"], 0);
  EXPECT_EQ(llama["hf_id"], "meta-llama/Meta-Llama-3-8B");
  const nlohmann::json deepseek = Entry(models, "deepseek-v3");
  EXPECT_EQ(deepseek["attention"], "MLA");
  EXPECT_EQ(deepseek["num_experts"], 256);
  EXPECT_EQ(deepseek["experts_per_token"], 8);
  EXPECT_NEAR(deepseek["parameters"].get<double>(), 671e9, 1e9);
  EXPECT_NEAR(deepseek["active_parameters"].get<double>(), 37.6e9, 0.5e9);
  EXPECT_EQ(deepseek["checkpoint_quantization"], "fp8");
  EXPECT_EQ(Entry(models, "gpt-oss-20b")["attention"], "GQA + sliding window");
  // The table lists the same entries: its count and a row per name.
  const testing::CommandResult table = RunInfergrid("models");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr(std::to_string(models.size()) + " catalog entries"));
  for (const nlohmann::json& e : models) EXPECT_THAT(table.out, HasSubstr("\n" + e["name"].get<std::string>() + " "));
}

TEST(CatalogListing, GpusSayWhichCostModelIsMeasured) {
  const testing::CommandResult r = RunInfergrid("gpus --format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json gpus = nlohmann::json::parse(r.out)["gpus"];
  const nlohmann::json h100 = Entry(gpus, "h100-sxm");
  EXPECT_EQ(h100["calibration"], "measured");
  EXPECT_EQ(h100["calibration_extrapolated"], false);
  EXPECT_EQ(h100["hbm_bytes_per_s"], 3.35e12);
  EXPECT_EQ(h100["bf16_flops"], 989.4e12);  // the datasheet's 1,979 TFLOP/s with sparsity, halved
  EXPECT_NEAR(h100["memory_bytes"].get<double>() / (1ull << 30), 79.6, 0.1);  // nvidia-smi: 81,559 MiB
  const nlohmann::json h200 = Entry(gpus, "h200-sxm");
  EXPECT_EQ(h200["calibration"], "extrapolated from h100-sxm");
  EXPECT_EQ(h200["calibration_extrapolated"], true);
  EXPECT_EQ(Entry(gpus, "gb200")["nvlink_domain_gpus"], 72);
  // simulate on the same GPU names the same profile.
  const testing::CommandResult run =
      RunInfergrid("simulate --gpu=h200-sxm --max-requests=20 --quiet=false --record-wall-time=false");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("h200-sxm (extrapolated from h100-sxm"));
  const testing::CommandResult table = RunInfergrid("gpus");
  EXPECT_THAT(table.out, HasSubstr("extrapolated from h100-sxm"));
  EXPECT_THAT(table.out, HasSubstr(std::to_string(gpus.size()) + " catalog entries"));
}

TEST(CatalogListing, RefusalsAreOneLine) {
  for (const char* args : {"models llama-3-8b", "gpus h100", "gpus --format=xml", "models --gpu=h100-sxm"}) {
    const testing::CommandResult r = RunInfergrid(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(r.out.empty()) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
}

}  // namespace
}  // namespace infergrid
