// `infergrid simulate` and `compare` as users run them: golden table and JSON, byte-identical
// outputs for identical inputs, the four output files and their columns, errors that name the
// flag or file:line and leave no output behind, traces, tensor parallelism and replicas.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using testing::ReadAll;
using testing::RunInfergrid;

// A small deterministic run: 40 requests at 4 req/s on Llama-3-8B / H100, memory plan pinned.
const char kSmall[] = "simulate --engine=vllm-v1@0.19 --max-requests=40 --rate=4 --record-wall-time=false --quiet";

nlohmann::json Json(const testing::CommandResult& r) { return nlohmann::json::parse(r.out); }

std::vector<std::string> Lines(const std::string& text) { return absl::StrSplit(text, '\n', absl::SkipEmpty()); }

TEST(SimulateCli, TableGolden) {
  const testing::CommandResult r = RunInfergrid(kSmall);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string golden = ReadAll(testing::SourcePath("tests/golden/simulate_llama-3-8b_h100_small.txt"));
  ASSERT_FALSE(golden.empty());
  EXPECT_EQ(r.out, golden) << "regenerate with: infergrid " << kSmall
                           << " > tests/golden/simulate_llama-3-8b_h100_small.txt";
}

TEST(SimulateCli, JsonGolden) {
  const testing::CommandResult r = RunInfergrid(absl::StrCat(kSmall, " --format=json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string golden = ReadAll(testing::SourcePath("tests/golden/simulate_llama-3-8b_h100_small.json"));
  ASSERT_FALSE(golden.empty());
  EXPECT_EQ(r.out, golden) << "regenerate with: infergrid " << kSmall
                           << " --format=json > tests/golden/simulate_llama-3-8b_h100_small.json";
}

TEST(SimulateCli, MetricsFollowTheirDefinitions) {
  const fs::path dir = testing::TestDir() / "out";
  const testing::CommandResult r = RunInfergrid(absl::StrCat(kSmall, " --format=json --out=", dir.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = Json(r);
  // Recompute TTFT, TPOT and E2E from requests.csv.
  const std::vector<std::string> rows = Lines(ReadAll(dir / "requests.csv"));
  ASSERT_EQ(rows.size(), 41u);
  EXPECT_EQ(rows[0],
            "id,replica,status,arrival_s,scheduled_s,first_token_s,finish_s,input_tokens,output_tokens,"
            "truncated,cached_tokens,preemptions,queueing_s,ttft_s,tpot_s,e2e_s,reject_reason");
  double ttft_sum = 0, tpot_max = 0, e2e_max = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string> f = absl::StrSplit(rows[i], ',');
    ASSERT_EQ(f.size(), 17u);
    EXPECT_EQ(f[2], "finished");
    EXPECT_EQ(f[16], "");  // reject_reason: none
    const double arrival = std::stod(f[3]), first = std::stod(f[5]), finish = std::stod(f[6]);
    const int out_tokens = std::stoi(f[8]);
    // The CSV rounds to nanoseconds.
    EXPECT_NEAR(std::stod(f[13]), first - arrival, 3e-9);
    EXPECT_NEAR(std::stod(f[14]), (finish - first) / (out_tokens - 1), 3e-9);
    ttft_sum += first - arrival;
    tpot_max = std::max(tpot_max, (finish - first) / (out_tokens - 1));
    e2e_max = std::max(e2e_max, finish - arrival);
  }
  EXPECT_NEAR(j["ttft"]["mean"].get<double>(), ttft_sum / 40, 3e-9);
  EXPECT_NEAR(j["tpot"]["max"].get<double>(), tpot_max, 3e-9);
  EXPECT_NEAR(j["e2e"]["max"].get<double>(), e2e_max, 3e-9);
  // One ITL per output token after the first.
  EXPECT_EQ(j["itl"]["count"].get<int>(), 40 * (j["output_tokens"].get<double>() / 40 - 1));
  EXPECT_EQ(j["completed"], 40);
  // iterations.csv: one row per iteration, summing to the summary's counts.
  const std::vector<std::string> iterations = Lines(ReadAll(dir / "iterations.csv"));
  EXPECT_EQ(static_cast<int>(iterations.size()) - 1, j["iterations"]["iterations"].get<int>());
  EXPECT_THAT(iterations[0], HasSubstr("replica,iteration,start_s,end_s,compute_s"));
  // The timeline (timeline_formats_test.cc checks its content) is Perfetto's protobuf trace.
  EXPECT_GT(fs::file_size(dir / "timeline.pftrace"), 0u);
  EXPECT_EQ(nlohmann::json::parse(ReadAll(dir / "summary.json")), j);
}

TEST(SimulateCli, SameInputsGiveByteIdenticalOutputs) {
  const fs::path a = testing::TestDir() / "a";
  const fs::path b = testing::TestDir() / "b";
  const std::string args = "simulate --max-requests=60 --rate=8 --scheduler=sarathi --quiet --record-wall-time=false";
  ASSERT_EQ(RunInfergrid(absl::StrCat(args, " --out=", a.string())).exit_code, 0);
  ASSERT_EQ(RunInfergrid(absl::StrCat(args, " --out=", b.string())).exit_code, 0);
  for (const char* name : {"summary.json", "requests.csv", "iterations.csv", "timeline.pftrace"}) {
    const std::string x = ReadAll(a / name);
    EXPECT_FALSE(x.empty()) << name;
    EXPECT_EQ(x, ReadAll(b / name)) << name;
  }
  // A different seed gives different arrivals.
  const fs::path c = testing::TestDir() / "c";
  ASSERT_EQ(RunInfergrid(absl::StrCat(args, " --seed=1 --out=", c.string())).exit_code, 0);
  EXPECT_NE(ReadAll(a / "requests.csv"), ReadAll(c / "requests.csv"));
}

// A sweep that needs only the metrics writes only summary.json, and the same one.
TEST(SimulateCli, OutputsSelectsTheFilesWithoutChangingResults) {
  const fs::path all = testing::TestDir() / "all";
  const fs::path some = testing::TestDir() / "some";
  const std::string args = "simulate --max-requests=60 --rate=8 --record-wall-time=false";
  ASSERT_EQ(RunInfergrid(absl::StrCat(args, " --quiet --out=", all.string())).exit_code, 0);
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat(args, " --out=", some.string(), " --outputs=requests,summary"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat("wrote ", some.string(), "/{summary.json, requests.csv}\n")));
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(some)) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"requests.csv", "summary.json"}));
  EXPECT_EQ(ReadAll(some / "summary.json"), ReadAll(all / "summary.json"));
  EXPECT_EQ(ReadAll(some / "requests.csv"), ReadAll(all / "requests.csv"));
  testing::ExpectOneLineError({"simulate --outputs=summary", 2, "--outputs needs --out=DIR"});
}

