// Synthetic workloads: arrival processes and length distributions against their defining
// moments, determinism per seed and stream, and every preset against its source trace (the
// recorded statistics always; the trace itself, with a two-sample KS test, when
// ../shared/data is present).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_files.h"
#include "traces/arrival_process.h"
#include "traces/length_distribution.h"
#include "traces/preset_fit.h"
#include "traces/shared_prefix.h"
#include "traces/synthetic_workload.h"
#include "traces/trace_transforms.h"
#include "traces/trace_reader.h"
#include "traces/workload_presets.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;
using testing::TestDir;
using testing::WriteFile;

std::vector<double> Times(ArrivalProcess& process, int n) {
  std::vector<double> t;
  for (int i = 0; i < n; ++i) {
    absl::StatusOr<double> next = process.Next();
    EXPECT_TRUE(next.ok()) << next.status();
    t.push_back(*next);
  }
  return t;
}

// Mean and coefficient of variation of the gaps.
std::pair<double, double> GapMoments(const std::vector<double>& t) {
  double sum = 0, sum_sq = 0;
  for (size_t i = 1; i < t.size(); ++i) {
    const double g = t[i] - t[i - 1];
    EXPECT_GE(g, 0);
    sum += g;
    sum_sq += g * g;
  }
  const double n = static_cast<double>(t.size() - 1);
  const double mean = sum / n;
  return {mean, std::sqrt(sum_sq / n - mean * mean) / mean};
}

TEST(Arrivals, PoissonHasTheRateAndCvOne) {
  auto process = MakePoissonArrivals(4.0, 7);
  ASSERT_TRUE(process.ok());
  const std::vector<double> t = Times(**process, 200000);
  EXPECT_EQ(t[0], 0.0);
  const auto [mean, cv] = GapMoments(t);
  EXPECT_NEAR(mean, 0.25, 0.25 * 0.01);
  EXPECT_NEAR(cv, 1.0, 0.01);
}

TEST(Arrivals, GammaHasTheRateAndTheCv) {
  for (double target_cv : {0.5, 3.0}) {
    auto process = MakeGammaArrivals(10.0, target_cv, 11);
    ASSERT_TRUE(process.ok());
    const auto [mean, cv] = GapMoments(Times(**process, 200000));
    EXPECT_NEAR(mean, 0.1, 0.1 * 0.02) << target_cv;
    EXPECT_NEAR(cv, target_cv, target_cv * 0.03) << target_cv;
  }
  EXPECT_FALSE(MakeGammaArrivals(1.0, 0, 1).ok());
  EXPECT_FALSE(MakePoissonArrivals(-1.0, 1).ok());
}

TEST(Arrivals, ConstantIsEvenlySpacedAndReplacesATablesZeros) {
  absl::StatusOr<std::unique_ptr<ArrivalProcess>> constant = MakeConstantArrivals(4);
  ASSERT_TRUE(constant.ok()) << constant.status();
  const std::vector<double> t = Times(**constant, 5);
  for (int i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(t[static_cast<size_t>(i)], 0.25 * i);
  EXPECT_FALSE(MakeConstantArrivals(0).ok());
  // A length table keeps its rows, in order, and takes the process's times.
  std::vector<Request> rows(3);
  for (int i = 0; i < 3; ++i) rows[static_cast<size_t>(i)].input_tokens = 100 * (i + 1);
  std::unique_ptr<RequestSource> source =
      ReplaceArrivals(std::make_unique<VectorRequestSource>(rows), *MakeConstantArrivals(2));
  Request r;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(*source->Next(&r));
    EXPECT_EQ(r.input_tokens, 100 * (i + 1));
    EXPECT_DOUBLE_EQ(r.arrival_s, 0.5 * i);
    EXPECT_EQ(r.id, i);
  }
  EXPECT_FALSE(*source->Next(&r));
}

