// NVIDIA aiperf's `aiperf profile` command line pasted into `infergrid bench serve
// --client=aiperf`: its load flags modelled, its flags without effect named in one note, the
// rest refused with one line, and profile_export_aiperf.json / .csv written as aiperf writes
// them (aiperf/common/models/export_models.py, aiperf/exporters/csv_exporter.py).
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ReadAll;
using testing::RunInfergrid;

// As aiperf's README profiles a model, with the engine pinned.
const char kAiperfModel[] = "bench serve --client=aiperf --engine=vllm-v1@0.21 -m meta-llama/Llama-3.1-8B-Instruct ";
const char kAiperfLine[] =
    "bench serve --client=aiperf --engine=vllm-v1@0.21 -m meta-llama/Llama-3.1-8B-Instruct "
    "--url localhost:8000 --endpoint-type chat --streaming --synthetic-input-tokens-mean 512 "
    "--synthetic-input-tokens-stddev 0 --output-tokens-mean 64 --output-tokens-stddev 0 --random-seed 7 ";

nlohmann::json ExportOf(const fs::path& dir) {
  return nlohmann::json::parse(ReadAll(dir / "profile_export_aiperf.json"));
}

TEST(BenchAiperf, APastedLineRunsAndExportsAiperfsMetrics) {
  const fs::path dir = testing::TestDir() / "artifacts";
  const testing::CommandResult r = RunInfergrid(absl::StrCat(
      kAiperfLine, "--concurrency 8 --request-count 64 --warmup-request-count 8 --artifact-dir ", dir.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("NVIDIA AIPerf | LLM Metrics"));
  EXPECT_THAT(r.out, HasSubstr("concurrency 8, 8 warm-up + 64 requests simulated"));
  const nlohmann::json j = ExportOf(dir);
  EXPECT_EQ(j["request_count"]["avg"].get<int64_t>(), 64);
  EXPECT_EQ(j["request_count"]["unit"], "requests");
  EXPECT_GT(j["time_to_first_token"]["p50"].get<double>(), 0);
  EXPECT_EQ(j["time_to_first_token"]["unit"], "ms");
  EXPECT_GT(j["request_latency"]["p99"].get<double>(), j["time_to_first_token"]["p99"].get<double>());
  EXPECT_GT(j["inter_token_latency"]["avg"].get<double>(), 0);
  EXPECT_EQ(j["output_sequence_length"]["avg"].get<double>(), 64);
  EXPECT_EQ(j["output_sequence_length"]["min"].get<int64_t>(), 64);
  EXPECT_GT(j["output_token_throughput"]["avg"].get<double>(), 0);
  EXPECT_EQ(j["output_token_throughput"]["unit"], "tokens/sec");
  EXPECT_EQ(j["request_throughput"]["unit"], "requests/sec");
  // Output tokens over the benchmark duration, as aiperf derives it.
  EXPECT_NEAR(j["output_token_throughput"]["avg"].get<double>(), 64 * 64 / j["benchmark_duration"]["avg"].get<double>(),
              1e-6);
  EXPECT_FALSE(j["was_cancelled"].get<bool>());
  const std::string csv = ReadAll(dir / "profile_export_aiperf.csv");
  EXPECT_THAT(csv, HasSubstr("Metric,avg,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\r\n"));
  EXPECT_THAT(csv, HasSubstr("\r\nMetric,Value\r\nBenchmark Duration (sec),"));
  EXPECT_THAT(csv, HasSubstr("Request Count,64\r\n"));
}

// The keys aiperf's JsonExportData and JsonMetricResult name, in their order.
TEST(BenchAiperf, TheExportsKeysAreAiperfs) {
  const fs::path dir = testing::TestDir() / "out";
  const testing::CommandResult r = RunInfergrid(absl::StrCat(kAiperfLine, "--artifact-dir ", dir.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(ReadAll(dir / "profile_export_aiperf.json"));
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  EXPECT_THAT(keys,
              ::testing::ElementsAre("request_throughput", "request_latency", "request_count", "time_to_first_token",
                                     "time_to_second_token", "inter_token_latency", "output_token_throughput",
                                     "output_token_throughput_per_user", "output_sequence_length",
                                     "input_sequence_length", "benchmark_duration", "was_cancelled"));
  std::vector<std::string> stats;
  for (const auto& [key, value] : j["request_latency"].items()) stats.push_back(key);
  EXPECT_THAT(stats, ::testing::ElementsAre("unit", "avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99",
                                            "min", "max", "std"));
  EXPECT_EQ(j["output_token_throughput_per_user"]["unit"], "tokens/sec/user");
  // aiperf's default --request-count is 10 and its default load concurrency 1.
  EXPECT_EQ(j["request_count"]["avg"].get<int64_t>(), 10);
  EXPECT_THAT(r.out, HasSubstr("concurrency 1, 0 warm-up + 10 requests simulated"));
}

TEST(BenchAiperf, TheLoadFlagsChangeTheResult) {
  const fs::path base = testing::TestDir();
  auto run = [&](const std::string& load, const std::string& name) {
    const testing::CommandResult r = RunInfergrid(
        absl::StrCat(kAiperfLine, "--request-count 96 ", load, " --artifact-dir ", (base / name).string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return ExportOf(base / name);
  };
  const nlohmann::json one = run("--concurrency 1", "c1");
  const nlohmann::json many = run("--concurrency 32", "c32");
  EXPECT_GT(many["request_throughput"]["avg"].get<double>(), 4 * one["request_throughput"]["avg"].get<double>());
  EXPECT_GT(many["inter_token_latency"]["avg"].get<double>(), one["inter_token_latency"]["avg"].get<double>());
  // A low rate leaves the server idle between requests: the throughput is the rate's.
  const nlohmann::json slow = run("--request-rate 2 --request-rate-mode constant", "r2");
  EXPECT_NEAR(slow["request_throughput"]["avg"].get<double>(), 2, 0.1);
}

// aiperf draws each request's prompt from --num-dataset-entries prompts: a prompt drawn again
// is found in the prefix cache.
TEST(BenchAiperf, DatasetEntriesDrawnAgainHitThePrefixCache) {
  const fs::path base = testing::TestDir();
  const std::string line = absl::StrCat(kAiperfLine, "--enable-prefix-caching --request-count 20 ");
  const testing::CommandResult distinct = RunInfergrid(absl::StrCat(line, "--artifact-dir ", (base / "a").string()));
  const testing::CommandResult reused =
      RunInfergrid(absl::StrCat(line, "--num-dataset-entries 2 --artifact-dir ", (base / "b").string()));
  ASSERT_EQ(distinct.exit_code, 0) << distinct.err;
  ASSERT_EQ(reused.exit_code, 0) << reused.err;
  EXPECT_THAT(distinct.err, HasSubstr("prefix cache hits: 0 of"));
  EXPECT_LT(ExportOf(base / "b")["time_to_first_token"]["p50"].get<double>(),
            ExportOf(base / "a")["time_to_first_token"]["p50"].get<double>());
}

TEST(BenchAiperf, FlagsWithoutEffectAreNamedInOneNote) {
  const fs::path dir = testing::TestDir() / "a";
  const testing::CommandResult r = RunInfergrid(absl::StrCat(
      kAiperfLine, "--tokenizer meta-llama/Llama-3.1-8B-Instruct --ui simple --extra-inputs max_tokens:32 ",
      "--extra-inputs ignore_eos:true --artifact-dir ", dir.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("infergrid bench: note: accepted without effect on the simulation: --endpoint-type, "
                               "--streaming, --url, --ui, --tokenizer, --extra-inputs ignore_eos\n"));
  // max_tokens is modelled: it sets the output length.
  EXPECT_EQ(ExportOf(dir)["output_sequence_length"]["avg"].get<double>(), 32);
}

TEST(BenchAiperf, OtherFlagsAreRefusedInOneLine) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--no-such-flag 1", "unknown flag --no-such-flag"},
      {"--benchmark-duration 60", "--benchmark-duration: a duration-based run is not simulated"},
      {"--isl-stddev 10", "--isl-stddev: normally distributed lengths are not simulated"},
      {"--extra-inputs logprobs:true", "--extra-inputs: 'logprobs' is not simulated"},
      {"--request-rate-mode constant", "--request-rate-mode needs --request-rate"},
  };
  for (const auto& [flags, message] : cases) {
    const testing::CommandResult r = RunInfergrid(absl::StrCat(kAiperfModel, flags));
    EXPECT_EQ(r.exit_code, 2) << flags;
    EXPECT_THAT(r.err, HasSubstr(message)) << flags;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "") << flags;
  }
  EXPECT_THAT(RunInfergrid("bench serve --artifact-dir x --num-prompts=5").err, HasSubstr("is an aiperf flag"));
}

// Without --artifact-dir the exports go where aiperf puts them, below ./artifacts.
TEST(BenchAiperf, TheDefaultArtifactFolderIsAiperfs) {
  const fs::path dir = testing::TestDir();
  const std::string command =
      absl::StrCat("cd ", dir.string(), " && ", INFERGRID_BIN, " ", kAiperfLine, "--concurrency 4 >/dev/null 2>&1");
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_TRUE(fs::exists(dir / "artifacts/meta-llama_Llama-3.1-8B-Instruct-openai-chat-concurrency4/"
                               "profile_export_aiperf.json"));
  EXPECT_TRUE(fs::exists(dir / "artifacts/meta-llama_Llama-3.1-8B-Instruct-openai-chat-concurrency4/"
                               "profile_export_aiperf.csv"));
}

}  // namespace
}  // namespace infergrid
