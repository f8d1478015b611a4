// The benchmark clients' building blocks against the libraries vLLM's scripts use: every
// expected number here was produced by CPython 3.11 / NumPy 1.24 with the same calls and seeds
// (the call is in the comment), so a failure means a draw, a statistic or a digit that differs
// from what the engine's own script would produce. Then the datasets, the request schedule,
// the metrics' definitions, the report and JSON formats, and --compare.
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/app/bench/bench_dataset.h"
#include "sim/app/bench/compare_result.h"
#include "sim/app/bench/numpy_random.h"
#include "sim/app/bench/numpy_stats.h"
#include "sim/app/bench/offline_results.h"
#include "sim/app/bench/one_batch_result.h"
#include "sim/app/bench/perf_windows.h"
#include "sim/app/bench/python_json.h"
#include "sim/app/bench/python_random.h"
#include "sim/app/bench/request_schedule.h"
#include "sim/app/bench/serve_metrics.h"
#include "sim/app/bench/serve_result.h"
#include "sim/app/bench/sglang_serving.h"
#include "sim/app/bench/token_estimate.h"
#include "tests/test_files.h"

namespace infergrid::bench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(PythonRandom, DrawsWhatCPythonDraws) {
  PythonRandom r(0);  // random.seed(0); [random.getrandbits(32) for _ in range(3)]
  EXPECT_EQ(r.GetRandBits(32), 3626764237u);
  EXPECT_EQ(r.GetRandBits(32), 1654615998u);
  EXPECT_EQ(r.GetRandBits(32), 3255389356u);
  std::vector<int> x{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  PythonRandom s(2024);  // random.seed(2024); random.shuffle(x)
  s.Shuffle(x);
  EXPECT_THAT(x, ElementsAre(0, 6, 8, 1, 10, 11, 5, 3, 4, 9, 2, 7));
  PythonRandom c(7);  // [random.choice(range(5)) for _ in range(6)]
  std::vector<size_t> picks;
  for (int i = 0; i < 6; ++i) picks.push_back(c.ChoiceIndex(5));
  EXPECT_THAT(picks, ElementsAre(2, 1, 3, 0, 0, 4));
  PythonRandom k(7);  // [int(random.random() * 17) for _ in range(6)]: choices(k=6)
  picks.clear();
  for (int i = 0; i < 6; ++i) picks.push_back(k.ChoicesIndex(17));
  EXPECT_THAT(picks, ElementsAre(5, 2, 11, 1, 9, 6));
  PythonRandom big(12345678901LL);  // a seed of two 32-bit words
  EXPECT_EQ(big.Random(), 0.9460118159397316);
  EXPECT_EQ(big.GetRandBits(40), 954891488787u);
}

TEST(NumpyRandom, LegacyRandomStateMatchesNumpy) {
  LegacyRandomState a(0);  // np.random.seed(0); np.random.gamma(1.0, 0.25, 3)
  EXPECT_EQ(a.Gamma(1.0, 0.25), 0.1989686270407775);
  EXPECT_EQ(a.Gamma(1.0, 0.25), 0.31398269074145946);
  EXPECT_EQ(a.Gamma(1.0, 0.25), 0.2308057864510172);
  LegacyRandomState b(3);  // shape < 1: the rejection branch
  EXPECT_EQ(b.Gamma(0.5, 0.5), 0.15321854563485515);
  EXPECT_EQ(b.Gamma(0.5, 0.5), 0.04231278356100415);
  EXPECT_EQ(b.Gamma(0.5, 0.5), 0.8072653129480187);
  LegacyRandomState c(3);  // shape > 1: Marsaglia-Tsang on the polar Gaussian
  EXPECT_EQ(c.Gamma(4.0, 1.0 / 16), 0.5167940386737222);
  EXPECT_EQ(c.Gamma(4.0, 1.0 / 16), 0.2854776086708416);
  EXPECT_EQ(c.Gamma(4.0, 1.0 / 16), 0.19754649661344975);
  LegacyRandomState p(5);  // np.random.RandomState(5).permutation(9), then .randint(0, 7, 6)
  EXPECT_THAT(p.Permutation(9), ElementsAre(2, 4, 8, 7, 1, 0, 5, 6, 3));
  std::vector<int64_t> ints;
  for (int i = 0; i < 6; ++i) ints.push_back(p.RandInt(7));
  EXPECT_THAT(ints, ElementsAre(6, 3, 0, 6, 0, 4));
}

TEST(NumpyRandom, Pcg64IntegersMatchDefaultRng) {
  Pcg64Generator g(0);  // g = np.random.default_rng(0); g.integers(768, 1281, 5); g.integers(64, 193, 5)
  std::vector<int64_t> v;
  for (int i = 0; i < 5; ++i) v.push_back(g.IntegersInclusive(768, 1280));
  EXPECT_THAT(v, ElementsAre(1204, 1094, 1030, 906, 925));
  v.clear();
  for (int i = 0; i < 5; ++i) v.push_back(g.IntegersInclusive(64, 192));
  EXPECT_THAT(v, ElementsAre(69, 73, 66, 86, 168));
}

TEST(NumpyStats, MatchNumpyToTheLastBit) {
  // x = [0.1 * i ** 1.5 for i in range(1, 21)] + [1e-3, 7.25]
  std::vector<double> x;
  for (int i = 1; i <= 20; ++i) x.push_back(0.1 * std::pow(i, 1.5));
  x.push_back(1e-3);
  x.push_back(7.25);
  EXPECT_EQ(PythonFloatRepr(NumpyMean(x)), "3.7877574998373134");
  EXPECT_EQ(PythonFloatRepr(NumpyStd(x)), "2.84386220812293");
  EXPECT_EQ(PythonFloatRepr(NumpyMedian(x)), "3.40528246477966");
  EXPECT_EQ(PythonFloatRepr(NumpyPercentile(x, 99)), "8.805175487372065");
  EXPECT_EQ(PythonFloatRepr(NumpyPercentile(x, 25)), "1.205948952979898");
  EXPECT_EQ(PythonFloatRepr(NumpyPercentile(x, 99.9)), "8.930362267736452");
  EXPECT_EQ(NumpyMean({}), 0);  // vLLM: np.mean(values or 0)
  EXPECT_EQ(NumpyPercentile({}, 99), 0);
}

TEST(PythonJson, WritesWhatJsonDumpsWrites) {
  EXPECT_EQ(PythonFloatRepr(1.0), "1.0");
  EXPECT_EQ(PythonFloatRepr(0.1), "0.1");
  EXPECT_EQ(PythonFloatRepr(1e-5), "1e-05");
  EXPECT_EQ(PythonFloatRepr(0.0001), "0.0001");
  EXPECT_EQ(PythonFloatRepr(1e15), "1000000000000000.0");
  EXPECT_EQ(PythonFloatRepr(1e16), "1e+16");
  EXPECT_EQ(PythonFloatRepr(-2.5e-7), "-2.5e-07");
  EXPECT_EQ(PythonFloatRepr(std::numeric_limits<double>::infinity()), "Infinity");
  PyJson j = PyJson::object();
  j["a"] = 1;
  j["b"] = PyJson::array({0.5, 2.0});
  j["c"] = nullptr;
  j["d"] = "caf\xc3\xa9 \"q\"";
  j["e"] = PyJson::object();
  EXPECT_EQ(DumpPythonJson(j), R"({"a": 1, "b": [0.5, 2.0], "c": null, "d": "caf\u00e9 \"q\"", "e": {}})");
  EXPECT_EQ(DumpPythonJson(j, 4),
            "{\n    \"a\": 1,\n    \"b\": [\n        0.5,\n        2.0\n    ],\n    \"c\": null,\n"
            "    \"d\": \"caf\\u00e9 \\\"q\\\"\",\n    \"e\": {}\n}");
}