TEST(SharedPrefix, OneHashPerWholeSixteenTokensTheSameWithinAGroup) {
  EXPECT_TRUE(SharedPrefixHashes(0, 15).empty());
  const std::vector<uint64_t> a = SharedPrefixHashes(3, 100);
  ASSERT_EQ(a.size(), 6u);  // 96 of the 100 tokens are whole blocks of 16
  EXPECT_EQ(SharedPrefixHashes(3, 1000).size(), 62u);
  for (size_t k = 0; k < a.size(); ++k) EXPECT_EQ(SharedPrefixHashes(3, 1000)[k], a[k]);  // a prefix of a longer one
  const std::vector<uint64_t> b = SharedPrefixHashes(4, 100);
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_NE(a[k], b[k]);
    for (size_t j = 0; j < k; ++j) EXPECT_NE(a[k], a[j]);
  }
}

TEST(Arrivals, PiecewiseFollowsTheSchedule) {
  // Shape 1:3 over two 100 s halves, mean rate 2 per s: 1 per s then 3 per s.
  auto schedule = ParseRateSchedule("100:1,100:3", 2.0);
  ASSERT_TRUE(schedule.ok()) << schedule.status();
  EXPECT_DOUBLE_EQ((*schedule)[0].rate_per_s, 1.0);
  EXPECT_DOUBLE_EQ((*schedule)[1].rate_per_s, 3.0);
  auto process = MakePiecewiseArrivals(*schedule, 3);
  ASSERT_TRUE(process.ok());
  int64_t low = 0, high = 0;
  double t = 0;
  while (t < 200 * 200) {  // 200 cycles
    t = *(*process)->Next();
    (std::fmod(t, 200.0) < 100 ? low : high) += 1;
  }
  EXPECT_NEAR(static_cast<double>(low) / (200 * 100), 1.0, 0.02);
  EXPECT_NEAR(static_cast<double>(high) / (200 * 100), 3.0, 0.06);
  EXPECT_FALSE(ParseRateSchedule("100:0", 1.0).ok());
  EXPECT_FALSE(ParseRateSchedule("100-1", 1.0).ok());
  // A mean of 0 keeps the rates as written; MeanRate weighs them by duration.
  auto as_written = ParseRateSchedule("100:1,300:5", 0);
  ASSERT_TRUE(as_written.ok()) << as_written.status();
  EXPECT_DOUBLE_EQ((*as_written)[1].rate_per_s, 5.0);
  EXPECT_DOUBLE_EQ(MeanRate(*as_written), 4.0);
  EXPECT_DOUBLE_EQ(MeanRate(*schedule), 2.0);
  // A zero-rate night: no arrival falls in it.
  auto night = MakePiecewiseArrivals({{50, 0}, {50, 2}}, 5);
  ASSERT_TRUE(night.ok());
  for (double x : Times(**night, 1000)) EXPECT_GE(std::fmod(x, 100.0), 50.0);
}

TEST(Arrivals, ReplayScalesARealTracesGapsAndWraps) {
  const std::string path = WriteFile(TestDir() / "r.csv",
                                     "arrived_at,num_prefill_tokens,num_decode_tokens\n"
                                     "10,1,1\n11,1,1\n13,1,1\n16,1,1\n");
  // Own rate: 3 gaps over 6 s = 0.5 per s; to 1 per s every gap halves.
  auto replay = MakeReplayArrivals(path, TraceOptions{}, 1.0);
  ASSERT_TRUE(replay.ok()) << replay.status();
  const std::vector<double> t = Times(**replay, 6);
  // The second pass starts one mean gap (2 s, so 1 s scaled) after the last arrival.
  EXPECT_THAT(t, ::testing::ElementsAre(0, 0.5, 1.5, 3, 4, 4.5));
  auto own = MakeReplayArrivals(path, TraceOptions{}, 0);
  ASSERT_TRUE(own.ok());
  EXPECT_THAT(Times(**own, 4), ::testing::ElementsAre(0, 1, 3, 6));
}

