// `infergrid train`, `vector-index` and `validate` as users run them: golden tables and JSON,
// the seed document's figures, and bad input (one line on stderr, exit 1 or 2, no stdout).
#include <cmath>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "nlohmann/json.hpp"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;
using testing::RunInfergrid;

// The document's example, and what 45 days would take.
const char kDocumentTrain[] =
    "train --params-count=70e9 --tokens=15e12 --gpu=h100-sxm --num-gpus=1024 "
    "--effective-flops-per-gpu=400e12 --target-days=45";

void ExpectGolden(const std::string& args, const std::string& golden) {
  const testing::CommandResult r = RunInfergrid(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string expected = testing::ReadAll(testing::SourcePath("tests/golden/" + golden));
  ASSERT_FALSE(expected.empty()) << "missing golden file " << golden;
  EXPECT_EQ(r.out, expected) << "regenerate with: infergrid " << args << " > tests/golden/" << golden;
}

nlohmann::json RunJson(const std::string& args) {
  const testing::CommandResult r = RunInfergrid(args + " --format=json");
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

// validate's goldens print the paths as given: run from the source tree with relative paths.
class FromSourceDir : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = std::filesystem::current_path();
    std::filesystem::current_path(testing::SourcePath(""));
  }
  void TearDown() override { std::filesystem::current_path(previous_); }
  std::filesystem::path previous_;
};

const char kValidateArgs[] =
    "validate --predicted=tests/data/validate_predicted.csv "
    "--observed=tests/data/validate_observed.csv --slo-ttft=2 --slo-tpot=0.1";

// The JSON golden recomputed from its own inputs by the seed document's formulas (6·N·D, 2
// forward and 4 backward, time = FLOPs / (GPUs × rate), Chinchilla's 20 tokens per parameter)
// and the H100's dense bf16 peak from the GPU catalog: a second check that does not come from
// the binary that wrote it.
TEST(TrainCli, JsonGoldenAgreesWithTheFormulasRecomputedFromItsInputs) {
  const nlohmann::json j =
      nlohmann::json::parse(testing::ReadAll(testing::SourcePath("tests/golden/train_70b_15t_1024xh100.json")));
  const double n = j["parameters"], d = j["tokens"], gpus = j["num_gpus"], rate = j["effective_flops_per_gpu"];
  const double flops = 6 * n * d;
  EXPECT_DOUBLE_EQ(j["forward_flops"].get<double>(), 2 * n * d);
  EXPECT_DOUBLE_EQ(j["backward_flops"].get<double>(), 4 * n * d);
  EXPECT_DOUBLE_EQ(j["flops"].get<double>(), flops);
  EXPECT_DOUBLE_EQ(j["compute_optimal_tokens"].get<double>(), 20 * n);
  const absl::StatusOr<GpuSpec> h100 = ResolveGpu("h100-sxm");
  ASSERT_TRUE(h100.ok());
  EXPECT_DOUBLE_EQ(j["peak_bf16_flops_per_gpu"].get<double>(), h100->tensor_peaks().fp16_flops());
  // "~400 effective TFLOPS" on an H100 is 40.4% of its dense bf16 peak, not 40%.
  EXPECT_DOUBLE_EQ(j["mfu"].get<double>(), rate / h100->tensor_peaks().fp16_flops());
  EXPECT_DOUBLE_EQ(j["cluster_flops_per_s"].get<double>(), gpus * rate);
  const double seconds = flops / (gpus * rate);
  EXPECT_DOUBLE_EQ(j["seconds"].get<double>(), seconds);
  EXPECT_DOUBLE_EQ(j["days"].get<double>(), seconds / 86400);
  EXPECT_DOUBLE_EQ(j["gpu_hours"].get<double>(), seconds * gpus / 3600);
  // A budget of 6·N·D split at 20 tokens per parameter: 6·P·20P = flops.
  EXPECT_NEAR(j["optimal_parameters_for_budget"].get<double>(), std::sqrt(flops / 120), 1);
  // What 45 days takes, one input at a time.
  const double target_seconds = 45 * 86400.0;
  EXPECT_NEAR(j["target"]["num_gpus"].get<double>(), flops / (rate * target_seconds), 1e-6);
  EXPECT_NEAR(j["target"]["flops_per_gpu"].get<double>(), flops / (gpus * target_seconds), 1);
  EXPECT_NEAR(j["target"]["tokens"].get<double>(), gpus * rate * target_seconds / (6 * n), 1);
  EXPECT_NEAR(j["target"]["flops_per_parameter_token"].get<double>(), gpus * rate * target_seconds / (n * d), 1e-12);
}