TEST(RequestSchedule, SendsWhenVllmSends) {
  // vLLM's get_request after np.random.seed(0): gamma intervals, cumulated, scaled to n / rate.
  EXPECT_THAT(RequestSendTimes(5, 4.0, 1.0, 0),
              ElementsAre(0.2306466500154486, 0.594618884530151, 0.8621715245662005, 1.090304611890903, 1.25));
  EXPECT_THAT(RequestSendTimes(4, 2.0, 0.5, 1),
              ElementsAre(1.5113341787774701, 1.511334292462528, 1.6985031746061192, 2.0));
  EXPECT_THAT(RequestSendTimes(3, std::numeric_limits<double>::infinity(), 1.0, 0), ElementsAre(0, 0, 0));
  EXPECT_THAT(RequestSendTimes(4, 2.0, std::numeric_limits<double>::infinity(), 0), ElementsAre(0.5, 1.0, 1.5, 2.0));
}

DatasetOptions Options(const std::string& name, const std::string& path = "") {
  DatasetOptions o;
  o.name = name;
  o.path = path;
  o.tokenizer = TokenizerFamilyFor("llama-3-8b", 128256);
  return o;
}

// SGLang's bench_serving draws its random lengths from np.random.seed(1): the token totals it
// printed for the runs in serving_under_load.csv (L109, L112, L130, published figures) follow.
TEST(SglangClient, RandomLengthsGiveTheTotalsSglangPrinted) {
  struct Run {
    int64_t prompts, input_len, output_len, input_total, output_total;
  };
  for (const Run& run : {Run{3000, 1024, 1024, 1525074, 1544818}, Run{4000, 1024, 512, 2034177, 1029594},
                         Run{300, 1024, 1024, 152612, 160347}}) {
    DatasetOptions o;
    o.sglang_client = true;
    o.seed = 1;
    o.num_prompts = run.prompts;
    o.random_input_len = run.input_len;
    o.random_output_len = run.output_len;
    o.random_range_ratio = 0;
    absl::StatusOr<std::vector<BenchRequest>> requests = SampleDataset(o);
    ASSERT_TRUE(requests.ok()) << requests.status();
    int64_t in = 0, out = 0;
    for (const BenchRequest& r : *requests) {
      in += r.prompt_len;
      out += r.output_len;
      EXPECT_GE(r.prompt_len, 1);
      EXPECT_LE(r.prompt_len, run.input_len);
    }
    EXPECT_EQ(in, run.input_total) << run.prompts;
    EXPECT_EQ(out, run.output_total) << run.prompts;
  }
  // Its schedule: the first request at once, exponential gaps of mean 1 / rate after.
  DatasetOptions o;
  o.sglang_client = true;
  o.seed = 1;
  o.num_prompts = 2000;
  const std::vector<double> times = SglangSendTimes(o, 2000, 4.0);
  EXPECT_EQ(times[0], 0);
  EXPECT_NEAR(times.back() / 1999, 0.25, 0.02);
  for (size_t i = 1; i < times.size(); ++i) EXPECT_GE(times[i], times[i - 1]);
}

