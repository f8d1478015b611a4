// The command lines users already have, pasted into `infergrid bench`: vLLM's, SGLang's and
// genai-perf's flags are modelled (ramp-up, random lengths, abbreviations), accepted without
// effect and named in one note (endpoints, hosts, names, sampling), or refused with a reason;
// and prefix caching finds a shared synthetic prefix across requests.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/app/bench/request_schedule.h"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ReadAll;
using testing::RunInfergrid;

const char kPastedServe[] =
    "bench serve --model=meta-llama/Llama-3.1-8B-Instruct --engine=vllm-v1@0.21 --num-prompts=20 "
    "--random-input-len=128 --random-output-len=16 --result-date=20261201-000000 ";

int CountOccurrences(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(BenchForeignFlags, EndpointsHostsNamesAndSamplingAreAcceptedInOneNote) {
  const testing::CommandResult plain = RunInfergrid(kPastedServe);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const testing::CommandResult pasted = RunInfergrid(
      absl::StrCat(kPastedServe,
                   "--endpoint=/v1/completions --base-url=http://10.0.0.1:8000 --host=10.0.0.1 --port=8000 "
                   "--served-model-name=llama --temperature=0.7"));
  ASSERT_EQ(pasted.exit_code, 0) << pasted.err;
  EXPECT_EQ(pasted.out, plain.out);
  EXPECT_EQ(CountOccurrences(pasted.err, "note:"), 1) << pasted.err;
  EXPECT_THAT(pasted.err, HasSubstr("infergrid bench: note: accepted without effect on the simulation: --endpoint, "
                                    "--base-url, --host, --port, --served-model-name, --temperature\n"));
  EXPECT_EQ(plain.err.find("note:"), std::string::npos);
}

TEST(BenchForeignFlags, ArgparseAbbreviationsResolveAsPythonResolvesThem) {
  const testing::CommandResult full = RunInfergrid(kPastedServe);
  // SGLang's documented --random-input / --random-output, and shorter unique prefixes.
  const testing::CommandResult sglang = RunInfergrid(
      "bench serve --model=meta-llama/Llama-3.1-8B-Instruct --engine=vllm-v1@0.21 --num-prom=20 "
      "--random-input 128 --random-output=16 --result-da=20261201-000000");
  ASSERT_EQ(sglang.exit_code, 0) << sglang.err;
  EXPECT_EQ(sglang.out, full.out);
  // A prefix of several flags is refused, naming them, as argparse does.
  testing::ExpectOneLineError(
      {"bench serve --random-=5", 2, "ambiguous option: --random- could match --random-input-len"});
  testing::ExpectOneLineError(
      {"bench serve --save=true", 2, "ambiguous option: --save could match --save-result, --save-detailed"});
  // Abbreviations are bench's (the Python tools'): simulate takes whole names.
  testing::ExpectOneLineError({"simulate --max-req=5", 2, "unknown flag --max-req"});
}

TEST(BenchForeignFlags, GenaiPerfSpellings) {
  const std::string tail = " --concurrency=4 --measurement-interval=2000 --request-count=40";
  const testing::CommandResult ours = RunInfergrid(
      absl::StrCat("bench serve --client=genai-perf --model=meta-llama/Llama-3.1-8B-Instruct --engine=vllm-v1@0.21 "
                   "--random-input-len=256 --random-output-len=32",
                   tail));
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  const testing::CommandResult theirs = RunInfergrid(absl::StrCat(
      "bench serve --client=genai-perf -m meta-llama/Llama-3.1-8B-Instruct --engine=vllm-v1@0.21 "
      "--synthetic-input-tokens-mean=256 --output-tokens-mean=32 --endpoint-type=chat --streaming --url=localhost:8000",
      tail));
  ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
  EXPECT_EQ(theirs.out, ours.out);
  EXPECT_THAT(theirs.err, HasSubstr("accepted without effect on the simulation: --endpoint-type, --streaming, --url"));
}

TEST(BenchForeignFlags, RampUpSendsAtVllmsGrowingRate) {
  // Evenly spaced (infinite burstiness): each gap is 1 / the request's own rate.
  const std::vector<double> linear = bench::RampUpSendTimes(5, false, 1, 5, INFINITY, 0);
  ASSERT_EQ(linear.size(), 5u);
  EXPECT_DOUBLE_EQ(linear[0], 1.0);
  EXPECT_DOUBLE_EQ(linear[4], 1.0 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4 + 1.0 / 5);
  const std::vector<double> exponential = bench::RampUpSendTimes(3, true, 1, 4, INFINITY, 0);
  EXPECT_DOUBLE_EQ(exponential[1] - exponential[0], 0.5);  // 1 * 4^(1/2) = 2 req/s
  EXPECT_DOUBLE_EQ(exponential[2] - exponential[1], 0.25);  // 4 req/s
  // Gamma draws: the same stream as a fixed rate, not rescaled to n / rate.
  const std::vector<double> flat = bench::RampUpSendTimes(50, false, 4, 4, 1.0, 7);
  const std::vector<double> fixed = bench::RequestSendTimes(50, 4, 1.0, 7);
  EXPECT_DOUBLE_EQ(fixed.back(), 50 / 4.0);
  EXPECT_NE(flat.back(), fixed.back());
  for (size_t i = 1; i < flat.size(); ++i) EXPECT_NEAR(flat[i] / fixed[i], flat[0] / fixed[0], 1e-9);
  // From the command line: a slow-to-fast ramp takes longer than the fast rate throughout.
  const testing::CommandResult ramp =
      RunInfergrid(absl::StrCat(kPastedServe, "--ramp-up-strategy=linear --ramp-up-start-rps=1 --ramp-up-end-rps=20"));
  ASSERT_EQ(ramp.exit_code, 0) << ramp.err;
  const testing::CommandResult fast = RunInfergrid(absl::StrCat(kPastedServe, "--request-rate=20"));
  ASSERT_EQ(fast.exit_code, 0) << fast.err;
  const auto duration = [](const std::string& out) {
    const size_t at = out.find("Benchmark duration (s):");
    return std::stod(out.substr(out.find_first_of("0123456789", at)));
  };
  EXPECT_GT(duration(ramp.out), duration(fast.out) + 1.0);
}

TEST(BenchForeignFlags, RefusedWithAReason) {
  const std::string serve = kPastedServe;
  for (const testing::CliErrorCase& c : std::vector<testing::CliErrorCase>{
           {serve + "--ramp-up-strategy=cubic --ramp-up-start-rps=1 --ramp-up-end-rps=2", 2,
            "--ramp-up-strategy: expected linear or exponential, got 'cubic'"},
           {serve + "--ramp-up-strategy=linear --ramp-up-start-rps=1", 2,
            "needs both --ramp-up-start-rps and --ramp-up-end-rps"},
           {serve + "--ramp-up-strategy=linear --ramp-up-start-rps=1 --ramp-up-end-rps=2 --request-rate=4", 2,
            "remove --request-rate"},
           {serve + "--ramp-up-strategy=exponential --ramp-up-start-rps=0 --ramp-up-end-rps=2", 2,
            "--ramp-up-start-rps=0"},
           {serve + "--ramp-up-strategy=linear --ramp-up-start-rps=5 --ramp-up-end-rps=2", 2,
            "the start rate must be at most the end rate"},
           {serve + "--ramp-up-end-rps=2", 2, "need --ramp-up-strategy"},
           {serve + "--output-file=out.jsonl", 2, "--output-file: SGLang's JSON-lines result is not written"},
           {serve + "--format=json", 2, "--format=json: bench prints its engine's report"},
           {"bench throughput --input-len=100 --random-input-len=200", 2,
            "--input-len and --random-input-len are the same setting here"},
       }) {
    testing::ExpectOneLineError(c);
  }
}

TEST(BenchForeignFlags, ThroughputModelsTheRandomLengths) {
  const fs::path json = testing::TestDir() / "throughput.json";
  const testing::CommandResult r = RunInfergrid(absl::StrCat(
      "bench throughput --model=meta-llama/Llama-3.1-8B-Instruct --engine=vllm-v1@0.21 --random-input-len=200 "
      "--random-output-len=50 --num-prompts=20 --output-json=",
      json.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(ReadAll(json));
  EXPECT_EQ(j["total_num_tokens"], 20 * (200 + 50));  // 199 sampled + the server's BOS
}

// The share of prompt tokens in the note "prefix cache hits: H of P prompt tokens (X%)".
double HitRate(const std::string& err) {
  const size_t at = err.find("prefix cache hits: ");
  if (at == std::string::npos) return -1;
  const std::vector<std::string> words = absl::StrSplit(err.substr(at + 19), ' ');
  return std::stod(words[0]) / std::stod(words[2]);
}

TEST(BenchPrefixCache, ARandomSharedPrefixHitsAcrossRequests) {
  // 1,024 shared tokens and 1,024 of each request's own: in steady state half of every prompt
  // (the prefix's 64 whole blocks of 16) is found in the cache; the first request computes it.
  const std::string serve =
      "bench serve --model=meta-llama/Llama-3.1-8B-Instruct --engine=vllm-v1@0.21 --num-prompts=100 "
      "--random-prefix-len=1024 --random-input-len=1024 --random-output-len=16 --request-rate=10 "
      "--result-date=20261201-000000 --noise=false";
  const testing::CommandResult cached = RunInfergrid(serve + " --enable-prefix-caching");
  ASSERT_EQ(cached.exit_code, 0) << cached.err;
  const double rate = HitRate(cached.err);
  EXPECT_GT(rate, 0.45) << cached.err;
  EXPECT_LE(rate, 0.5) << cached.err;
  const testing::CommandResult uncached = RunInfergrid(serve);
  ASSERT_EQ(uncached.exit_code, 0) << uncached.err;
  EXPECT_EQ(HitRate(uncached.err), -1);
  const auto mean_ttft = [](const std::string& out) {
    const size_t at = out.find("Mean TTFT (ms):");
    return std::stod(out.substr(out.find_first_of("0123456789", at)));
  };
  EXPECT_LT(mean_ttft(cached.out), mean_ttft(uncached.out));
  // bench throughput's --prefix-len: the same prefix, all requests at once (the first batch
  // computes it in every request it holds, so fewer hit).
  const testing::CommandResult offline = RunInfergrid(
      "bench throughput --model=meta-llama/Llama-3.1-8B-Instruct --engine=vllm-v1@0.21 --input-len=512 "
      "--prefix-len=512 --output-len=16 --num-prompts=200 --enable-prefix-caching");
  ASSERT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_GT(HitRate(offline.err), 0.1) << offline.err;
  EXPECT_LE(HitRate(offline.err), 0.5) << offline.err;
}

TEST(BenchPrefixCache, SglangsGeneratedSharedPrefixGroupsHitTheirSystemPrompt) {
  // 4 groups of 8 prompts, each 1,024 shared tokens and a 128-token question: all but each
  // group's first request find the system prompt cached.
  const std::string serve =
      "bench serve --client=sglang --model=meta-llama/Llama-3.1-8B-Instruct --engine=sglang "
      "--dataset-name=generated-shared-prefix --gsp-num-groups=4 --gsp-prompts-per-group=8 "
      "--gsp-system-prompt-len=1024 --gsp-question-len=128 --gsp-output-len=16 --request-rate=4 --noise=false";
  const testing::CommandResult r = RunInfergrid(serve + " --enable-prefix-caching");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Successful requests:                     32"));
  const double rate = HitRate(r.err);
  const double prompt = 1024 + 128 + 1;  // and the server's BOS
  EXPECT_GT(rate, 0.9 * 28 * 1024 / (32 * prompt)) << r.err;
  EXPECT_LE(rate, 28 * 1024 / (32 * prompt) + 1e-9) << r.err;
  testing::ExpectOneLineError(
      {"bench serve --gsp-num-groups=4", 2, "--gsp-num-groups is the generated-shared-prefix dataset's"});
}

}  // namespace
}  // namespace infergrid