TEST(TrainCli, TableGolden) { ExpectGolden(kDocumentTrain, "train_70b_15t_1024xh100.txt"); }

TEST(TrainCli, JsonGolden) {
  ExpectGolden(std::string(kDocumentTrain) + " --format=json", "train_70b_15t_1024xh100.json");
}

TEST(TrainCli, TheDocumentsFortyFiveDays) {
  const nlohmann::json j = RunJson(kDocumentTrain);
  EXPECT_DOUBLE_EQ(j["flops"].get<double>(), 6.3e24);
  EXPECT_NEAR(j["days"].get<double>(), 178.02, 0.01);
  EXPECT_NEAR(j["gpu_hours"].get<double>(), 4.375e6, 1);
  EXPECT_NEAR(j["mfu"].get<double>(), 0.4043, 0.0001) << "400 TFLOP/s of the 989.4 dense bf16 peak";
  EXPECT_NEAR(j["target"]["num_gpus"].get<double>(), 4050.9, 0.1);
  EXPECT_NEAR(j["target"]["flops_per_gpu"].get<double>(), 1.5824e15, 1e11);
  EXPECT_NEAR(j["target"]["fraction_of_bf16_peak"].get<double>(), 1.599, 0.001);
  EXPECT_NEAR(j["target"]["tokens"].get<double>(), 3.79e12, 0.01e12);
  EXPECT_NEAR(j["target"]["flops_per_parameter_token"].get<double>(), 1.517, 0.001);
  EXPECT_DOUBLE_EQ(j["compute_optimal_tokens"].get<double>(), 1.4e12);
  EXPECT_NEAR(j["tokens_per_parameter"].get<double>(), 214.29, 0.01);
}

TEST(TrainCli, CatalogModelAtDefaultMfu) {
  const nlohmann::json j = RunJson("train --model=llama-3-70b --params=nominal --num-gpus=1024");
  EXPECT_EQ(j["model"], "llama-3-70b");
  EXPECT_DOUBLE_EQ(j["parameters"].get<double>(), 7e10);
  EXPECT_EQ(j["tokens_source"], "compute-optimal");
  EXPECT_DOUBLE_EQ(j["tokens"].get<double>(), 1.4e12);
  EXPECT_DOUBLE_EQ(j["mfu"].get<double>(), 0.4);
  EXPECT_EQ(j["rate_source"], "default MFU");
  EXPECT_NEAR(j["effective_flops_per_gpu"].get<double>(), 395.76e12, 1e6);
  EXPECT_FALSE(j.contains("target") && j["target"]["days"].get<double>() > 0);
  // Exact count: 70,553,706,496 parameters from the architecture.
  const nlohmann::json exact = RunJson("train --model=llama-3-70b --tokens=15e12 --seq-len=8192");
  EXPECT_DOUBLE_EQ(exact["parameters"].get<double>(), 70553706496.0);
  EXPECT_DOUBLE_EQ(exact["attention_flops"].get<double>(), 64424509440.0 * 15e12);
}

TEST(TrainCli, MixtureOfExpertsUsesActiveParameters) {
  const nlohmann::json j = RunJson("train --model=mixtral-8x7b --tokens=1e12");
  EXPECT_EQ(j["parameters_source"], "active per token");
  EXPECT_DOUBLE_EQ(j["parameters"].get<double>(), 12879925248.0);  // 2 of 8 experts per token
  EXPECT_DOUBLE_EQ(j["total_parameters"].get<double>(), 46702792704.0);
  EXPECT_DOUBLE_EQ(j["flops"].get<double>(), 6 * j["parameters"].get<double>() * 1e12);
}

TEST(VectorIndexCli, TableGolden) {
  ExpectGolden("vector-index --vectors=1000000 --dim=768", "vector_index_1m_768_fp32_m16.txt");
}

TEST(VectorIndexCli, JsonGolden) {
  ExpectGolden("vector-index --vectors=10000000 --dim=128 --hnsw-m=32 --table-dims=96,128,1536 --format=json",
               "vector_index_10m_128_fp32_m32.json");
}