// perf_analyzer's windows: a burst of slow requests ends in the first 10 s window, then the
// load is steady. Stability at 10% slides past the burst; genai-perf's 999 takes the first
// three windows, burst included.
TEST(GenaiPerfWindows, AStableMeasurementExcludesTheWarmUpBurst) {
  std::vector<RequestOutcome> outcomes;
  auto add = [&](double start, double latency) {
    RequestOutcome r;
    r.success = true;
    r.start_time = start;
    r.latency = latency;
    r.ttft = latency / 10;
    r.output_tokens = 10;
    r.prompt_len = 100;
    outcomes.push_back(r);
  };
  for (int i = 0; i < 50; ++i) add(0, 9.0);  // the burst: all end at 9 s
  for (int i = 0; i < 600; ++i) add(9.0 + i * 0.1, 2.0);  // then one every 100 ms, 2 s each
  PerfWindowOptions options;
  options.interval_s = 10;
  options.stability_percent = 10;
  absl::StatusOr<PerfMeasurement> m = MeasureWindows(outcomes, 9.0 + 599 * 0.1, options);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(m->stable);
  EXPECT_GE(m->begin_s, 10);
  const GenaiPerfMetrics metrics = ComputeGenaiPerfMetrics(outcomes, *m);
  EXPECT_NEAR(metrics.request_latency_ms.avg, 2000, 1e-6);  // no burst request measured
  EXPECT_NEAR(metrics.itl_ms.avg, (2.0 - 0.2) / 9 * 1000, 1e-6);
  options.stability_percent = 999;
  m = MeasureWindows(outcomes, 9.0 + 599 * 0.1, options);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->begin_s, 0);
  EXPECT_GT(ComputeGenaiPerfMetrics(outcomes, *m).request_latency_ms.avg, 2000);
  // A run that ends before the windows do asks for more requests; one never stable is an error.
  EXPECT_TRUE(absl::IsNotFound(MeasureWindows(outcomes, 25, options).status()));
  options.stability_percent = 0;
  options.max_trials = 5;
  std::vector<RequestOutcome> ramp;
  for (int i = 0; i < 600; ++i) {
    RequestOutcome r = outcomes[0];
    r.start_time = i * 0.1;
    r.latency = 1 + i * 0.01;
    ramp.push_back(r);
  }
  EXPECT_TRUE(absl::IsFailedPrecondition(MeasureWindows(ramp, 59.9, options).status()));
}

