// The infergrid command as users run it: golden tables and JSON, exit codes, and errors that
// name the flag or file and leave nothing on stdout.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;
using testing::RunInfergrid;

void ExpectGolden(const std::string& args, const std::string& golden) {
  const testing::CommandResult r = RunInfergrid(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string expected = testing::ReadAll(testing::SourcePath("tests/golden/" + golden));
  ASSERT_FALSE(expected.empty()) << "missing golden file " << golden;
  EXPECT_EQ(r.out, expected) << "regenerate with: infergrid " << args << " > tests/golden/" << golden;
}

TEST(InfergridCli, MemoryTableGolden) {
  ExpectGolden("memory --model=llama-3-8b --gpu=h100-sxm --params=nominal --context=8192",
               "memory_llama-3-8b_h100_nominal.txt");
}

TEST(InfergridCli, MemoryJsonGolden) {
  ExpectGolden("memory --params=nominal --format=json", "memory_llama-3-8b_h100_nominal.json");
}

TEST(InfergridCli, RooflineDecodeGolden) {
  ExpectGolden("roofline --phase=decode --context=8192 --params=nominal",
               "roofline_decode_llama-3-8b_h100_nominal.txt");
}

TEST(InfergridCli, RooflinePrefillGolden) {
  ExpectGolden("roofline --phase=prefill --prompt=2048 --params=nominal",
               "roofline_prefill_llama-3-8b_h100_nominal.txt");
}

TEST(InfergridCli, JsonFieldsAreNumbersInBaseUnits) {
  const testing::CommandResult r = RunInfergrid(
      "roofline --phase=decode --batch=4 --context=8192 --kv-cache-dtype=fp8 --params=nominal --format=json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["phase"], "decode");
  EXPECT_EQ(j["kv_cache_dtype"], "fp8_e4m3");
  EXPECT_NEAR(j["bytes"]["payload"].get<double>(), 18.15e9, 0.005e9);
  EXPECT_DOUBLE_EQ(j["bytes"]["total"].get<double>() - j["bytes"]["payload"].get<double>(), 4.0 * 65536);
  EXPECT_DOUBLE_EQ(j["bytes"]["kv_read"].get<double>(), 4.0 * 8192 * 65536);
  EXPECT_EQ(j["bounds"]["larger"], "hbm");
  EXPECT_TRUE(j["bounds"]["hbm_s"].is_number());
}

TEST(InfergridCli, VllmSpellingsAreAccepted) {
  const testing::CommandResult a = RunInfergrid("memory --quantization=fp8 --format=json --params=nominal");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(a.out)["weights"]["bytes"].get<double>(), 8e9);
  const testing::CommandResult b = RunInfergrid("memory --dtype float16 --kv_cache_dtype fp8_e5m2 --format json");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(nlohmann::json::parse(b.out)["kv_cache"]["dtype"], "fp8_e5m2");
}

TEST(InfergridCli, ConfigJsonWorksWhereACatalogNameDoes) {
  const std::string path = testing::WriteFile(testing::TestDir() / "tiny/config.json",
                                              R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 256,
          "intermediate_size": 512, "num_attention_heads": 4, "num_key_value_heads": 2,
          "vocab_size": 1000, "torch_dtype": "float16"})");
  const testing::CommandResult r = RunInfergrid("memory --format=json --context=100 --model=" + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model"], "tiny");
  // 2 x 2 layers x 2 KV heads x 64 x 2 B (fp16 from torch_dtype) = 1,024 B per token.
  EXPECT_DOUBLE_EQ(j["kv_cache"]["bytes_per_token"].get<double>(), 1024);
  // embed + lm head 2 x 256,000; per layer 4 x 65,536 - 2 x 32,768 (GQA) + 3 x 131,072 + 512.
  EXPECT_DOUBLE_EQ(j["parameters"]["exact"].get<double>(), 512000 + 2 * (196608 + 393216 + 512) + 256);
}

TEST(InfergridCli, ALatentAttentionConfigIsPricedAsLatentAttention) {
  const std::string path =
      testing::WriteFile(testing::TestDir() / "deepseek-v3/config.json",
                         R"({"model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168,
          "num_attention_heads": 128, "num_key_value_heads": 128, "vocab_size": 129280,
          "intermediate_size": 18432, "moe_intermediate_size": 2048, "n_routed_experts": 256,
          "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
          "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
          "qk_rope_head_dim": 64, "v_head_dim": 128, "torch_dtype": "bfloat16",
          "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}})");
  const testing::CommandResult r = RunInfergrid("memory --format=json --model=" + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  // (512 + 64) x 61 layers x 2 B, and the checkpoint's fp8 weights without a flag.
  EXPECT_DOUBLE_EQ(j["kv_cache"]["bytes_per_token"].get<double>(), 70272);
  EXPECT_DOUBLE_EQ(j["parameters"]["exact"].get<double>(), 671026404352);
  EXPECT_EQ(j["weights"]["format"], "fp8");
  // A partial latent layout is refused with no output.
  const std::string partial =
      testing::WriteFile(testing::TestDir() / "partial/config.json",
                         R"({"model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168,
          "num_attention_heads": 128, "vocab_size": 129280, "kv_lora_rank": 512})");
  const testing::CommandResult bad = RunInfergrid("memory --format=json --model=" + partial);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_EQ(bad.out, "");
  EXPECT_THAT(bad.err, HasSubstr("config.json: multi-head latent attention (MLA) needs kv_lora_rank, "
                                 "qk_nope_head_dim, qk_rope_head_dim and v_head_dim together"));
}

TEST(InfergridCli, SafetensorsCheckpointCount) {
  std::string header = R"({"w": {"dtype": "BF16", "shape": [1000, 3], "data_offsets": [0, 6000]}})";
  std::string file(8, '\0');
  file[0] = static_cast<char>(header.size());
  file += header + std::string(6000, '\0');
  const std::string path = testing::WriteFile(testing::TestDir() / "m.safetensors", file);
  const testing::CommandResult r = RunInfergrid("memory --params=checkpoint --format=json --safetensors=" + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["parameters"]["used"], "checkpoint");
  EXPECT_DOUBLE_EQ(j["parameters"]["count"].get<double>(), 3000);
  EXPECT_DOUBLE_EQ(j["weights"]["bytes"].get<double>(), 6000);
}

TEST(InfergridCli, BadInputGivesOneLineAndNoOutput) {
  const std::string dir = testing::TestDir().string();
  testing::WriteFile(dir + "/broken/config.json", "{\"num_hidden_layers\": 32,,}");
  testing::WriteFile(dir + "/bad.safetensors", std::string("\x10\0\0\0\0\0\0\0{}", 10));
  const std::string broken = "--model=" + dir + "/broken/config.json";
  const std::string bad_st = "--params=checkpoint --safetensors=" + dir + "/bad.safetensors";
  const testing::CliErrorCase cases[] = {
      {"", 2, "usage: infergrid"},
      {"frobnicate", 2, "unknown command 'frobnicate'"},
      {"memory --model=llama-9b", 2, "--model: unknown model 'llama-9b'"},
      {"memory --gpu=h900", 2, "--gpu: unknown GPU 'h900'"},
      {"memory --kv-cache-dtype=fp7", 2, "--kv-cache-dtype: unknown dtype 'fp7'"},
      {"memory --weight-dtype=int3", 2, "--weight-dtype: unknown weight format 'int3'"},
      {"memory --context=-5", 2, "--context=-5 is out of range"},
      {"memory --batch=0", 2, "--batch=0 is out of range"},
      {"memory --batch=abc", 2, "flag --batch"},
      {"memory --context=99999999999999999999", 2, "flag --context"},
      {"memory --phase=decode", 2, "unknown flag --phase"},
      {"memory --bogus", 2, "unknown flag --bogus"},
      {"memory --format=xml", 2, "--format: expected table or json"},
      {"memory --params=checkpoint", 2, "needs --safetensors"},
      {"roofline --phase=middle", 2, "--phase: expected prefill or decode"},
      {"memory --quantization=awq --weight-dtype=fp8", 2, "give the weight format once"},
      {"memory " + broken, 1, "config.json:1:"},
      {"memory " + bad_st, 1, "exceeds the file"},
  };
  for (const testing::CliErrorCase& c : cases) testing::ExpectOneLineError(c);
}

TEST(InfergridCli, HelpListsTheCommandsFlags) {
  const testing::CommandResult r = RunInfergrid("roofline --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("--kv-cache-dtype=auto"));
  EXPECT_THAT(r.out, HasSubstr("--phase=decode"));
}

}  // namespace
}  // namespace infergrid