TEST(VectorIndexCli, FiguresInBaseUnits) {
  const nlohmann::json j = RunJson("vector-index --vectors=1000000 --dim=1536 --vector-dtype=fp16 --id-bytes=8");
  EXPECT_DOUBLE_EQ(j["raw_bytes"].get<double>(), 3.072e9);
  EXPECT_NEAR(j["per_node"]["total_bytes"].get<double>(), 4 + 256 + 132 / 15.0 + 4, 1e-9);
  EXPECT_NEAR(j["overhead"].get<double>(), (264 + 132 / 15.0) / 3072, 1e-12);
  ASSERT_EQ(j["claimed_range"].size(), 3u);
  EXPECT_EQ(j["claimed_range"][0]["m"], 16);
}

TEST_F(FromSourceDir, ValidateTableGolden) { ExpectGolden(kValidateArgs, "validate_fixture.txt"); }

TEST_F(FromSourceDir, ValidateJsonGolden) {
  ExpectGolden(std::string(kValidateArgs) + " --format=json", "validate_fixture.json");
}

TEST_F(FromSourceDir, ValidateFixtureFigures) {
  const nlohmann::json j = RunJson(kValidateArgs);
  EXPECT_EQ(j["confusion"]["true_positives"], 2);
  EXPECT_EQ(j["confusion"]["false_positives"], 1);
  EXPECT_EQ(j["confusion"]["false_negatives"], 1);
  EXPECT_EQ(j["confusion"]["true_negatives"], 16);
  EXPECT_NEAR(j["classification"]["mcc"].get<double>(), 31.0 / 51, 1e-12);
  EXPECT_NEAR(j["classification"]["f1"].get<double>(), 2.0 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(j["classification"]["accuracy"].get<double>(), 0.9);
  EXPECT_EQ(j["latency"][1]["requests"], 19) << "r08 has one output token";
}

TEST(ValidateCli, NeverPredictingAMissScoresHighAccuracyAndZeroMcc) {
  const std::filesystem::path dir = testing::TestDir();
  std::string observed = "id,ttft_s,tpot_s\n";
  std::string predicted = "id,ttft_s,tpot_s\n";
  for (int i = 0; i < 200; ++i) {
    const bool miss = i % 40 == 0;  // 5 misses in 200: 2.5%
    // StrAppend rather than chained std::string operator+, which g++ 12 at -O3 flags with a
    // false -Wrestrict.
    absl::StrAppend(&observed, "q", i, ",", miss ? "3.5" : "0.5", ",0.03\n");
    absl::StrAppend(&predicted, "q", i, ",0.6,0.03\n");
  }
  const std::string args = "validate --slo-ttft=2 --predicted=" + testing::WriteFile(dir / "p.csv", predicted) +
                           " --observed=" + testing::WriteFile(dir / "o.csv", observed);
  const testing::CommandResult r = RunInfergrid(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("accuracy 97.5% while not one of the 5 observed misses is predicted"));
  EXPECT_THAT(r.out, HasSubstr("MCC is undefined"));
  const nlohmann::json j = RunJson(args);
  EXPECT_DOUBLE_EQ(j["classification"]["accuracy"].get<double>(), 0.975);
  EXPECT_EQ(j["classification"]["mcc"], 0);
  EXPECT_EQ(j["classification"]["mcc_defined"], false);
  EXPECT_EQ(j["classification"]["recall"], 0);
  EXPECT_EQ(j["classification"]["precision_defined"], false);
}

TEST(ValidateCli, AllNegativeData) {
  const std::filesystem::path dir = testing::TestDir();
  const std::string csv = "id,ttft_s,tpot_s\na,0.5,0.03\nb,0.7,0.04\n";
  const nlohmann::json j =
      RunJson("validate --slo-ttft=2 --slo-tpot=0.1 --predicted=" + testing::WriteFile(dir / "p.csv", csv) +
              " --observed=" + testing::WriteFile(dir / "o.csv", csv));
  EXPECT_DOUBLE_EQ(j["classification"]["accuracy"].get<double>(), 1);
  EXPECT_EQ(j["classification"]["recall_defined"], false);
  EXPECT_EQ(j["classification"]["mcc_defined"], false);
  EXPECT_EQ(j["latency"][0]["mape"], 0);
  bool noted = false;
  for (const auto& note : j["notes"])
    noted = noted || note.get<std::string>().find("recall is undefined") != std::string::npos;
  EXPECT_TRUE(noted) << j["notes"];
}

TEST(TrainIndexValidateCli, BadInputGivesOneLineAndNoOutput) {
  const std::filesystem::path dir = testing::TestDir();
  const std::string good = testing::WriteFile(dir / "good.csv", "id,ttft_s,tpot_s\na,0.5,0.03\n");
  const std::string bad = testing::WriteFile(dir / "bad.csv", "id,ttft_s,tpot_s\na,0.5,0.03\nb,soon,0.03\n");
  const std::string other = testing::WriteFile(dir / "other.csv", "id,ttft_s,tpot_s\na,0.5,0.03\nb,0.5,0.03\n");
  const std::string broken_model = testing::WriteFile(dir / "broken/config.json", "{\"num_hidden_layers\": 2,,}");
  const testing::CliErrorCase cases[] = {
      {"train --mfu=0.5 --effective-flops-per-gpu=4e14", 2, "give the rate once"},
      {"train --mfu=1.5", 2, "--mfu=1.5 is out of range"},
      {"train --num-gpus=0", 2, "--num-gpus=0 is out of range"},
      {"train --tokens=-1", 2, "--tokens=-1 is out of range"},
      {"train --params-count=70e9 --seq-len=8192", 2, "--seq-len needs the architecture"},
      {"train --params=checkpoint", 2, "--params: train takes exact or nominal"},
      {"train --model=llama-9", 2, "--model: unknown model 'llama-9'"},
      {"train --gpu=h900", 2, "--gpu: unknown GPU 'h900'"},
      {"train --model=" + broken_model, 1, "config.json:1:"},
      {"train --kv-cache-dtype=fp8", 2, "unknown flag --kv-cache-dtype"},
      {"train extra", 2, "train takes no arguments"},
      {"vector-index --id-bytes=3", 2, "--id-bytes: expected 4 or 8"},
      {"vector-index --vector-dtype=fp64", 2, "--vector-dtype: unknown vector element type 'fp64'"},
      {"vector-index --hnsw-m=1", 2, "--hnsw-m=1 is out of range"},
      {"vector-index --dim=0", 2, "--dim=0 is out of range"},
      {"vector-index --table-dims=128,x", 2, "--table-dims: 'x' is not an integer"},
      {"vector-index --format=xml", 2, "--format: expected table or json"},
      {"validate --slo-ttft=2", 2, "validate needs --predicted=CSV and --observed=CSV"},
      {"validate --predicted=" + good + " --observed=" + good, 2, "validate needs an SLO"},
      {"validate --slo-ttft=-1 --predicted=" + good + " --observed=" + good, 2, "--slo-ttft=-1 is out of range"},
      // The range simulate says for the same flag (SimulateCli.BadInputNamesTheProblemAndWritesNothing).
      {"validate --slo-ttft=2e6 --predicted=" + good + " --observed=" + good, 2,
       "--slo-ttft=2e+06 is out of range (0..1e+06)"},
      {"validate --slo-ttft=2 --predicted=" + bad + " --observed=" + good, 1, "bad.csv:3: ttft_s: 'soon'"},
      {"validate --slo-ttft=2 --predicted=" + good + " --observed=" + other, 1,
       "other.csv:3: request 'b' has no prediction in"},
      {"validate --slo-ttft=2 --predicted=" + good + " --observed=" + (dir / "missing.csv").string(), 1,
       "missing.csv: cannot open file"},
  };
  for (const testing::CliErrorCase& c : cases) testing::ExpectOneLineError(c);
}

TEST(TrainIndexValidateCli, UsageListsTheCommands) {
  const testing::CommandResult r = RunInfergrid("--help");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("  vector-index  memory of a vector store"));
  EXPECT_THAT(r.out, HasSubstr("  train         training FLOPs"));
  EXPECT_THAT(r.out, HasSubstr("  validate      predicted vs observed"));
  const testing::CommandResult help = RunInfergrid("validate --help");
  EXPECT_THAT(help.out, HasSubstr("--slo-ttft=0"));
}

}  // namespace
}  // namespace infergrid