TEST(BenchDataset, RandomLengthsAreVllmsDraws) {
  DatasetOptions o = Options("random");
  o.num_prompts = 5;
  o.random_input_len = 1025;  // 1024 sampled tokens + the BOS the server adds
  o.random_output_len = 128;
  o.random_range_ratio = 0.25;  // integers(768, 1281) then integers(96, 161) from default_rng(0)
  absl::StatusOr<std::vector<BenchRequest>> r = SampleDataset(o);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<int> prompts, outputs;
  for (const BenchRequest& q : *r) {
    prompts.push_back(q.prompt_len);
    outputs.push_back(q.output_len);
    EXPECT_EQ(q.server_extra, 1);
  }
  EXPECT_THAT(prompts, ElementsAre(1204, 1094, 1030, 906, 925));
  Pcg64Generator g(0);  // the same stream: after five inputs, five outputs on [96, 160]
  for (int i = 0; i < 5; ++i) g.IntegersInclusive(768, 1280);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(outputs[static_cast<size_t>(i)], g.IntegersInclusive(96, 160));
  o.random_range_ratio = 1.0;
  EXPECT_FALSE(SampleDataset(o).ok());
}

TEST(BenchDataset, ShareGptShufflesFiltersAndCountsAsVllm) {
  const auto dir = testing::TestDir();
  // Six conversations: one with a single turn (dropped before shuffling), one whose prompt is
  // too long (> 1024 tokens, given pre-tokenized), the rest estimated from characters.
  const std::string path = testing::WriteFile(dir / "sharegpt.json", R"([
    {"id": "a", "conversations": [{"from": "human", "value": "Tell me about the history of the printing press in Europe."},
                                  {"from": "gpt", "value": "The printing press was developed around 1440 by Johannes Gutenberg, and it changed how knowledge spread."}]},
    {"id": "b", "conversations": [{"from": "human", "value": "only one turn"}]},
    {"id": "c", "conversations": [{"from": "human", "value": "x", "num_tokens": 1500},
                                  {"from": "gpt", "value": "y", "num_tokens": 20}]},
    {"id": "d", "conversations": [{"from": "human", "value": "p", "num_tokens": 40},
                                  {"from": "gpt", "value": "q", "num_tokens": 300},
                                  {"from": "human", "value": "third turn, ignored"}]},
    {"id": "e", "conversations": [{"from": "human", "value": "p", "num_tokens": 10},
                                  {"from": "gpt", "value": "q", "num_tokens": 3}]},
    {"id": "f", "conversations": [{"from": "human", "value": "p", "num_tokens": 7},
                                  {"from": "gpt", "value": "q", "num_tokens": 9}]}
  ])");
  DatasetOptions o = Options("sharegpt", path);
  o.num_prompts = 3;
  absl::StatusOr<std::vector<BenchRequest>> r = SampleDataset(o);
  ASSERT_TRUE(r.ok()) << r.status();
  // random.seed(0); random.shuffle([a, c, d, e, f]) gives [d, c, a, f, e]: d passes, c's prompt
  // is too long, a passes, f passes (e's reply, under 4 tokens, is not reached).
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].prompt_len, 40);
  EXPECT_EQ((*r)[0].output_len, 300);
  // a: 58 and 104 characters at 4.82 per token, plus BOS.
  EXPECT_EQ((*r)[1].prompt_len, 1 + 12);
  EXPECT_EQ((*r)[1].output_len, 1 + 22);
  EXPECT_EQ((*r)[2].prompt_len, 7);
  EXPECT_EQ((*r)[2].output_len, 9);
  // More than there are: vLLM tops up with random.choice after random.seed(0).
  o.num_prompts = 5;
  r = SampleDataset(o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->size(), 5u);
  o.no_oversample = true;
  EXPECT_EQ(SampleDataset(o)->size(), 3u);
  // A fixed output length skips the reply's minimum: e passes too.
  o.no_oversample = false;
  o.num_prompts = 4;
  o.sharegpt_output_len = 2;
  r = SampleDataset(o);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[3].prompt_len, 10);
  EXPECT_EQ((*r)[3].output_len, 2);
}

