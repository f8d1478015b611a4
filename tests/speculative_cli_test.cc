// `infergrid simulate` with speculative decoding, as a user runs it (docs/speculative.md): the
// summary's acceptance, a draft model from a config.json, and the flags' errors.

#include <filesystem>
#include <string>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// `flags` on top of 40 requests at 4 req/s (a --max-requests of its own replaces the 40).
nlohmann::json Simulate(const std::string& flags) {
  const std::string count = absl::StrContains(flags, "--max-requests=") ? "" : "--max-requests=40 ";
  const testing::CommandResult r =
      testing::RunInfergrid("simulate --format=json --record-wall-time=false --rate=4 --quiet " + count + flags);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(SpeculativeCli, SummaryReportsTheAcceptanceSeenAndOffIsUnchanged) {
  const nlohmann::json off = Simulate("");
  EXPECT_FALSE(off.contains("speculation"));
  const nlohmann::json eagle =
      Simulate("--speculative-method=eagle --num-speculative-tokens=4 --speculative-acceptance=0.8");
  const nlohmann::json& s = eagle["speculation"];
  EXPECT_EQ(s["method"], "eagle");
  EXPECT_NEAR(s["expected_tokens_per_step"].get<double>(), 3.3616, 1e-9);
  EXPECT_NEAR(s["mean_tokens_per_step"].get<double>(), 3.36, 0.25);
  EXPECT_GT(s["draft_s"].get<double>(), 0);
  EXPECT_EQ(eagle["completed"], 40);
  EXPECT_EQ(eagle["output_tokens"], off["output_tokens"]);  // no token past any output length
  EXPECT_LT(eagle["iterations"]["iterations"].get<int>(), off["iterations"]["iterations"].get<int>());
  EXPECT_GT(s["draft_weight_bytes"].get<double>(), 0);  // one layer's weights, from the KV budget
  EXPECT_LT(eagle["memory"]["num_gpu_blocks"].get<int>(), off["memory"]["num_gpu_blocks"].get<int>());
  const nlohmann::json ngram =
      Simulate("--speculative-model=[ngram] --num-speculative-tokens=3 --speculative-acceptance=0.5");
  EXPECT_EQ(ngram["speculation"]["method"], "ngram");
  EXPECT_EQ(ngram["speculation"]["draft_weight_bytes"], 0);
}

// A draft from a Hugging Face config.json (Llama-3.2-1B's architecture, Llama-3's vocabulary).
TEST(SpeculativeCli, ADraftModelFromConfigJson) {
  const std::string path = testing::WriteFile(
      testing::TestDir() / "llama-3.2-1b/config.json",
      R"({"model_type": "llama", "num_hidden_layers": 16, "hidden_size": 2048, "intermediate_size": 8192,
          "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
          "tie_word_embeddings": true, "torch_dtype": "bfloat16"})");
  const nlohmann::json s = Simulate("--max-requests=10 --num-speculative-tokens=4 --speculative-model=" + path);
  EXPECT_EQ(s["speculation"]["method"], "draft_model");
  EXPECT_EQ(s["speculation"]["draft_model"], "llama-3.2-1b");
  // 16 layers x 8 KV heads x 64 x 2 (K and V) x 2 B.
  EXPECT_EQ(s["speculation"]["draft_kv_bytes_per_token"], 32768);
  EXPECT_EQ(s["completed"], 10);
}

TEST(SpeculativeCli, BadValuesAreOneErrorNamingTheFlagAndNoOutput) {
  const std::string out = (std::filesystem::path(::testing::TempDir()) / "spec_bad_values").string();
  const std::vector<testing::CliErrorCase> cases = {
      {"simulate --num-speculative-tokens=-1 --speculative-method=ngram --out=" + out, 2,
       "--num-speculative-tokens=-1"},
      {"simulate --num-speculative-tokens=3 --speculative-method=ngram --speculative-acceptance=1.5 --out=" + out, 2,
       "--speculative-acceptance=1.5"},
      {"simulate --num-speculative-tokens=3 --speculative-model=no-such-model --out=" + out, 2,
       "--speculative-model=no-such-model"},
      {"simulate --num-speculative-tokens=3 --speculative-model=qwen2.5-0.5b --out=" + out, 2, "vocabulary"},
  };
  for (const testing::CliErrorCase& c : cases) testing::ExpectOneLineError(c);
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(SpeculativeCli, BadCombinationsAreOneErrorNamingTheFlagAndNoOutput) {
  const std::string out = (std::filesystem::path(::testing::TempDir()) / "spec_bad_combinations").string();
  const std::vector<testing::CliErrorCase> cases = {
      {"simulate --num-speculative-tokens=3 --out=" + out, 2, "needs a proposer"},
      {"simulate --speculative-method=eagle --out=" + out, 2, "--num-speculative-tokens"},
      {"simulate --num-speculative-tokens=3 --speculative-method=eagle --scheduler=orca --out=" + out, 2,
       "--num-speculative-tokens"},
  };
  for (const testing::CliErrorCase& c : cases) testing::ExpectOneLineError(c);
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace infergrid