TEST(Lengths, MarginalsMatchTheirDefinitions) {
  RandomStream random(1, "test");
  auto sample = [&](const std::string& spec, int n) {
    auto m = ParseLengthMarginal(spec);
    EXPECT_TRUE(m.ok()) << m.status();
    std::vector<int32_t> v;
    for (int i = 0; i < n; ++i) v.push_back((*m)->Sample(random));
    return v;
  };
  for (int32_t x : sample("fixed:512", 100)) EXPECT_EQ(x, 512);
  const std::vector<int32_t> u = sample("uniform:10:20", 110000);
  std::map<int32_t, int> counts;
  for (int32_t x : u) ++counts[x];
  ASSERT_EQ(counts.size(), 11u);
  EXPECT_EQ(counts.begin()->first, 10);
  EXPECT_EQ(counts.rbegin()->first, 20);
  for (const auto& [value, count] : counts) EXPECT_NEAR(count, 10000, 400) << value;
  // Lognormal: the median is exp(mu).
  std::vector<int32_t> ln = sample("lognormal:6:0.8", 100001);
  std::nth_element(ln.begin(), ln.begin() + 50000, ln.end());
  EXPECT_NEAR(ln[50000], std::exp(6.0), std::exp(6.0) * 0.02);
  // Zipf: P(1)/P(2) = 2^s, nothing above MAX.
  const std::vector<int32_t> z = sample("zipf:1.2:1000", 200000);
  const auto ones = std::count(z.begin(), z.end(), 1);
  const auto twos = std::count(z.begin(), z.end(), 2);
  EXPECT_NEAR(static_cast<double>(ones) / static_cast<double>(twos), std::pow(2.0, 1.2), 0.05);
  EXPECT_EQ(*std::max_element(z.begin(), z.end()) <= 1000, true);
  EXPECT_EQ(*std::min_element(z.begin(), z.end()), 1);
  for (const char* bad : {"fixed:0", "uniform:5:4", "lognormal:1:-1", "zipf:0:10", "gauss:1", "fixed:x"}) {
    EXPECT_FALSE(ParseLengthMarginal(bad).ok()) << bad;
  }
}

TEST(Lengths, EmpiricalResamplesPairsOfTheTrace) {
  const std::string path =
      WriteFile(TestDir() / "l.csv", "num_prefill_tokens,num_decode_tokens\n100,1\n200,2\n300,3\n");
  auto sampler = MakeEmpiricalLengths(path, TraceOptions{});
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  RandomStream random(2, "lengths");
  std::map<int32_t, int> seen;
  for (int i = 0; i < 3000; ++i) {
    int32_t in = 0, out = 0;
    (*sampler)->Sample(random, &in, &out);
    EXPECT_EQ(in, 100 * out);  // pairs stay together
    ++seen[in];
  }
  EXPECT_EQ(seen.size(), 3u);
  for (const auto& [value, count] : seen) EXPECT_NEAR(count, 1000, 120);
}

std::vector<Request> Drain(const SyntheticWorkloadSpec& spec) {
  auto source = MakeSyntheticWorkload(spec);
  EXPECT_TRUE(source.ok()) << source.status();
  std::vector<Request> out;
  if (!source.ok()) return out;
  Request r;
  while (*(*source)->Next(&r)) out.push_back(r);
  return out;
}