TEST(BenchDataset, BadFilesNameTheFileAndLine) {
  const auto dir = testing::TestDir();
  const std::string broken =
      testing::WriteFile(dir / "broken.json", "[\n  {\"conversations\": [\n    {\"value\": }\n]");
  absl::StatusOr<std::vector<BenchRequest>> r = SampleDataset(Options("sharegpt", broken));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr(broken + ":3:"));
  const std::string not_list = testing::WriteFile(dir / "object.json", R"({"conversations": []})");
  r = SampleDataset(Options("sharegpt", not_list));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("not a JSON list of conversations"));
  const std::string jsonl =
      testing::WriteFile(dir / "custom.jsonl", "{\"prompt\": \"hi\"}\n{\"text\": \"no prompt\"}\n");
  r = SampleDataset(Options("custom", jsonl));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr(jsonl + ":2: a line must be an object with a \"prompt\""));
  r = SampleDataset(Options("sharegpt", (dir / "missing.json").string()));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("missing.json"));
}

TEST(BenchDataset, CustomSonnetBurstGptAndTrace) {
  const auto dir = testing::TestDir();
  DatasetOptions custom = Options("custom", testing::WriteFile(dir / "c.jsonl",
                                                               "{\"prompt\": \"What is the capital of India?\"}\n"
                                                               "{\"prompt\": \"x\", \"prompt_len\": 101}\n"));
  custom.num_prompts = 2;
  absl::StatusOr<std::vector<BenchRequest>> r = SampleDataset(custom);
  ASSERT_TRUE(r.ok()) << r.status();
  // random.seed(0); a shuffle of two keeps the order. Llama 3 template: 11 tokens with both BOS.
  EXPECT_EQ((*r)[0].prompt_len, 6 + 11);  // 29 characters / 4.82
  EXPECT_EQ((*r)[1].prompt_len, 100 + 11);
  EXPECT_EQ((*r)[0].output_len, 256);

  std::string sonnet;
  for (int i = 0; i < 40; ++i) sonnet += "Shall I compare thee to a summer's day, line " + std::to_string(i) + "\n";
  DatasetOptions s = Options("sonnet", testing::WriteFile(dir / "sonnet.txt", sonnet));
  s.num_prompts = 3;
  r = SampleDataset(s);
  ASSERT_TRUE(r.ok()) << r.status();
  for (const BenchRequest& q : *r) {
    EXPECT_LE(q.prompt_len, 550);
    EXPECT_GT(q.prompt_len, 450);  // as many lines as fit, by vLLM's average line length
    EXPECT_EQ(q.output_len, 150);
  }
  // The base prompt and the first lines are every prompt's shared prefix: the same length in
  // each, about --sonnet-prefix-len (200) less the chat template's tokens.
  for (const BenchRequest& q : *r) {
    EXPECT_EQ(q.shared_prefix_len, (*r)[0].shared_prefix_len);
    EXPECT_LT(q.shared_prefix_len, q.prompt_len);
  }
  EXPECT_GT((*r)[0].shared_prefix_len, 150);
  EXPECT_LE((*r)[0].shared_prefix_len, 200);

  const std::string burst =
      testing::WriteFile(dir / "burst.csv",
                         "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                         "1,ChatGPT,10,20,30,Conversation log\n2,GPT-4,11,21,32,Conversation log\n"
                         "3,GPT-4,12,0,12,Conversation log\n4,GPT-4,13,23,36,API log\n5,GPT-4,14,24,38,API log\n");
  DatasetOptions b = Options("burstgpt", burst);
  b.num_prompts = 3;
  r = SampleDataset(b);
  ASSERT_TRUE(r.ok()) << r.status();
  // GPT-4 rows with a response: 11, 13, 14; pandas .sample(3, random_state=0) is
  // RandomState(0).permutation(3) = [2, 1, 0].
  LegacyRandomState order(0);
  const std::vector<int64_t> perm = order.Permutation(3);
  const int expected[] = {11, 13, 14};
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ((*r)[i].prompt_len, expected[perm[i]]);

  DatasetOptions t =
      Options("trace", testing::WriteFile(dir / "t.csv", "arrival_s,input_tokens,output_tokens\n0,5,6\n0.5,7,8\n"));
  t.num_prompts = 10;
  r = SampleDataset(t);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[1].timestamp_s, 0.5);
  EXPECT_EQ((*r)[1].prompt_len, 7);
}