TEST(SimulateCli, BadInputNamesTheProblemAndWritesNothing) {
  const fs::path dir = testing::TestDir();
  const fs::path out = dir / "out";
  const std::string bad_trace = testing::WriteFile(dir / "bad.csv",
                                                   "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                                   "2023-11-16 18:15:46.6805900,374,44\n"
                                                   "2023-11-16 18:15:47.0000000,abc,10\n");
  const std::vector<testing::CliErrorCase> cases = {
      {"--scheduler=fifo", 2, "--scheduler"},
      {"--router=random --num-replicas=2", 2, "--router"},
      {"--tensor-parallel-size=16", 2, "--tensor-parallel-size"},
      {"--tensor-parallel-size=3", 2, "does not divide the 32 attention heads"},
      {"--engine=vllm-v0 --max-num-batched-tokens=1024", 2, "--max-num-batched-tokens"},
      {"--rate=-1", 2, "--rate"},
      {"--outputs=summary,plots", 2, "--outputs: unknown output 'plots'"},
      {"--outputs=summary,summary", 2, "--outputs: 'summary' is listed twice"},
      {"--model=llama-3-70b", 1, "GiB"},  // 140 GB of bf16 weights on one 80 GB GPU
      {absl::StrCat("--trace=", bad_trace), 1, "bad.csv:3"},
      {absl::StrCat("--trace=", (dir / "missing.csv").string()), 1, "missing.csv"},
      // Arrivals past 2^32 s, however they got there, stop the run before anything is written.
      {"--rate=1e-300 --max-requests=3", 1,
       "arrives at 1.29456e+300 s, beyond 2^32 s (136 years), where seconds as "
       "doubles no longer resolve a microsecond (--rate=1e-300)"},
      {absl::StrCat("--time-scale=1e9 --trace=", testing::WriteFile(dir / "long.csv",
                                                                    "arrival_s,input_tokens,output_tokens\n0,10,10\n"
                                                                    "1000000,10,10\n")),
       1, "request 1 arrives at 1e+15 s, beyond 2^32 s"},
      {"--rate=5 --rate=6", 2, "flag --rate is given twice (5 and 6); give it once"},
      // One parse for every decimal: 1e309 kept the default rate while the summary said inf.
      {"--rate=1e309", 2,
       "flag --rate: Illegal value '1e309'; out of range (a double holds magnitudes from 4.9e-324 to 1.8e308)"},
      {"--rate=1e-400", 2, "flag --rate: Illegal value '1e-400'; out of range"},
      // Counts within what one run can hold (4,096 replicas took 25 minutes to start).
      {"--num-replicas=2000", 2, "--num-replicas=2000 is out of range (1..1024)"},
      {"--num-replicas=200 --tensor-parallel-size=8", 2,
       "--num-replicas=200 x --tensor-parallel-size=8 is 1600 GPUs, more than the 1024 one simulated deployment may "
       "have"},
      {"--max-requests=20000000", 2, "--max-requests=20000000 is out of range (0..10000000)"},
      {"--pd=800P800D", 2, "--pd=800P800D makes 1600 replicas (the range of --num-replicas is 1..1024)"},
      {"--pd=3000000000P1D", 2, "--pd=3000000000P1D makes more than 1024 replicas"},
      // One range per flag, said the same way in every command (validate's below).
      {"--slo-ttft=2e6", 2, "--slo-ttft=2e+06 is out of range (0..1e+06)"},
      {"--time-scale=1e10", 2, "--time-scale=1e+10 is outside (0, 1e9]"},
      // What the engine itself refuses at startup, by version (docs/commands.md#limits-and-refusals).
      {"--max-model-len=100000", 1,
       "--max-model-len=100000 is greater than llama-3-8b's max_position_embeddings (8192): "
       "vllm-v1@0.21 refuses it at startup"},
      {"--engine=sglang --max-model-len=8193", 1, "sglang@0.4.9 refuses it at startup"},
      {"--max-num-batched-tokens=1", 1, "--max-num-batched-tokens=1 is smaller than --max-num-seqs=1024"},
      {"--block-size=7", 1, "--block-size=7: vllm-v1@0.21 accepts 1, 8, 16, 32, 64, 128"},
      {"--engine=vllm-v0@0.6.5 --block-size=1", 1, "vllm-v0@0.6.5 accepts 8, 16, 32, 64, 128"},
  };
  for (const testing::CliErrorCase& c : cases) {
    testing::ExpectOneLineError(
        {absl::StrCat("simulate --quiet --out=", out.string(), " ", c.args), c.exit_code, c.message});
    EXPECT_FALSE(fs::exists(out)) << c.args << " left " << out;
  }
}