TEST(Synthetic, SeededStreamsAreReproducibleAndIndependent) {
  SyntheticWorkloadSpec spec;
  spec.num_requests = 500;
  spec.seed = 42;
  const std::vector<Request> a = Drain(spec);
  const std::vector<Request> b = Drain(spec);
  ASSERT_EQ(a.size(), 500u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, static_cast<int64_t>(i));
    EXPECT_EQ(a[i].arrival_s, b[i].arrival_s);
    EXPECT_EQ(a[i].input_tokens, b[i].input_tokens);
    EXPECT_EQ(a[i].output_tokens, b[i].output_tokens);
  }
  // Another arrival process: the same lengths, other times.
  SyntheticWorkloadSpec gamma = spec;
  gamma.arrival = "gamma";
  gamma.cv = 2;
  gamma.rate_per_s = 9;
  const std::vector<Request> g = Drain(gamma);
  int same_times = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].input_tokens, g[i].input_tokens);
    EXPECT_EQ(a[i].output_tokens, g[i].output_tokens);
    same_times += a[i].arrival_s == g[i].arrival_s;
  }
  EXPECT_EQ(same_times, 1);  // only the first, at 0
  // Another seed: other lengths.
  SyntheticWorkloadSpec other = spec;
  other.seed = 43;
  const std::vector<Request> c = Drain(other);
  int same_lengths = 0;
  for (size_t i = 0; i < a.size(); ++i) same_lengths += a[i].input_tokens == c[i].input_tokens;
  EXPECT_LT(same_lengths, 50);
}

TEST(Synthetic, OverridesAndErrors) {
  SyntheticWorkloadSpec spec;
  spec.num_requests = 100;
  spec.input_lengths = "fixed:2048";
  spec.output_lengths = "uniform:1:4";
  for (const Request& r : Drain(spec)) {
    EXPECT_EQ(r.input_tokens, 2048);
    EXPECT_GE(r.output_tokens, 1);
    EXPECT_LE(r.output_tokens, 4);
  }
  spec.input_lengths = "";  // the preset's input, a fixed output
  spec.output_lengths = "fixed:7";
  for (const Request& r : Drain(spec)) EXPECT_EQ(r.output_tokens, 7);

  auto error = [](SyntheticWorkloadSpec s) {
    auto source = MakeSyntheticWorkload(s);
    return source.ok() ? std::string() : std::string(source.status().message());
  };
  SyntheticWorkloadSpec bad;
  bad.preset = "nope";
  EXPECT_THAT(error(bad), HasSubstr("unknown workload preset 'nope': expected one of"));
  bad = {};
  bad.arrival = "weibull";
  EXPECT_THAT(error(bad), HasSubstr("expected poisson, gamma, constant, piecewise or replay"));
  bad = {};
  bad.num_requests = 0;
  EXPECT_THAT(error(bad), HasSubstr("number of requests must be > 0"));
  bad = {};
  bad.rate_per_s = 0;
  EXPECT_THAT(error(bad), HasSubstr("arrival rate must be > 0"));
  bad = {};
  bad.arrival = "piecewise";
  EXPECT_THAT(error(bad), HasSubstr("need a rate schedule"));
}

// Two-sample Kolmogorov-Smirnov statistic of integer-valued samples (ties handled by stepping
// over distinct values).
double KsStatistic(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  size_t i = 0, j = 0;
  double d = 0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] == x) ++i;
    while (j < b.size() && b[j] == x) ++j;
    d = std::max(d, std::abs(static_cast<double>(i) / static_cast<double>(a.size()) -
                             static_cast<double>(j) / static_cast<double>(b.size())));
  }
  return d;
}

struct PresetCase {
  std::string name;
  std::string source;
};

const std::vector<PresetCase>& PresetCases() {
  static const auto* cases = new std::vector<PresetCase>{
      {"azure-conv", "AzureLLMInferenceTrace_conv.csv"},
      {"azure-code", "AzureLLMInferenceTrace_code.csv"},
      {"mooncake-conv", "conversation_trace.jsonl"},
      {"sharegpt", "sharegpt_8k_filtered_stats_llama2_tokenizer.csv"},
      {"arxiv", "arxiv_summarization_stats_llama2_tokenizer_filtered_v2.csv"},
  };
  return *cases;
}