std::vector<RequestOutcome> HandOutcomes() {
  // Two served requests and a failed one, times in seconds.
  RequestOutcome a;
  a.success = true;
  a.prompt_len = 100;
  a.output_tokens = 4;
  a.start_time = 0.0;
  a.ttft = 0.1;
  a.latency = 0.4;
  a.itl = {0.1, 0.1, 0.1};
  RequestOutcome b;
  b.success = true;
  b.prompt_len = 50;
  b.output_tokens = 3;
  b.start_time = 0.5;
  b.ttft = 0.2;
  b.latency = 1.0;
  b.itl = {0.8};  // two tokens in one chunk: one gap
  RequestOutcome c;
  c.prompt_len = 9000;
  c.error = "too long";
  return {a, b, c};
}

TEST(ServeMetrics, FollowVllmsDefinitions) {
  GoodputSlo slo;
  slo.ttft_ms = 150;
  const ServeMetrics m = CalculateServeMetrics(HandOutcomes(), 2.0, {50, 99}, slo);
  EXPECT_EQ(m.completed, 2);
  EXPECT_EQ(m.failed, 1);
  EXPECT_EQ(m.total_input, 150);
  EXPECT_EQ(m.total_output, 7);
  EXPECT_THAT(m.actual_output_lens, ElementsAre(4, 3, 0));
  EXPECT_DOUBLE_EQ(m.request_throughput, 1.0);
  EXPECT_DOUBLE_EQ(m.request_goodput, 0.5);  // only a meets TTFT <= 150 ms
  EXPECT_DOUBLE_EQ(m.output_throughput, 3.5);
  EXPECT_DOUBLE_EQ(m.ttft.mean, 150);
  // TPOT = (latency - ttft) / (tokens - 1): 100 ms and 400 ms.
  EXPECT_DOUBLE_EQ(m.tpot.mean, 250);
  // ITL: every gap, [100, 100, 100, 800] ms.
  EXPECT_DOUBLE_EQ(m.itl.mean, 275);
  EXPECT_DOUBLE_EQ(m.itl.median, 100);
  EXPECT_DOUBLE_EQ(m.itl.percentiles[1].second, 800 - 700 * 0.03);  // p99 between 100 and 800
  EXPECT_DOUBLE_EQ(m.e2el.mean, 700);
  // Tokens per whole second from the first send: [0, 1): a's 4 + b's first (0.7) = 5.
  EXPECT_EQ(m.max_output_tokens_per_s, 5);
  EXPECT_EQ(m.max_concurrent_requests, 1);  // a ends at 0.4, before b starts
}