TEST(SimulateCli, TraceWithTimeScaleAndMaxRequests) {
  const fs::path dir = testing::TestDir();
  const std::string trace = testing::WriteFile(dir / "azure.csv",
                                               "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                               "2023-11-16 18:15:46.0000000,374,44\n"
                                               "2023-11-16 18:15:48.0000000,396,109\n"
                                               "2023-11-16 18:15:50.0000000,879,52\n"
                                               "2023-11-16 18:15:56.0000000,91,16\n");
  const fs::path out = dir / "out";
  const testing::CommandResult r = RunInfergrid(absl::StrCat(
      "simulate --quiet --format=json --time-scale=0.5 --max-requests=3 --trace=", trace, " --out=", out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = Json(r);
  EXPECT_EQ(j["requests"], 3);
  EXPECT_EQ(j["config"]["workload"], "trace");
  const std::vector<std::string> rows = Lines(ReadAll(out / "requests.csv"));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_THAT(rows[2], HasSubstr(",finished,1.000000000,"));  // 2 s after the first, halved
  EXPECT_THAT(rows[3], HasSubstr(",2.000000000,"));
  EXPECT_THAT(rows[3], HasSubstr(",879,52,"));
}

TEST(SimulateCli, TensorParallelReplicasOfLlama70b) {
  const testing::CommandResult r = RunInfergrid(
      "simulate --quiet --format=json --model=llama-3-70b --tensor-parallel-size=4 --num-replicas=2 "
      "--router=least-outstanding --max-requests=60 --rate=6");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = Json(r);
  EXPECT_EQ(j["completed"], 60);
  EXPECT_EQ(j["config"]["tensor_parallel_size"], 4);
  ASSERT_EQ(j["requests_per_replica"].size(), 2u);
  EXPECT_EQ(j["requests_per_replica"][0].get<int>() + j["requests_per_replica"][1].get<int>(), 60);
  EXPECT_GT(j["requests_per_replica"][1].get<int>(), 10);
  EXPECT_GT(j["iterations"]["communication_s"].get<double>(), 0);
  // The calibrated model times the all-reduces from its NCCL table; the engine moves their bytes.
  EXPECT_EQ(j["cost_model"]["kind"], "calibrated");
  // On two GPUs each reads 35 GB of weights per step against 8.8 GB on eight (the fixed
  // overhead and the all-reduce latency narrow the gap); the KV left over on two GPUs holds a
  // single request of 1,700 tokens (with vLLM 0.21's profile run shrunk to 256 sequences of
  // 2,048 tokens: at its H100 defaults, 1,024 and 8,192, nothing is left for KV).
  const testing::CommandResult tp2 = RunInfergrid(
      "simulate --quiet --format=json --model=llama-3-70b --tensor-parallel-size=2 --max-model-len=1700 "
      "--max-num-seqs=256 --max-num-batched-tokens=2048 --max-requests=20 --rate=1");
  const testing::CommandResult tp8 = RunInfergrid(
      "simulate --quiet --format=json --model=llama-3-70b --tensor-parallel-size=8 --max-requests=20 --rate=1");
  ASSERT_EQ(tp2.exit_code, 0) << tp2.err;
  ASSERT_EQ(tp8.exit_code, 0) << tp8.err;
  EXPECT_GT(Json(tp2)["tpot"]["mean"].get<double>(), 1.5 * Json(tp8)["tpot"]["mean"].get<double>());
  // At 8,192 tokens of context the model does not fit two GPUs: the memory plan says so.
  const testing::CommandResult full = RunInfergrid(
      "simulate --quiet --model=llama-3-70b --tensor-parallel-size=2 --max-num-seqs=256 "
      "--max-num-batched-tokens=2048 --max-requests=5");
  EXPECT_EQ(full.exit_code, 1);
  EXPECT_THAT(full.err, HasSubstr("max_model_len"));
}

TEST(SimulateCli, SchedulersDiffer) {
  auto run = [](const std::string& scheduler) {
    const testing::CommandResult r = RunInfergrid(
        absl::StrCat("simulate --quiet --format=json --max-requests=200 --rate=12 --scheduler=", scheduler));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json(r);
  };
  const nlohmann::json vllm = run("vllm");
  const nlohmann::json sarathi = run("sarathi");
  const nlohmann::json orca = run("orca");
  const nlohmann::json batch = run("static");
  for (const auto* j : {&vllm, &sarathi, &orca, &batch}) EXPECT_EQ((*j)["completed"], 200);
  // Chunked prefill never stalls decodes behind a whole prompt: its worst ITL is shorter.
  EXPECT_LT(sarathi["itl"]["max"].get<double>(), vllm["itl"]["max"].get<double>());
  // Static batches make later requests wait for the whole batch.
  EXPECT_GT(batch["ttft"]["p99"].get<double>(), 2 * vllm["ttft"]["p99"].get<double>());
  EXPECT_GT(batch["iterations"]["mean_batch_size"].get<double>(), 0);
}

TEST(SimulateCli, PreemptionUnderMemoryPressure) {
  // A tiny KV cache (--num-gpu-blocks-override) forces preemption; both modes finish everything.
  for (const char* mode : {"recompute", "swap"}) {
    const testing::CommandResult r =
        RunInfergrid(absl::StrCat("simulate --quiet --format=json --max-requests=60 --rate=20 --max-model-len=2048 "
                                  "--num-gpu-blocks-override=400 --preemption-mode=",
                                  mode));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = Json(r);
    // Prompts longer than --max-model-len are refused; every other request finishes.
    EXPECT_EQ(j["completed"].get<int>() + j["rejected"].get<int>(), 60) << mode;
    EXPECT_GT(j["completed"].get<int>(), 45) << mode;
    EXPECT_GT(j["kv"]["preemptions"].get<int>(), 0) << mode;
    if (std::string(mode) == "swap") {
      EXPECT_GT(j["kv"]["preemptions_swap"].get<int>(), 0);
      EXPECT_GT(j["kv"]["swap_out_bytes"].get<double>(), 0);
    } else {
      EXPECT_EQ(j["kv"]["preemptions_recompute"], j["kv"]["preemptions"]);
    }
  }
}

TEST(SimulateCli, PrefixCacheReusesSharedBlocks) {
  // Mooncake rows sharing their first two 512-token hash blocks.
  std::string rows;
  for (int i = 0; i < 20; ++i) {
    absl::StrAppend(&rows, "{\"timestamp\": ", i * 500, ", \"input_length\": 1500, \"output_length\": 20, ",
                    "\"hash_ids\": [1, 2, ", 100 + i, "]}\n");
  }
  const std::string trace = testing::WriteFile(testing::TestDir() / "mooncake.jsonl", rows);
  const testing::CommandResult on =
      RunInfergrid(absl::StrCat("simulate --quiet --format=json --enable-prefix-caching --trace=", trace));
  ASSERT_EQ(on.exit_code, 0) << on.err;
  const nlohmann::json j = Json(on);
  // 19 later requests each find 1,024 cached tokens.
  EXPECT_EQ(j["kv"]["prefix_cache_hit_tokens"].get<double>(), 19 * 1024);
  const testing::CommandResult off = RunInfergrid(absl::StrCat("simulate --quiet --format=json --trace=", trace));
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_LT(j["ttft"]["mean"].get<double>(), Json(off)["ttft"]["mean"].get<double>());
}

TEST(CompareCli, CommonRandomNumbersAndConfidenceIntervals) {
  const testing::CommandResult same = RunInfergrid(
      "compare --quiet --format=json --max-requests=50 --rate=6 --replications=3 --a=\"--scheduler=vllm\" "
      "--b=\"--scheduler=vllm\"");
  ASSERT_EQ(same.exit_code, 0) << same.err;
  const nlohmann::json s = Json(same);
  EXPECT_EQ(s["replications"], 3);
  for (const auto& d : s["differences"]) {
    EXPECT_EQ(d["difference_mean"].get<double>(), 0) << d["metric"];  // same arrivals, same results
    EXPECT_EQ(d["ci95_low"].get<double>(), 0) << d["metric"];
  }
  const testing::CommandResult ab = RunInfergrid(
      "compare --quiet --max-requests=50 --rate=6 --replications=3 --a=\"--scheduler=vllm\" "
      "--b=\"--scheduler=static\"");
  ASSERT_EQ(ab.exit_code, 0) << ab.err;
  EXPECT_THAT(ab.out, HasSubstr("95% CI"));
  EXPECT_THAT(ab.out, HasSubstr("ttft.p99"));
  const testing::CommandResult bad = RunInfergrid("compare --a=\"--scheduler=nope\" --b=\"\"");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--scheduler"));
}

// Each configuration is the shared flags with its own on top, and nothing else: B does not
// inherit A's flags, and parsing them prints nothing (no flag-library noise on stderr).
TEST(CompareCli, ConfigurationsOverlayTheSharedFlagsIndependently) {
  const testing::CommandResult r = RunInfergrid(
      "compare --quiet --format=json --max-requests=20 --kv-cache-dtype=fp16 "
      "--a=\"--kv-cache-dtype=fp8 --max-num-seqs=8\" --b=\"--scheduler=vllm\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const nlohmann::json j = Json(r);
  EXPECT_EQ(j["a"]["kv_cache_dtype"], "fp8_e4m3");
  EXPECT_EQ(j["a"]["max_num_seqs"], 8);
  EXPECT_EQ(j["a"]["scheduler"], "sarathi");  // the default engine's (vLLM V1: chunked prefill)
  EXPECT_EQ(j["b"]["kv_cache_dtype"], "fp16");
  EXPECT_EQ(j["b"]["max_num_seqs"], 1024);  // vLLM V1's default on an H100
  EXPECT_EQ(j["b"]["scheduler"], "vllm");
  EXPECT_THAT(j["a"]["command_line"].get<std::string>(), HasSubstr("--kv-cache-dtype=fp8 "));
  EXPECT_THAT(j["b"]["command_line"].get<std::string>(), HasSubstr("--kv-cache-dtype=fp16 "));
}

// The engine's defaults come from its personality: vLLM V0 prefills whole prompts with 256
// sequences and max(max_model_len, 2048) tokens, 16-token blocks and a 1% watermark; vLLM V1
// runs chunked prefill with 1,024 sequences and 8,192 tokens on an H100, no watermark; SGLang
// a token-granular cache. The user's flags win.
// Expert parallelism from the command line: all-to-all dispatch puts the experts' traffic on
// the links (network time appears and the step is slower than with all-reduce dispatch, where
// every GPU already has every token); a skewed load is slower still. Misuse is one usage error.
TEST(SimulateCli, ExpertParallelDispatchAndImbalance) {
  const auto run = [](const std::string& flags) {
    const testing::CommandResult r = RunInfergrid(
        "simulate --quiet --format=json --max-requests=40 --rate=4 --model=deepseek-v3 --gpu=h200-sxm "
        "--tensor-parallel-size=8 --max-model-len=8192 " +
        flags);
    EXPECT_EQ(r.exit_code, 0) << flags << ": " << r.err;
    return r.exit_code == 0 ? Json(r) : nlohmann::json();
  };
  const auto network_share = [](const nlohmann::json& j) {
    double share = 0;
    for (const nlohmann::json& b : j["binding"]) {
      if (b["resource"] == "network") share = b["time_share"].get<double>();
    }
    return share;
  };
  const nlohmann::json reduce = run("--enable-expert-parallel");
  const nlohmann::json a2a = run("--enable-expert-parallel --expert-dispatch=all-to-all");
  const nlohmann::json skew = run("--enable-expert-parallel --expert-dispatch=all-to-all --expert-imbalance=2");
  EXPECT_GT(a2a["tpot"]["mean"].get<double>(), reduce["tpot"]["mean"].get<double>());
  EXPECT_GT(skew["tpot"]["mean"].get<double>(), a2a["tpot"]["mean"].get<double>());
  // The dispatch's traffic is time on the links (with the engine's fused all-reduce it need not
  // bind a step any more, so the time itself is compared).
  EXPECT_GT(a2a["iterations"]["communication_s"].get<double>(), reduce["iterations"]["communication_s"].get<double>());
  EXPECT_GE(network_share(a2a), network_share(reduce));
  for (const std::string bad : {"--expert-imbalance=2", "--enable-expert-parallel --expert-dispatch=ring",
                                "--enable-expert-parallel --expert-imbalance=9"}) {
    const testing::CommandResult r = RunInfergrid(
        "simulate --quiet --max-requests=5 --model=deepseek-v3 --gpu=h200-sxm --tensor-parallel-size=8 " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(r.out, "") << bad;
    EXPECT_THAT(r.err, HasSubstr("--expert-")) << bad;
  }
}

// Attention data parallelism (TensorRT-LLM's enable_attention_dp at TP4, experts over the four
// GPUs): four ranks, each with its own scheduler and KV pool, share the admitted arrivals
// (round-robin: within one of each other) and step together: every rank that runs in a step
// starts and ends it with the others, and the step lasts as long as its slowest rank's batch.
// The three engines' spellings that contradict each other, or that a dense model would run
// unsynchronised, are usage errors.
TEST(SimulateCli, AttentionDataParallelRanksStepTogether) {
  const fs::path dir = testing::TestDir() / "dep4";
  const testing::CommandResult r = RunInfergrid(absl::StrCat(
      "simulate --quiet --format=json --model=qwen3-30b-a3b --gpu=h100-sxm --tensor-parallel-size=4 "
      "--enable-attention-dp --enable-expert-parallel --rate=20 --max-requests=80 --max-model-len=4096 --out=",
      dir.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = Json(r);
  EXPECT_EQ(j["config"]["attention_data_parallel"], 4);
  EXPECT_EQ(j["config"]["tensor_parallel_size"], 1);
  const std::vector<int> per_rank = j["requests_per_replica"].get<std::vector<int>>();
  ASSERT_EQ(per_rank.size(), 4u);
  EXPECT_LE(*std::max_element(per_rank.begin(), per_rank.end()) - *std::min_element(per_rank.begin(), per_rank.end()),
            1);
  const int admitted = j["requests"].get<int>() - j["rejected"].get<int>();
  EXPECT_EQ(per_rank[0] + per_rank[1] + per_rank[2] + per_rank[3], admitted);
  EXPECT_EQ(j["completed"].get<int>(), admitted);
  std::map<std::string, std::pair<std::string, double>> steps;  // start -> end, longest compute
  std::set<int> ranks;
  int shared = 0;
  const std::vector<std::string> rows = Lines(ReadAll(dir / "iterations.csv"));
  for (size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string> f = absl::StrSplit(rows[i], ',');
    ranks.insert(std::stoi(f[0]));
    auto [it, first] = steps.try_emplace(f[2], f[3], std::stod(f[4]) + std::stod(f[5]));
    if (!first) {
      ++shared;
      EXPECT_EQ(it->second.first, f[3]) << "ranks of one step end together: " << rows[i];
      it->second.second = std::max(it->second.second, std::stod(f[4]) + std::stod(f[5]));
    }
  }
  EXPECT_EQ(ranks, (std::set<int>{0, 1, 2, 3}));
  EXPECT_GT(shared, 0);
  for (const auto& [start, step] : steps) {
    EXPECT_NEAR(std::stod(step.first) - std::stod(start), step.second, 2e-9)
        << "the slowest rank decides, at " << start;
  }
  const std::pair<std::string, std::string> refusals[] = {
      {"--model=qwen3-30b-a3b --data-parallel-size=2 --enable-attention-dp", "three engines' spellings"},
      {"--model=qwen3-30b-a3b --dp-size=2", "--dp-size without --enable-dp-attention"},
      {"--model=qwen3-30b-a3b --enable-dp-attention --dp-size=3", "--dp-size=3 must divide"},
      {"--model=llama-3-8b --enable-attention-dp", "use --num-replicas"}};
  for (const auto& [bad, message] : refusals) {
    const testing::CommandResult refused =
        RunInfergrid("simulate --quiet --max-requests=5 --tensor-parallel-size=4 " + bad);
    EXPECT_EQ(refused.exit_code, 2) << bad << ": " << refused.err;
    EXPECT_EQ(refused.out, "") << bad;
    EXPECT_THAT(refused.err, HasSubstr(message)) << bad;
  }
}

// Disaggregation from the command line: the summary names the pools and the transfers, every
// request finishes, TTFT holds the transfer; misuse is one usage error and no output.
TEST(SimulateCli, PrefillDecodeDisaggregation) {
  const testing::CommandResult r = RunInfergrid(
      "simulate --quiet --format=json --max-requests=60 --rate=10 --pd=1P3D --decode-router=least-outstanding");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = Json(r);
  EXPECT_EQ(j["completed"], 60);
  EXPECT_EQ(j["config"]["num_replicas"], 4);
  const nlohmann::json& pd = j["disaggregation"];
  EXPECT_EQ(pd["prefill_replicas"], 1);
  EXPECT_EQ(pd["decode_replicas"], 3);
  EXPECT_EQ(pd["decode_router"], "least-outstanding");
  EXPECT_EQ(pd["kv_transfer"]["count"], 60);
  EXPECT_GT(pd["kv_transfer"]["mean"].get<double>(), 0);
  EXPECT_LT(pd["kv_transfer"]["mean"].get<double>(), j["ttft"]["mean"].get<double>());
  // Llama-3-8B's 131,072 B per token: the mean prompt's KV per GPU.
  EXPECT_NEAR(pd["kv_bytes_per_gpu"].get<double>(), j["input_tokens"].get<double>() / 60 * 131072, 1);
  // requests.csv: the prefill replica and the transfer of every request, inside its TTFT.
  const fs::path dir = testing::TestDir() / "pd";
  ASSERT_EQ(RunInfergrid("simulate --quiet --max-requests=20 --pd=1P3D --out=" + dir.string()).exit_code, 0);
  std::ifstream csv(dir / "requests.csv");
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  EXPECT_TRUE(absl::EndsWith(line, ",e2e_s,reject_reason,prefill_replica,kv_transfer_s")) << line;
  int rows = 0;
  while (std::getline(csv, line)) {
    const std::vector<std::string> f = absl::StrSplit(line, ',');
    ASSERT_EQ(f.size(), 19u) << line;
    ++rows;
    EXPECT_EQ(f[17], "0") << line;  // the one prefill replica
    EXPECT_GE(std::stoi(f[1]), 1) << line;
    const double transfer = std::stod(f[18]), ttft = std::stod(f[13]);
    EXPECT_GT(transfer, 0) << line;
    EXPECT_LT(transfer, ttft) << line;
  }
  EXPECT_EQ(rows, 20);
  const testing::CommandResult table = RunInfergrid("simulate --max-requests=20 --pd=1P1D");
  EXPECT_THAT(table.out, HasSubstr("disaggregated 1 prefill + 1 decode replicas (least-kv): KV transfer mean"));
  EXPECT_FALSE(Json(RunInfergrid("simulate --quiet --format=json --max-requests=5")).contains("disaggregation"));
  for (const std::string bad :
       {"--pd=2P", "--pd=0P2D", "--pd=1P1D --num-replicas=3", "--decode-router=least-kv",
        "--pd=1P1D --decode-router=random", "--kv-transfer-latency=0.001", "--pd=1P1D --kv-transfer-latency=-1",
        "--pd=1P1D --fabric-bandwidth=0", "--pd=1P1D --fabric-latency=-1e-6"}) {
    const testing::CommandResult e = RunInfergrid("simulate --quiet --max-requests=5 " + bad);
    EXPECT_EQ(e.exit_code, 2) << bad;
    EXPECT_EQ(e.out, "") << bad;
    EXPECT_THAT(e.err, AnyOf(HasSubstr("--pd"), HasSubstr("--decode-router"), HasSubstr("--kv-transfer-latency"),
                             HasSubstr("--fabric-bandwidth"), HasSubstr("--fabric-latency")))
        << bad << ": " << e.err;
  }
}

TEST(SimulateCli, EngineDefaultsComeFromThePersonality) {
  const auto config = [](const std::string& flags) {
    const testing::CommandResult r =
        RunInfergrid("simulate --quiet --format=json --max-requests=10 --max-model-len=1024 " + flags);
    EXPECT_EQ(r.exit_code, 0) << flags << ": " << r.err;
    return r.exit_code == 0 ? Json(r) : nlohmann::json();
  };
  const nlohmann::json v0 = config("--engine=vllm-v0");
  EXPECT_EQ(v0["config"]["scheduler"], "vllm");
  EXPECT_EQ(v0["config"]["max_num_seqs"], 256);
  EXPECT_EQ(v0["config"]["max_num_batched_tokens"], 2048);
  EXPECT_EQ(v0["config"]["block_size"], 16);
  EXPECT_EQ(v0["memory"]["watermark_blocks"], v0["memory"]["num_gpu_blocks"].get<int>() / 100);
  const nlohmann::json v1 = config("--engine=vllm-v1");
  EXPECT_EQ(v1["config"]["scheduler"], "sarathi");
  EXPECT_EQ(v1["config"]["max_num_seqs"], 1024);
  EXPECT_EQ(v1["config"]["max_num_batched_tokens"], 8192);
  EXPECT_EQ(v1["config"]["chunk_size"], 8192);
  EXPECT_EQ(v1["memory"]["watermark_blocks"], 0);
  EXPECT_EQ(config("--engine=sglang")["config"]["block_size"], 1);
  const nlohmann::json mine = config("--engine=vllm-v0 --scheduler=sarathi --chunk-size=4096 --max-num-seqs=64");
  EXPECT_EQ(mine["config"]["scheduler"], "sarathi");
  EXPECT_EQ(mine["config"]["chunk_size"], 4096);
  EXPECT_EQ(mine["config"]["max_num_batched_tokens"], 2048);  // V0's chunked budget from 0.6.5 (PR #10544)
  EXPECT_EQ(mine["config"]["max_num_seqs"], 64);
  EXPECT_EQ(config("--engine=vllm-v0@0.6.3 --scheduler=sarathi")["config"]["max_num_batched_tokens"], 512);
}

// A closed-loop client (--max-concurrency=N): never more than N requests in flight (each sent
// when one finishes, its latencies counted from the send), and throughput grows with N until
// the engine saturates.
TEST(SimulateCli, ClosedLoopClientKeepsAtMostNInFlight) {
  const fs::path dir = testing::TestDir();
  std::vector<double> throughput;
  for (int n : {1, 4, 16, 64, 256}) {
    const std::string out = (dir / absl::StrCat("n", n)).string();
    const testing::CommandResult r = RunInfergrid(absl::StrCat(
        "simulate --quiet --format=json --max-requests=300 --rate=100 --max-concurrency=", n, " --out=", out));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = Json(r);
    EXPECT_EQ(j["completed"], 300);
    EXPECT_EQ(j["config"]["max_concurrency"], n);
    throughput.push_back(j["throughput"]["output_tokens_per_s"].get<double>());
    // In flight: sent (arrival_s) and not finished (finish_s); a finish frees its slot before
    // a send at the same instant.
    std::vector<std::pair<double, int>> events;
    const std::vector<std::string> rows = Lines(ReadAll(out + "/requests.csv"));
    for (size_t i = 1; i < rows.size(); ++i) {
      const std::vector<std::string> f = absl::StrSplit(rows[i], ',');
      events.emplace_back(std::stod(f[3]), +1);
      events.emplace_back(std::stod(f[6]), -1);
    }
    std::sort(events.begin(), events.end());
    int in_flight = 0, peak = 0;
    for (const auto& [t, delta] : events) peak = std::max(peak, in_flight += delta);
    EXPECT_LE(peak, n);
    EXPECT_EQ(peak, std::min(n, 300)) << "the client keeps every slot busy while requests remain";
  }
  for (size_t i = 1; i < throughput.size(); ++i) EXPECT_GE(throughput[i], throughput[i - 1] * 0.99);
  EXPECT_GT(throughput[2], 4 * throughput[0]);  // far from saturated: more in flight, more tokens
  EXPECT_LT(throughput[4], 1.3 * throughput[3]);  // saturated: 256 in flight gain little over 64
}

// Fixed-length requests all submitted at once, as vLLM's benchmark_latency sends its batch.
std::string FixedBatchTrace(int batch, int input, int output) {
  std::string rows = "arrival_s,input_tokens,output_tokens\n";
  for (int i = 0; i < batch; ++i) absl::StrAppend(&rows, "0,", input, ",", output, "\n");
  return testing::WriteFile(testing::TestDir() / absl::StrCat("batch", batch, ".csv"), rows);
}

// One request's run as the client sees it (summary.json) and the engine's decode steps
// (iterations.csv, decode-only rows): their mean duration.
struct StreamedRun {
  nlohmann::json summary;
  double decode_step_s = 0;
};

StreamedRun RunOneRequest(const std::string& name, const std::string& flags) {
  const fs::path out = testing::TestDir() / name;
  const testing::CommandResult r = RunInfergrid(
      absl::StrCat("simulate --quiet --format=json --front-end=false --trace=", FixedBatchTrace(1, 32, 129),
                   " --out=", out.string(), " ", flags));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return {};
  StreamedRun run{Json(r)};
  std::vector<double> steps;
  const std::vector<std::string> rows = Lines(ReadAll(out / "iterations.csv"));
  const std::vector<std::string> header = absl::StrSplit(rows[0], ',');
  const auto column = [&](const char* field) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), field) - header.begin());
  };
  for (size_t i = 1; i < rows.size(); ++i) {
    const std::vector<std::string> f = absl::StrSplit(rows[i], ',');
    if (f[column("prefill_seqs")] != "0") continue;
    steps.push_back(std::stod(f[column("end_s")]) - std::stod(f[column("start_s")]));
  }
  double sum = 0;
  for (double step : steps) sum += step;
  if (!steps.empty()) run.decode_step_s = sum / static_cast<double>(steps.size());
  return run;
}

// vLLM 0.6 multi-step served under load: the group's N tokens reach the client as one chunk at
// its end (the GPU runs ahead of the CPU, so the runner pythonizes them after the last forward),
// so each inter-token latency the client measures is N decode steps; streamed step by step
// (--multi-step-stream-outputs=true, the CPU-ahead case) each is one step.
TEST(SimulateCli, MultiStepItlIsNStepsAsTheClientMeasuresIt) {
  const StreamedRun groups = RunOneRequest("ms8", "--engine=vllm-v0@0.6.5 --num-scheduler-steps=8");
  const StreamedRun streamed =
      RunOneRequest("ms8s", "--engine=vllm-v0@0.6.5 --num-scheduler-steps=8 --multi-step-stream-outputs=true");
  const StreamedRun single = RunOneRequest("ms1", "--engine=vllm-v0@0.6.5");
  ASSERT_GT(groups.decode_step_s, 0);
  // 129 tokens: the prefill's, then 128 in 16 groups of 8, one chunk (one gap) each.
  EXPECT_EQ(groups.summary["itl"]["count"], 16);
  EXPECT_NEAR(groups.summary["itl"]["p50"].get<double>(), 8 * groups.decode_step_s, 0.01 * 8 * groups.decode_step_s);
  EXPECT_EQ(streamed.summary["itl"]["count"], 128);
  EXPECT_NEAR(streamed.summary["itl"]["p50"].get<double>(), streamed.decode_step_s, 0.01 * streamed.decode_step_s);
  // TPOT is (E2E - TTFT) / (out - 1) either way, and the first token leaves with the prefill.
  for (const StreamedRun* run : {&groups, &streamed}) {
    EXPECT_NEAR(run->summary["tpot"]["mean"].get<double>(),
                (run->summary["e2e"]["mean"].get<double>() - run->summary["ttft"]["mean"].get<double>()) / 128, 1e-12);
  }
  EXPECT_NEAR(groups.summary["ttft"]["mean"].get<double>(), single.summary["ttft"]["mean"].get<double>(), 1e-12);
  // One scheduler call per 8 steps: less host time than scheduling every step, same tokens.
  EXPECT_LT(groups.summary["e2e"]["max"].get<double>(), single.summary["e2e"]["max"].get<double>());
  // Members finishing inside a group, the last ones before its end: every request still gets
  // its last token (held tokens leave when the group ends, however it ends).
  std::string rows = "arrival_s,input_tokens,output_tokens\n";
  for (int i = 0; i < 24; ++i) absl::StrAppend(&rows, "0,64,", 3 + i, "\n");
  const std::string varied = testing::WriteFile(testing::TestDir() / "varied.csv", rows);
  const testing::CommandResult r = RunInfergrid(
      absl::StrCat("simulate --quiet --format=json --engine=vllm-v0@0.6.5 --num-scheduler-steps=8 --trace=", varied));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json(r)["completed"], 24);
  EXPECT_LT(groups.summary["iterations"]["host_s"].get<double>(), single.summary["iterations"]["host_s"].get<double>());
}

// A stream interval K: the first token leaves at once (TTFT as without one), then a message of
// K tokens every K steps, one ITL each; the engines differ only in where the K-token messages
// start. 129 tokens: vLLM V1 and SGLang send tokens 1, 5, 9, .. 129 (32 gaps of 4 steps);
// TensorRT-LLM sends tokens 1, 4, 8, .. 128 and the last, 129 (33 gaps).
TEST(SimulateCli, StreamIntervalSendsKTokensAMessage) {
  const struct {
    const char* engine;
    int gaps;
  } cases[] = {{"vllm-v1@0.21", 32}, {"sglang@0.5.3", 32}, {"trtllm@pytorch", 33}};
  for (const auto& c : cases) {
    const std::string engine = absl::StrCat("--engine=", c.engine);
    const StreamedRun every = RunOneRequest(absl::StrCat(c.engine, "-1"), engine);
    const StreamedRun four = RunOneRequest(absl::StrCat(c.engine, "-4"), absl::StrCat(engine, " --stream-interval=4"));
    ASSERT_GT(four.decode_step_s, 0) << c.engine;
    EXPECT_EQ(every.summary["itl"]["count"], 128) << c.engine;
    EXPECT_EQ(four.summary["itl"]["count"], c.gaps) << c.engine;
    EXPECT_NEAR(four.summary["itl"]["p50"].get<double>(), 4 * four.decode_step_s, 0.01 * 4 * four.decode_step_s)
        << c.engine;
    EXPECT_EQ(four.summary["ttft"]["mean"], every.summary["ttft"]["mean"]) << c.engine;
    EXPECT_EQ(four.summary["e2e"]["mean"], every.summary["e2e"]["mean"]) << c.engine;  // the last token is sent
  }
}

// vLLM V1's async scheduling forms the next batch while one runs: a request arriving mid-step
// is prefilled two boundaries later, not at the next one as with --no-async-scheduling.
TEST(SimulateCli, AsyncSchedulingAdmitsAnArrivalOneStepLater) {
  const std::filesystem::path dir = testing::TestDir();
  const std::string trace =
      testing::WriteFile(dir / "two.csv", "arrival_s,input_tokens,output_tokens\n0,100,50\n0.0405,100,5\n");
  const auto scheduled_after = [&](const std::string& flags) -> int {
    const std::filesystem::path out = dir / (flags.empty() ? "async" : "sync");
    const testing::CommandResult r =
        RunInfergrid(absl::StrCat("simulate --quiet --front-end=false --engine=vllm-v1@0.21 --trace=", trace,
                                  " --out=", out.string(), " ", flags));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::vector<std::string> requests = Lines(ReadAll(out / "requests.csv"));
    if (requests.size() < 3) return -1;
    const double scheduled = std::stod(std::vector<std::string>(absl::StrSplit(requests[2], ','))[4]);
    // Boundaries between B's arrival and its prefill.
    int boundaries = 0;
    for (const std::string& row : Lines(ReadAll(out / "iterations.csv"))) {
      const std::vector<std::string> f = absl::StrSplit(row, ',');
      if (f[0] == "replica") continue;
      const double end = std::stod(f[3]);
      if (end > 0.0405 && end <= scheduled + 1e-12) ++boundaries;
    }
    return boundaries;
  };
  EXPECT_EQ(scheduled_after(""), 2);
  EXPECT_EQ(scheduled_after("--no-async-scheduling"), 1);
}

// SGLang chunks a prompt longer than chunked_prefill_size (8192 on an H100) into prefill-only
// iterations; the request behind it joins the last chunk's iteration.
TEST(SimulateCli, SglangChunksALongPromptIntoPrefillIterations) {
  const std::filesystem::path dir = testing::TestDir();
  const std::string trace =
      testing::WriteFile(dir / "long.csv", "arrival_s,input_tokens,output_tokens\n0,20000,4\n0,100,4\n");
  const auto prefill_tokens = [&](const std::string& flags) {
    const std::filesystem::path out = dir / absl::StrCat("sglang", flags.size());
    const testing::CommandResult r = RunInfergrid(absl::StrCat(
        "simulate --quiet --front-end=false --engine=sglang --model=meta-llama/Llama-3.1-8B-Instruct --trace=", trace,
        " --out=", out.string(), " ", flags));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<int64_t> tokens;
    for (const std::string& row : Lines(ReadAll(out / "iterations.csv"))) {
      const std::vector<std::string> f = absl::StrSplit(row, ',');
      if (f[0] == "replica" || f[10] == "0") continue;  // the header; decode iterations
      tokens.push_back(std::stoll(f[10]));
    }
    return tokens;
  };
  EXPECT_EQ(prefill_tokens(""), (std::vector<int64_t>{8192, 8192, 3616 + 100}));
  EXPECT_EQ(prefill_tokens("--chunk-size=12000"), (std::vector<int64_t>{12000, 8000 + 100}));
  EXPECT_EQ(prefill_tokens("--scheduler=vllm"), (std::vector<int64_t>{20100}));  // whole prompts
  // SGLang's own spelling: a chunk size, or -1 for whole prompts of up to max_prefill_tokens
  // (16,384) a prefill, a longer one alone.
  EXPECT_EQ(prefill_tokens("--chunked-prefill-size=4096"), (std::vector<int64_t>{4096, 4096, 4096, 4096, 3616 + 100}));
  EXPECT_EQ(prefill_tokens("--chunked-prefill-size=-1"), (std::vector<int64_t>{20000, 100}));
}

// TensorRT-LLM's GUARANTEED_NO_EVICT capacity scheduler: under KV pressure that makes
// MAX_UTILIZATION (paged) preempt, a request starts only when its whole length fits.
TEST(SimulateCli, TrtllmNeverPreemptsUnderKvPressure) {
  const auto run = [](const std::string& flags) {
    const testing::CommandResult r = RunInfergrid(
        "simulate --quiet --format=json --engine=trtllm@pytorch --free-gpu-memory-fraction=0.02 "
        "--max-model-len=2048 --rate=50 --max-requests=400 " +
        flags);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json(r);
  };
  const nlohmann::json j = run("");
  EXPECT_GT(j["kv"]["peak_fraction"].get<double>(), 0.9);
  EXPECT_EQ(j["kv"]["preemptions"].get<int>(), 0);
  EXPECT_EQ(j["completed"].get<int>() + j["rejected"].get<int>(), 400);
  EXPECT_GT(run("--capacity-scheduler-policy=MAX_UTILIZATION")["kv"]["preemptions"].get<int>(), 0);
  // Too little KV for one request of max_model_len: the hint names the engine's own flag.
  testing::ExpectOneLineError({"simulate --quiet --engine=trtllm@pytorch --free-gpu-memory-fraction=0.01", 1,
                               "lower --max-model-len or raise --free-gpu-memory-fraction"});
}

TEST(SimulateCli, EngineFlagsBelongToTheirEngine) {
  const std::pair<const char*, const char*> cases[] = {
      {"--num-scheduler-steps=8", "--num-scheduler-steps is not a vllm-v1@0.21 flag"},
      {"--disable-overlap-schedule", "--disable-overlap-schedule is not a vllm-v1@0.21 flag"},
      {"--engine=sglang --disable-async-output-proc", "--disable-async-output-proc is not a sglang@0.4.9 flag"},
      {"--chunked-prefill-size=4096", "--chunked-prefill-size is not a vllm-v1@0.21 flag"},
      {"--engine=sglang --capacity-scheduler-policy=max_utilization",
       "--capacity-scheduler-policy is not a sglang@0.4.9 flag"},
      {"--engine=trtllm --capacity-scheduler-policy=fcfs",
       "--capacity-scheduler-policy: expected guaranteed_no_evict or max_utilization"},
      {"--engine=sglang --preemption-mode=swap", "--preemption-mode=swap: the sglang scheduler retracts requests"},
      {"--scheduler=sglang --preemption-mode=swap", "--preemption-mode=swap: the sglang scheduler retracts requests"},
      {"--engine=vllm-v0@0.6.5 --stream-interval=4", "--stream-interval is not a vllm-v0@0.6.5 flag"},
      {"--engine=trtllm@cpp --stream-interval=4", "--stream-interval is not a trtllm@cpp flag"},
      {"--stream-interval=0", "--stream-interval=0 is out of range (1..1048576)"},
  };
  for (const auto& [flags, message] : cases) {
    testing::ExpectOneLineError({absl::StrCat("simulate --quiet ", flags), 2, message});
  }
  EXPECT_EQ(RunInfergrid("simulate --quiet --max-requests=5 --engine=sglang --disable-overlap-schedule").exit_code, 0);
}

// An engine version between personalities runs on the newest at or below it, and says so in
// the terminal and in summary.json; one below the oldest is refused naming the known ones.
TEST(SimulateCli, AVersionBetweenPersonalitiesRunsOnTheOneBelowWithANote) {
  const char kNote[] = "vllm-v1@0.13.2 runs on personality vllm-v1@0.11 (the newest at or below 0.13.2)";
  const testing::CommandResult table = RunInfergrid("simulate --quiet --max-requests=5 --engine=vllm-v1@0.13.2");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr(absl::StrCat("note: ", kNote, "\n")));
  EXPECT_THAT(table.out, HasSubstr("plan vllm-v1@0.11)"));
  const testing::CommandResult json =
      RunInfergrid("simulate --quiet --format=json --max-requests=5 --engine=vllm-v1@0.13.2");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = Json(json);
  EXPECT_EQ(j["config"]["engine"], "vllm-v1@0.11");
  EXPECT_EQ(j["config"]["engine_requested"], "vllm-v1@0.13.2");
  EXPECT_THAT(j["notes"].dump(), HasSubstr(kNote));
  // The same run as the personality named: the same numbers.
  const testing::CommandResult named =
      RunInfergrid("simulate --quiet --format=json --max-requests=5 --engine=vllm-v1@0.11");
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(Json(named)["e2e"], j["e2e"]);
  EXPECT_EQ(Json(named)["notes"].dump().find("runs on personality"), std::string::npos);
  testing::ExpectOneLineError(
      {"simulate --quiet --engine=vllm-v1@0.9", 2,
       "--engine: engine 'vllm-v1@0.9' is older than the oldest vllm-v1 personality, vllm-v1@0.11"});
  testing::ExpectOneLineError({"simulate --quiet --engine=vllm-v1@2.0", 2, "no personality of major version 2"});
}