// 200,000 requests of a preset, as (input, output) columns.
std::pair<std::vector<double>, std::vector<double>> PresetSample(const std::string& name) {
  SyntheticWorkloadSpec spec;
  spec.preset = name;
  spec.num_requests = 200000;
  spec.seed = 1;
  std::pair<std::vector<double>, std::vector<double>> columns;
  for (const Request& r : Drain(spec)) {
    columns.first.push_back(r.input_tokens);
    columns.second.push_back(r.output_tokens);
  }
  return columns;
}

void ExpectWithin5Percent(const LengthSummary& fit, const LengthSummary& source, const std::string& what) {
  for (auto [label, a, b] : {std::tuple{"mean", fit.mean(), source.mean()}, std::tuple{"p50", fit.p50(), source.p50()},
                             std::tuple{"p90", fit.p90(), source.p90()}, std::tuple{"p99", fit.p99(), source.p99()}}) {
    EXPECT_NEAR(a, b, 0.05 * b) << what << " " << label;
    std::cout << "  " << what << " " << label << ": preset " << a << ", source " << b << " ("
              << (b != 0 ? 100 * (a - b) / b : 0) << "%)\n";
  }
}

TEST(Presets, EveryNamedPresetIsCompiledIn) {
  std::vector<std::string> names = WorkloadPresetNames();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"arxiv", "azure-code", "azure-conv", "mooncake-conv", "sharegpt"}));
}

TEST(Presets, MatchTheRecordedStatisticsOfTheirSources) {
  for (const PresetCase& c : PresetCases()) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<WorkloadPreset> preset = ResolveWorkloadPreset(c.name);
    ASSERT_TRUE(preset.ok()) << preset.status();
    EXPECT_EQ(preset->source(), c.source);
    auto [input, output] = PresetSample(c.name);
    std::cout << c.name << ":\n";
    ExpectWithin5Percent(SummarizeLengths(input), preset->source_input(), "input");
    ExpectWithin5Percent(SummarizeLengths(output), preset->source_output(), "output");
    EXPECT_NEAR(SpearmanCorrelation(input, output), preset->spearman(), 0.03);
  }
}

TEST(Presets, PassATwoSampleKsTestAgainstTheirSourceTraces) {
  const std::string dir = std::string(INFERGRID_SOURCE_DIR) + "/../shared/data/traces/";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "../shared/data is not here";
  for (const PresetCase& c : PresetCases()) {
    SCOPED_TRACE(c.name);
    auto source = OpenTrace(dir + c.source, TraceOptions{});
    ASSERT_TRUE(source.ok()) << source.status();
    std::vector<double> real_in, real_out;
    Request r;
    while (*(*source)->Next(&r)) {
      real_in.push_back(r.input_tokens);
      real_out.push_back(r.output_tokens);
    }
    absl::StatusOr<WorkloadPreset> preset = ResolveWorkloadPreset(c.name);
    ASSERT_TRUE(preset.ok());
    // The recorded statistics are the trace's.
    const LengthSummary in = SummarizeLengths(real_in);
    EXPECT_DOUBLE_EQ(in.mean(), preset->source_input().mean());
    EXPECT_EQ(in.p99(), preset->source_input().p99());
    EXPECT_EQ(static_cast<int64_t>(real_in.size()), preset->source_rows());
    auto [fit_in, fit_out] = PresetSample(c.name);
    // 5% level: reject when D > 1.358 sqrt((n + m) / (n m)).
    const auto n = static_cast<double>(real_in.size());
    const auto m = static_cast<double>(fit_in.size());
    const double critical = 1.358 * std::sqrt((n + m) / (n * m));
    const double d_in = KsStatistic(real_in, fit_in);
    const double d_out = KsStatistic(real_out, fit_out);
    std::cout << c.name << ": KS D input " << d_in << ", output " << d_out << " (critical " << critical << ")\n";
    EXPECT_LT(d_in, critical);
    EXPECT_LT(d_out, critical);
  }
}

}  // namespace
}  // namespace infergrid