// SGLang bench_one_batch's lines and result line, as Python's f-strings, np.median and
// json.dumps write them (the expected text was printed by Python from the same numbers).
TEST(OneBatchResultOutput, PrintsAndSavesWhatTheScriptDoes) {
  OneBatchResult r;
  r.run_name = "x";
  r.batch_size = 4;
  r.input_len = 256;
  r.output_len = 4;
  r.prefill_latency = 0.0312345;
  r.decode_latencies = {0.0071, 0.00705, 0.0069};
  EXPECT_EQ(OneBatchResultText(r),
            "Prefill. latency: 0.03123 s, throughput:  32784.26 token/s\n"
            "Decode 0. Batch size: 4, latency: 0.00710 s, throughput:    563.38 token/s\n"
            "Decode 1. Batch size: 4, latency: 0.00705 s, throughput:    567.38 token/s\n"
            "Decode 2. Batch size: 4, latency: 0.00690 s, throughput:    579.71 token/s\n"
            "Decode.  median latency: 0.00705 s, median throughput:    567.38 token/s\n"
            "Total. latency:  0.052 s, throughput:  19891.17 token/s\n");
  EXPECT_EQ(DumpPythonJson(OneBatchResultJson(r)),
            R"({"run_name": "x", "batch_size": 4, "input_len": 256, "output_len": 4, "prefill_latency": 0.0312345, )"
            R"("prefill_throughput": 32784.26099345276, "median_decode_latency": 0.00705, )"
            R"("median_decode_throughput": 567.3758865248227, "total_latency": 0.0522845, )"
            R"("overall_throughput": 19891.172335969553})");
  // One output token: the prefill's alone, no decode step and no median recorded.
  OneBatchResult one;
  one.input_len = 8;
  one.output_len = 1;
  one.prefill_latency = 0.5;
  EXPECT_EQ(DumpPythonJson(OneBatchResultJson(one)),
            R"({"run_name": "default", "batch_size": 1, "input_len": 8, "output_len": 1, "prefill_latency": 0.5, )"
            R"("prefill_throughput": 16.0, "total_latency": 0.5, "overall_throughput": 18.0})");
  EXPECT_THAT(OneBatchResultText(one), ::testing::Not(::testing::HasSubstr("Decode")));
}

TEST(ServeResultOutput, PrintsVllmsBlock) {
  ServeRunInfo info;
  info.request_rate = 2.0;
  info.duration_s = 2.0;
  info.percentiles = {50, 99};
  const ServeMetrics m = CalculateServeMetrics(HandOutcomes(), 2.0, info.percentiles, {});
  const std::string text = ServeResultText(m, info);
  EXPECT_THAT(text, HasSubstr("============ Serving Benchmark Result ============\n"));
  EXPECT_THAT(text, HasSubstr("Successful requests:                     2         \n"));
  EXPECT_THAT(text, HasSubstr("Request rate configured (RPS):           2.00      \n"));
  EXPECT_THAT(text, HasSubstr("---------------Time to First Token----------------\n"));
  EXPECT_THAT(text, HasSubstr("-----Time per Output Token (excl. 1st token)------\n"));
  EXPECT_THAT(text, HasSubstr("P99 ITL (ms):                            779.00    \n"));
  EXPECT_THAT(text, ::testing::EndsWith("==================================================\n"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("Maximum request concurrency:  ")));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("End-to-end")));  // not selected
}