// A slow host binds a synchronous engine: the GPU waits for scheduling and output processing.
TEST(SimulateCli, ASlowHostBindsTheSynchronousEngine) {
  const testing::CommandResult r =
      RunInfergrid("simulate --quiet --format=json --max-requests=30 --engine=vllm-v0@0.5.3 --cpu-speed=0.1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = Json(r);
  EXPECT_GT(j["iterations"]["host_share"].get<double>(), 0.5);
  bool host_binds = false;
  for (const auto& share : j["binding"]) host_binds |= share["resource"] == "host" && share["time_share"] > 0.5;
  EXPECT_TRUE(host_binds) << j["binding"];
}

// vLLM ~0.6.3 benchmark_latency, Llama-3.1-8B, batch 8, 32 in / 128 out on one H100:
// 997.5 ms measured (serving_reference.csv F29; nothing was fitted to it). The prediction
// stays within 5%.
TEST(SimulateCli, BatchLatencyOfVllm06WithinFivePercentOfF29) {
  const testing::CommandResult r = RunInfergrid(absl::StrCat(
      "simulate --quiet --format=json --front-end=false --engine=vllm-v0@0.6.5 --model=llama-3.1-8b --trace=",
      FixedBatchTrace(8, 32, 128)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NEAR(Json(r)["e2e"]["max"].get<double>(), 0.9975, 0.05 * 0.9975);
}

// Tensor parallelism stays inside one NVLink domain: one server on HGX boards, whose size the
// GPU spec gives.
TEST(SimulateCli, TensorParallelismStaysInsideTheGpuSpecsNode) {
  std::string spec = ReadAll(testing::SourcePath("hardware/catalog/h100-sxm.textproto"));
  spec.replace(spec.find("gpus_per_node: 8"), 16, "gpus_per_node: 4");
  const std::string path = testing::WriteFile(testing::TestDir() / "h100-4.textproto", spec);
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("simulate --quiet --model=llama-3-70b --tensor-parallel-size=8 --gpu=", path));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("does not fit h100-sxm's NVLink domain of 4 GPUs"));
}

TEST(CompareCli, TwoSummaryFiles) {
  const fs::path dir = testing::TestDir();
  ASSERT_EQ(RunInfergrid(absl::StrCat("simulate --quiet --max-requests=30 --out=", (dir / "a").string())).exit_code, 0);
  ASSERT_EQ(
      RunInfergrid(absl::StrCat("simulate --quiet --max-requests=30 --max-num-seqs=4 --out=", (dir / "b").string()))
          .exit_code,
      0);
  const testing::CommandResult r = RunInfergrid(absl::StrCat(
      "compare --format=json ", (dir / "a/summary.json").string(), " ", (dir / "b/summary.json").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = Json(r);
  EXPECT_EQ(j["b"]["max_num_seqs"], 4);
  const testing::CommandResult missing =
      RunInfergrid(absl::StrCat("compare ", (dir / "a/summary.json").string(), " nowhere.json"));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("nowhere.json"));
}

TEST(SimulateCli, WholeAzureConversationTrace) {
  const std::string trace = testing::SourcePath("../shared/data/traces/AzureLLMInferenceTrace_conv.csv");
  if (!fs::exists(trace)) GTEST_SKIP() << "no " << trace;
  const testing::CommandResult r = RunInfergrid(absl::StrCat("simulate --quiet --format=json --trace=", trace));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = Json(r);
  EXPECT_EQ(j["requests"], 19366);
  EXPECT_EQ(j["completed"].get<int>() + j["rejected"].get<int>(), 19366);
  // The trace covers about an hour.
  EXPECT_GT(j["simulated_duration_s"].get<double>(), 3000);
}

}  // namespace
}  // namespace infergrid