TEST(CompareResult, ReadsVllmAndSglangResults) {
  const auto dir = testing::TestDir();
  PyJson predicted = PyJson::object();
  predicted["request_rate"] = "inf";
  predicted["max_concurrency"] = nullptr;
  predicted["request_throughput"] = 11.0;
  predicted["mean_ttft_ms"] = 90.0;
  predicted["mean_e2el_ms"] = 1200.0;
  predicted["total_token_throughput"] = 5000.0;
  const std::string vllm = testing::WriteFile(
      dir / "vllm.json", R"({"request_rate": "inf", "request_throughput": 10.0, "mean_ttft_ms": 100.0})");
  absl::StatusOr<std::vector<nlohmann::json>> docs = ReadSavedResults(vllm);
  ASSERT_TRUE(docs.ok()) << docs.status();
  absl::StatusOr<Comparison> c = CompareResults(predicted, *docs, vllm);
  ASSERT_TRUE(c.ok()) << c.status();
  const std::string text = ComparisonText(*c, vllm);
  EXPECT_THAT(text, HasSubstr("request_throughput"));
  EXPECT_THAT(text, HasSubstr("+10.0%"));
  EXPECT_THAT(text, HasSubstr("-10.0%"));
  EXPECT_THAT(text, HasSubstr("mean absolute error over 2 metrics: 10.0%"));
  // SGLang's JSONL: two runs; its e2e_latency and total_throughput are vLLM's e2el and
  // total_token_throughput; the line of the same rate is used.
  const std::string sglang = testing::WriteFile(
      dir / "sglang.jsonl",
      "{\"request_rate\": 4.0, \"max_concurrency\": null, \"mean_e2e_latency_ms\": 1.0, \"request_throughput\": 3.0}\n"
      "{\"request_rate\": \"inf\", \"max_concurrency\": null, \"mean_e2e_latency_ms\": 1500.0, "
      "\"total_throughput\": 4000.0, \"request_throughput\": 10.0}\n");
  docs = ReadSavedResults(sglang);
  ASSERT_TRUE(docs.ok()) << docs.status();
  ASSERT_EQ(docs->size(), 2u);
  c = CompareResults(predicted, *docs, sglang);
  ASSERT_TRUE(c.ok()) << c.status();
  for (const MetricComparison& m : c->metrics) {
    if (m.metric == "mean_e2el_ms") {
      EXPECT_EQ(m.measured, 1500.0);
    } else if (m.metric == "total_token_throughput") {
      EXPECT_EQ(m.measured, 4000.0);
    } else if (m.metric == "mean_ttft_ms") {
      EXPECT_FALSE(m.measured.has_value());
    }
  }
  // A latency result for a serve prediction, a metric that is not a number, bad JSON lines.
  const std::string latency = testing::WriteFile(dir / "latency.json", R"({"avg_latency": 1.0, "latencies": [1.0]})");
  EXPECT_THAT(std::string(CompareResults(predicted, *ReadSavedResults(latency), latency).status().message()),
              HasSubstr("a vllm bench latency result; this run is vllm bench serve"));
  const std::string text_metric = testing::WriteFile(dir / "t.json", R"({"request_throughput": "fast"})");
  EXPECT_THAT(std::string(CompareResults(predicted, *ReadSavedResults(text_metric), text_metric).status().message()),
              HasSubstr("\"request_throughput\" is not a number"));
  // A measured value below zero is refused, naming the file and the field.
  const std::string negative =
      testing::WriteFile(dir / "n.json", R"({"request_throughput": 2.0, "mean_ttft_ms": -3.5})");
  EXPECT_EQ(std::string(CompareResults(predicted, *ReadSavedResults(negative), negative).status().message()),
            negative + ": \"mean_ttft_ms\" is -3.5; a measured time, rate or count is a finite number, not negative");
  const std::string unknown = testing::WriteFile(dir / "u.json", R"({"hello": 1})");
  EXPECT_THAT(std::string(CompareResults(predicted, *ReadSavedResults(unknown), unknown).status().message()),
              HasSubstr("not a saved result"));
  const std::string bad = testing::WriteFile(dir / "bad.jsonl", "{\"request_throughput\": 1}\n{\"oops\": }\n");
  EXPECT_THAT(std::string(ReadSavedResults(bad).status().message()), HasSubstr(bad + ":2:"));
}

}  // namespace
}  // namespace infergrid::bench
