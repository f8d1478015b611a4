// The HTML report's parts (sim/app/report) and `infergrid report` / `simulate --report` as users run
// them: CSV columns and their errors, time bins, the memory waterfall's arithmetic, the sweep
// section's means and Pareto rule, the page's escaping and inlined assets, and the commands'
// bad-input rules (one line, exit 1 or 2, no partial file). The browser check of the drawn page is report_browser_test.cc.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/util/json_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/app/plan/plan_result.pb.h"
#include "sim/app/report/assets.h"
#include "sim/app/report/csv_columns.h"
#include "sim/app/report/html_page.h"
#include "sim/app/report/iteration_bins.h"
#include "sim/app/report/plan_section.h"
#include "sim/app/report/summary_charts.h"
#include "sim/app/report/sweep_section.h"
#include "sim/app/report/time_bins.h"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ReadAll;
using testing::RunInfergrid;

// A small deterministic run for the command tests.
const char kSmallRun[] = "simulate --max-requests=60 --rate=6 --record-wall-time=false --quiet";

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

TEST(ReportCsv, ReadsNamedColumnsInAnyOrder) {
  const std::string path = testing::WriteFile(testing::TestDir() / "t.csv", "b,a,c\n1,x,2.5\n,y,3\n");
  std::vector<double> b, c;
  std::vector<std::string> a;
  absl::Status s = report::ReadCsvColumns(path, {{"c", "b"}, {"a"}}, [&](const report::CsvRow& row) {
    c.push_back(row.numbers[0]);
    b.push_back(row.numbers[1]);
    a.emplace_back(row.texts[0]);
  });
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(c, (std::vector<double>{2.5, 3}));
  EXPECT_EQ(b[0], 1);
  EXPECT_TRUE(std::isnan(b[1]));  // empty: a time that did not happen
  EXPECT_EQ(a, (std::vector<std::string>{"x", "y"}));
}

TEST(ReportCsv, QuotedFieldsAreOneField) {
  const std::string path = testing::WriteFile(testing::TestDir() / "q.csv", "id,n\n\"a,b\",1\n\"say \"\"hi\"\"\",2\n");
  std::vector<std::string> ids;
  std::vector<double> n;
  absl::Status s = report::ReadCsvColumns(path, {{"n"}, {"id"}}, [&](const report::CsvRow& row) {
    ids.emplace_back(row.texts[0]);
    n.push_back(row.numbers[0]);
  });
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(ids, (std::vector<std::string>{"a,b", "say \"hi\""}));
  EXPECT_EQ(n, (std::vector<double>{1, 2}));
}

TEST(ReportCsv, ErrorsNameFileLineAndColumn) {
  const fs::path dir = testing::TestDir();
  const auto error = [&](const std::string& text, const report::CsvColumnNames& names) {
    const std::string path = testing::WriteFile(dir / "t.csv", text);
    return std::string(report::ReadCsvColumns(path, names, [](const report::CsvRow&) {}).message());
  };
  EXPECT_THAT(error("a,b\n1,2\n", {{"z"}, {}}), HasSubstr("t.csv:1: no column 'z'"));
  EXPECT_THAT(error("a,b\n1,2\n3\n", {{"a"}, {}}), HasSubstr("t.csv:3: 1 fields, the header has 2"));
  EXPECT_THAT(error("a,b\n1,2\nx1,2\n", {{"a"}, {}}), HasSubstr("t.csv:3: column 'a': 'x1' is not a number"));
  EXPECT_THAT(error("a,b\n\"1,2\n", {{"a"}, {}}), HasSubstr("t.csv:2:1: unterminated quoted field"));
  EXPECT_THAT(error("", {{"a"}, {}}), HasSubstr("empty"));
  EXPECT_THAT(
      std::string(report::ReadCsvColumns((dir / "missing.csv").string(), {}, [](const report::CsvRow&) {}).message()),
      HasSubstr("missing.csv: cannot open"));
  // A requests.csv that is a FIFO or a device would block or never end: refused by what it is.
  const std::string fifo = (dir / "fifo.csv").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& special : {fifo, std::string("/dev/zero")}) {
    EXPECT_THAT(std::string(report::ReadCsvColumns(special, {{"a"}, {}}, [](const report::CsvRow&) {}).message()),
                HasSubstr(special + ": not a regular file"));
  }
  EXPECT_THAT(std::string(report::ReadCsvColumns(dir.string(), {{"a"}, {}}, [](const report::CsvRow&) {}).message()),
              HasSubstr(": is a folder, not a file"));
}

TEST(ReportBins, TimesFallInEqualBinsClampedAtTheEnds) {
  const report::TimeAxis axis(10, 4);
  EXPECT_EQ(axis.width_s(), 2.5);
  EXPECT_EQ(axis.BinOf(0), 0);
  EXPECT_EQ(axis.BinOf(2.49), 0);
  EXPECT_EQ(axis.BinOf(2.5), 1);
  EXPECT_EQ(axis.BinOf(10), 3);  // the last arrival's bin
  EXPECT_EQ(axis.BinOf(99), 3);
  EXPECT_EQ(axis.BinOf(-1), 0);
  EXPECT_THAT(report::BinRule(axis, "x"), HasSubstr("2.500 s (the run cut into 4 equal bins)"));
}

TEST(ReportBins, IterationsReduceToPerBinStatistics) {
  const std::string header =
      "replica,iteration,start_s,end_s,compute_s,communication_s,host_s,host_hidden_s,batch_size,prefill_seqs,"
      "prefill_tokens,decode_seqs,padding_seqs,kv_blocks_used,kv_fraction,waiting,running,swapped,preempted,"
      "swap_out_blocks,swap_in_blocks,binding,hbm_fraction,compute_fraction\n";
  const std::string path =
      testing::WriteFile(testing::TestDir() / "iterations.csv",
                         header +
                             "0,0,0.0,1.0,1,0,0.25,0,4,1,100,3,0,10,0.1,2,4,0,0,0,0,compute,0.2,0.8\n"
                             "0,1,1.0,2.0,1,0,0.25,0.5,6,0,0,6,0,12,0.3,0,6,0,1,0,0,hbm,0.9,0.1\n"
                             "0,2,3.0,4.0,1,0,0,0,8,0,0,8,0,14,0.5,0,8,0,0,0,0,hbm,0.8,0.1\n");
  absl::StatusOr<report::IterationBins> bins = report::IterationBins::Read(path, 4, 2);
  ASSERT_TRUE(bins.ok()) << bins.status();
  ASSERT_EQ(bins->bins().size(), 2u);
  const report::IterationBin& first = bins->bins()[0];
  EXPECT_EQ(first.batch_size.count, 2);
  EXPECT_EQ(first.batch_size.min, 4);
  EXPECT_EQ(first.batch_size.max, 6);
  EXPECT_EQ(first.batch_size.mean(), 5);
  EXPECT_EQ(first.new_tokens.max, 103);
  EXPECT_EQ(first.preempted, 1);
  EXPECT_DOUBLE_EQ(first.busy_s, 2);
  EXPECT_DOUBLE_EQ(first.hbm_fraction_s / first.busy_s, 0.55);  // duration-weighted
  EXPECT_DOUBLE_EQ(first.host_s, 0.5);
  EXPECT_EQ(bins->resources(), (std::vector<std::string>{"compute", "hbm"}));
  EXPECT_EQ(first.busy_by_resource_s, (std::vector<double>{1, 1}));
  EXPECT_EQ(bins->bins()[1].busy_by_resource_s, (std::vector<double>{0, 1}));
  EXPECT_EQ(bins->iterations(), 3);
  EXPECT_EQ(bins->preemptions(), 1);
}

TEST(ReportBins, AnEmptyRequiredFieldIsAnError) {
  const std::string path = testing::WriteFile(
      testing::TestDir() / "iterations.csv",
      "start_s,end_s,host_s,host_hidden_s,batch_size,prefill_tokens,decode_seqs,kv_fraction,waiting,running,"
      "swapped,preempted,hbm_fraction,compute_fraction,binding\n0,1,0,0,4,0,4,,0,4,0,0,0.5,0.1,hbm\n");
  absl::StatusOr<report::IterationBins> bins = report::IterationBins::Read(path, 1, 1);
  ASSERT_FALSE(bins.ok());
  EXPECT_THAT(std::string(bins.status().message()), HasSubstr("iterations.csv:2: an empty field"));
}

SimulationSummary VllmPlanSummary(bool graphs_subtracted) {
  SimulationSummary s;
  MemorySummary& m = *s.mutable_memory();
  const double gib = 1073741824.0;
  m.set_total_bytes_per_gpu(80 * gib);
  m.set_budget_bytes_per_gpu(72 * gib);
  m.set_weight_bytes_per_gpu(15 * gib);
  m.set_activation_peak_bytes_per_gpu(2 * gib);
  m.set_non_torch_bytes_per_gpu(1 * gib);
  m.set_cuda_graph_bytes_per_gpu(0.5 * gib);
  m.set_kv_cache_bytes_per_gpu((graphs_subtracted ? 53.5 : 54) * gib);
  return s;
}

// The waterfall's bars as (step, start, end) in GiB.
std::vector<std::tuple<std::string, double, double>> Steps(const report::Chart& chart) {
  std::vector<std::tuple<std::string, double, double>> steps;
  for (const auto& row : chart.spec["layer"][0]["data"]["values"]) {
    steps.emplace_back(row["step"], row["start"], row["end"]);
  }
  return steps;
}

TEST(ReportMemory, WaterfallStepsFromTotalToKv) {
  std::optional<report::Chart> chart = report::MemoryWaterfallChart(VllmPlanSummary(true));
  ASSERT_TRUE(chart.has_value());
  using Step = std::tuple<std::string, double, double>;
  EXPECT_EQ(Steps(*chart), (std::vector<Step>{{"device total", 0, 80},
                                              {"outside the budget", 80, 72},
                                              {"budget", 0, 72},
                                              {"weights", 72, 57},
                                              {"activation peak", 57, 55},
                                              {"non-torch", 55, 54},
                                              {"CUDA graphs", 54, 53.5},
                                              {"KV cache", 0, 53.5}}));
}

TEST(ReportMemory, GraphsNotSubtractedAreDrawnBesideTheSteps) {
  std::optional<report::Chart> chart = report::MemoryWaterfallChart(VllmPlanSummary(false));
  ASSERT_TRUE(chart.has_value());
  const auto steps = Steps(*chart);
  EXPECT_EQ(std::get<0>(steps[6]), "CUDA graphs (not subtracted)");
  EXPECT_EQ(std::get<1>(steps[6]), 0);
  EXPECT_EQ(std::get<0>(steps[7]), "KV cache");
  EXPECT_EQ(std::get<2>(steps[7]), 54);
  EXPECT_THAT(chart->caption, HasSubstr("does not subtract its CUDA-graph memory"));
}

TEST(ReportMemory, WhatTheTermsLeaveIsOneStepNeverHidden) {
  SimulationSummary s = VllmPlanSummary(true);
  s.mutable_memory()->set_budget_bytes_per_gpu(0.5 * 53.5 * 1073741824.0);  // a KV pool, TensorRT-LLM style
  s.mutable_memory()->set_kv_cache_bytes_per_gpu(0.5 * 61.5 * 1073741824.0);
  std::optional<report::Chart> chart = report::MemoryWaterfallChart(s);
  ASSERT_TRUE(chart.has_value());
  const auto steps = Steps(*chart);
  ASSERT_EQ(steps.size(), 7u);  // no budget bars: the budget is not a share of the device
  EXPECT_EQ(std::get<0>(steps[5]), "left free by the rule");
  EXPECT_DOUBLE_EQ(std::get<2>(steps[5]), std::get<2>(steps[6]));  // lands on the KV cache
}

TEST(ReportMemory, OldSummariesWithoutThePlanTermsDrawNoWaterfall) {
  EXPECT_FALSE(report::MemoryWaterfallChart(SimulationSummary()).has_value());
}

// A sweep run at `point` (settings rate and tensor_parallel_size) with the given p99 TTFT.
SweepResult SweepRunResult(int point, double rate, int tp, double ttft_p99_s, const char* status = "ok") {
  SweepResult r;
  r.mutable_run()->set_point(point);
  SweepSetting* s = r.mutable_run()->add_settings();
  s->set_flag("rate");
  s->set_value(absl::StrCat(rate));
  s = r.mutable_run()->add_settings();
  s->set_flag("tensor_parallel_size");
  s->set_value(absl::StrCat(tp));
  r.set_status(status);
  r.mutable_summary()->mutable_config()->set_gpu("g");
  r.mutable_summary()->mutable_config()->set_tensor_parallel_size(tp);
  r.mutable_summary()->mutable_config()->set_num_replicas(1);
  r.mutable_summary()->mutable_ttft()->set_p99(ttft_p99_s);
  return r;
}

TEST(ReportSweep, PointsAreMeansOfOkReplicationsAndTheFrontIsTheNonDominated) {
  report::SweepInput sweep;
  sweep.manifest.add_axes("rate");
  sweep.manifest.add_axes("tensor_parallel_size");
  // (cost in GPUs, p99 TTFT), a front per rate. Rate 1: (1, 10), (2, 3), (3, 4), (3, 3): (3, 4)
  // is dominated by (2, 3) and (3, 3) by (2, 3) too (as fast, dearer); (1, 10) is the cheapest.
  // Rate 2: (1, 5), (2, 3), (2, 3), (4, 1): all on the front (two equal points are both on it).
  // Pooled, rate 2's (1, 5) would dominate rate 1's (1, 10): the fronts are per load.
  sweep.results = {SweepRunResult(0, 1, 1, 8), SweepRunResult(0, 1, 1, 12), SweepRunResult(0, 1, 1, 99, "failed"),
                   SweepRunResult(1, 2, 1, 5), SweepRunResult(2, 1, 2, 3),  SweepRunResult(3, 2, 2, 3),
                   SweepRunResult(4, 1, 3, 4), SweepRunResult(5, 2, 4, 1),  SweepRunResult(6, 2, 2, 3),
                   SweepRunResult(7, 1, 3, 3)};
  std::string axis;
  const std::vector<report::SweepPoint> points = report::SweepPoints(sweep, {{"g", 2.0}}, &axis);
  EXPECT_EQ(axis, "rate");
  ASSERT_EQ(points.size(), 8u);
  EXPECT_EQ(points[0].replications_ok, 2);  // the failed run is left out
  EXPECT_DOUBLE_EQ(points[0].ttft_p99_s, 10);  // mean of 8 and 12
  EXPECT_EQ(points[0].configuration, "tensor_parallel_size=1");
  EXPECT_EQ(*points[0].x, 1);
  EXPECT_DOUBLE_EQ(points[5].usd_per_hour, 8);  // 4 GPUs x 2 USD
  std::vector<bool> front;
  for (const report::SweepPoint& p : points) front.push_back(p.on_front);
  EXPECT_EQ(front, (std::vector<bool>{true, true, true, true, false, true, true, false}));
  // No price: no cost, no front, no chart.
  const std::vector<report::SweepPoint> unpriced = report::SweepPoints(sweep, {}, &axis);
  EXPECT_FALSE(report::ParetoChart(unpriced, "rate").has_value());
  EXPECT_EQ(report::SweepAxisCharts(points, "rate").size(), 3u);
  EXPECT_TRUE(report::SweepAxisCharts(points, "").empty());
}

TEST(ReportPage, EscapesTextAndKeepsScriptsClosed) {
  report::HtmlPage page("a <b> & \"c\"");
  page.AddText("<script>alert(1)</script>");
  report::Chart chart{"t", "c", {{"data", {{"values", {{{"label", "</script><b>"}}}}}}}};
  page.AddChart(chart);
  const std::string html = page.Render();
  EXPECT_THAT(html, HasSubstr("<title>a &lt;b&gt; &amp; &quot;c&quot;</title>"));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_THAT(html, HasSubstr("\\u003c/script>\\u003cb>"));  // the spec's '<' cannot close its element
  EXPECT_THAT(html, HasSubstr("data-charts-expected=\"1\""));
  EXPECT_EQ(Count(html, "<figure class=\"chart\""), 1u);
  // No resource comes from the network: every script is inline.
  EXPECT_EQ(Count(html, "<script src"), 0u);
  EXPECT_EQ(Count(html, "<link"), 0u);
}

TEST(ReportPage, HeadingsGetUniqueAnchorsAndContents) {
  report::HtmlPage page("t");
  page.AddHeading(2, "Run a: over time");
  page.AddHeading(2, "Run a: over time");
  const std::string html = page.Render();
  EXPECT_THAT(html, HasSubstr("<h2 id=\"run-a-over-time\">"));
  EXPECT_THAT(html, HasSubstr("<h2 id=\"run-a-over-time-2\">"));
  EXPECT_THAT(html, HasSubstr("<a href=\"#run-a-over-time-2\">"));
}

TEST(ReportAssets, BundlesAreCompiledInWithTheirLicenses) {
  const report::PageAssets& a = report::Assets();
  EXPECT_GT(a.vega.size(), 100000u);
  EXPECT_GT(a.vega_lite.size(), 100000u);
  EXPECT_GT(a.vega_embed.size(), 10000u);
  for (absl::string_view code : {a.vega, a.vega_lite, a.vega_embed, a.error_hook, a.render_charts}) {
    // Inlined into <script>: "</script" would end the element early.
    EXPECT_FALSE(absl::StrContains(absl::AsciiStrToLower(code), "</script"));
  }
  EXPECT_THAT(report::ChartLibraryVersions(),
              ::testing::MatchesRegex("vega 5[.0-9]+, vega-embed [.0-9]+, vega-lite [.0-9]+"));
  EXPECT_THAT(std::string(a.licenses), HasSubstr("University of Washington Interactive Data Lab"));
  // The committed notice file is the one the build generated from the installed packages.
  EXPECT_EQ(std::string(a.licenses), ReadAll(testing::SourcePath("sim/app/report/web/THIRD_PARTY_LICENSES.txt")))
      << "regenerate: cp <build>/sim/app/report/web/THIRD_PARTY_LICENSES.txt sim/app/report/web/";
}

class ReportCommand : public ::testing::Test {
 protected:
  // One run folder per test binary process (the command tests share it).
  static const fs::path& RunFolder() {
    static const fs::path* dir = [] {
      auto* d = new fs::path(fs::path(::testing::TempDir()) / absl::StrCat("report_run.", getpid()));
      fs::remove_all(*d);
      const testing::CommandResult r = RunInfergrid(absl::StrCat(kSmallRun, " --out=", d->string()));
      EXPECT_EQ(r.exit_code, 0) << r.err;
      return d;
    }();
    return *dir;
  }
};

TEST_F(ReportCommand, WritesOnePageFromARunFolder) {
  const fs::path page = testing::TestDir() / "r.html";
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("report ", RunFolder().string(), " --out=", page.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("wrote " + page.string()));
  EXPECT_EQ(r.err, "");
  const std::string html = ReadAll(page);
  EXPECT_EQ(Count(html, "<figure class=\"chart\""), 13u);
  EXPECT_THAT(html, HasSubstr("data-charts-expected=\"13\""));
  EXPECT_THAT(html, HasSubstr("TTFT distribution"));
  EXPECT_THAT(html, HasSubstr("Memory plan"));
  EXPECT_LT(html.size(), 2u << 20);
  EXPECT_EQ(std::count_if(fs::directory_iterator(page.parent_path()), fs::directory_iterator(),
                          [](const fs::directory_entry&) { return true; }),
            1);  // no temporary left behind
}

TEST_F(ReportCommand, SeveralRunsAreOverlaidAndDifferenced) {
  const fs::path dir = testing::TestDir();
  const fs::path other = dir / "sarathi";
  ASSERT_EQ(RunInfergrid(absl::StrCat(kSmallRun, " --scheduler=sarathi --out=", other.string())).exit_code, 0);
  const fs::path page = dir / "two.html";
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("report ", RunFolder().string(), " ", other.string(), " --out=", page.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = ReadAll(page);
  EXPECT_EQ(Count(html, "<figure class=\"chart\""), 4u + 2 * 9);
  EXPECT_THAT(html, HasSubstr("Differences"));
  EXPECT_THAT(html, HasSubstr("sarathi − "));
}

TEST_F(ReportCommand, FoldersMissingTheirTablesSayWhatIsLeftOut) {
  const fs::path dir = testing::TestDir();
  const fs::path run = dir / "summary-only";
  ASSERT_EQ(RunInfergrid(absl::StrCat(kSmallRun, " --outputs=summary --out=", run.string())).exit_code, 0);
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("report ", run.string(), " --out=", (dir / "p.html").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = ReadAll(dir / "p.html");
  EXPECT_THAT(html, HasSubstr("has no requests.csv"));
  EXPECT_THAT(html, HasSubstr("has no iterations.csv"));
  EXPECT_THAT(html, HasSubstr("drawn through summary.json&#39;s percentiles"));
  EXPECT_EQ(Count(html, "<figure class=\"chart\""), 6u);  // 4 CDFs, binding, memory
}

TEST_F(ReportCommand, ReadsACompareFolder) {
  const fs::path dir = testing::TestDir();
  const testing::CommandResult c = RunInfergrid(absl::StrCat(
      "compare --max-requests=40 --rate=6 --a=--scheduler=vllm --b=--scheduler=sarathi --replications=2 --quiet "
      "--record-wall-time=false --out=",
      (dir / "cmp").string()));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("report ", (dir / "cmp").string(), " --out=", (dir / "c.html").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = ReadAll(dir / "c.html");
  EXPECT_THAT(html, HasSubstr("Comparison: cmp"));
  EXPECT_THAT(html, HasSubstr("95% CI of B − A"));
  EXPECT_EQ(Count(html, "<figure class=\"chart\""), 2u);
}

// The chart specs the page inlines.
nlohmann::json PageSpecs(const std::string& html) {
  const std::string open = "id=\"chart-specs\">";
  const size_t at = html.find(open);
  if (at == std::string::npos) return nullptr;
  const size_t start = at + open.size();
  return nlohmann::json::parse(html.substr(start, html.find("</script>", start) - start));
}

// 2 rates x 2 tensor-parallel sizes x 2 replications: 8 runs of 30 requests.
constexpr char kSweepSpec[] = R"(base: "--max-requests=30"
base: "--record-wall-time=false"
grid { flag: "rate" values: ["4", "16"] }
grid { flag: "tensor-parallel-size" values: ["1", "2"] }
replications: 2
)";

TEST_F(ReportCommand, ReadsASweepFolder) {
  const fs::path dir = testing::TestDir();
  const std::string spec = testing::WriteFile(dir / "sweep.textproto", kSweepSpec);
  const testing::CommandResult s =
      RunInfergrid(absl::StrCat("sweep --quiet --jobs=2 --spec=", spec, " --out=", (dir / "sw").string()));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("report ", (dir / "sw").string(), " --out=", (dir / "s.html").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = ReadAll(dir / "s.html");
  EXPECT_THAT(html, HasSubstr("Sweep: sw"));
  EXPECT_THAT(
      html, HasSubstr("4 points x 2 replications over rate, tensor_parallel_size; 8 of 8 runs have results, 0 failed"));
  EXPECT_EQ(Count(html, "<figure class=\"chart\""), 4u);
  const nlohmann::json specs = PageSpecs(html);
  ASSERT_EQ(specs.size(), 4u);

  // The expected means, from results.jsonl: p99 TTFT (ms) by (tensor_parallel_size, rate).
  std::map<std::pair<int, double>, std::vector<double>> ttft;
  for (absl::string_view line : absl::StrSplit(ReadAll(dir / "sw" / "results.jsonl"), '\n', absl::SkipEmpty())) {
    SweepResult result;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(std::string(line), &result).ok());
    const SimulationConfig& c = result.summary().config();
    ttft[{c.tensor_parallel_size(), c.rate()}].push_back(result.summary().ttft().p99() * 1e3);
  }
  ASSERT_EQ(ttft.size(), 4u);
  const auto mean = [&](int tp, double rate) {
    const std::vector<double>& v = ttft.at({tp, rate});
    EXPECT_EQ(v.size(), 2u);
    return (v[0] + v[1]) / 2;
  };

  // p99 TTFT against rate: one line per tensor-parallel size, each through both rates.
  const nlohmann::json& ttft_chart = specs[0]["layer"][0];
  EXPECT_EQ(ttft_chart["encoding"]["x"]["title"], "request rate (requests/s)");
  EXPECT_EQ(ttft_chart["encoding"]["color"]["scale"]["domain"],
            nlohmann::json({"tensor_parallel_size=1", "tensor_parallel_size=2"}));
  ASSERT_EQ(ttft_chart["data"]["values"].size(), 4u);
  for (const nlohmann::json& row : ttft_chart["data"]["values"]) {
    const int tp = row["configuration"] == "tensor_parallel_size=1" ? 1 : 2;
    EXPECT_NEAR(row["value"].get<double>(), mean(tp, row["x"].get<double>()), 1e-3 * row["value"].get<double>());
  }
  EXPECT_EQ(specs[1]["layer"][0]["encoding"]["y"]["title"], "p99 TPOT (ms, log scale)");
  EXPECT_EQ(specs[2]["layer"][0]["data"]["values"].size(), 4u);

  // Cost against p99 TTFT: every point marked; each rate's front is exactly its non-dominated
  // points, joined in order of cost.
  const nlohmann::json& front = specs[3]["layer"][0]["data"]["values"];
  const nlohmann::json& marked = specs[3]["layer"][1]["data"]["values"];
  EXPECT_EQ(specs[3]["layer"][1]["encoding"]["x"]["title"], "cost (USD per hour: GPUs x price per GPU-hour)");
  ASSERT_EQ(marked.size(), 4u);
  std::set<double> costs;
  std::vector<std::tuple<double, double, std::string>> expected_front;
  std::set<std::string> groups;
  for (const nlohmann::json& p : marked) {
    const double usd = p["usd_per_hour"], ms = p["ttft_p99_ms"];
    costs.insert(usd);
    groups.insert(p["group"].get<std::string>());
    bool dominated = false;
    for (const nlohmann::json& q : marked) {
      const double qusd = q["usd_per_hour"], qms = q["ttft_p99_ms"];
      dominated |= q["group"] == p["group"] && qusd <= usd && qms <= ms && (qusd < usd || qms < ms);
    }
    EXPECT_EQ(p["front"], dominated ? "dominated" : "on the front") << p;
    if (!dominated) expected_front.push_back({usd, ms, p["group"].get<std::string>()});
  }
  EXPECT_EQ(groups, (std::set<std::string>{"rate=4", "rate=16"}));
  ASSERT_EQ(costs.size(), 2u);  // one and two GPUs
  EXPECT_NEAR(*std::next(costs.begin()), 2 * *costs.begin(), 1e-3);
  EXPECT_GT(*costs.begin(), 0);
  std::sort(expected_front.begin(), expected_front.end());
  ASSERT_EQ(front.size(), expected_front.size());
  for (size_t i = 0; i < front.size(); ++i) {
    EXPECT_EQ(front[i]["usd_per_hour"].get<double>(), std::get<0>(expected_front[i]));
    EXPECT_EQ(front[i]["ttft_p99_ms"].get<double>(), std::get<1>(expected_front[i]));
    EXPECT_EQ(front[i]["group"], std::get<2>(expected_front[i]));
  }

  // A results.jsonl line that does not parse names its line; no results.jsonl is an error too.
  const fs::path broken = dir / "broken-sweep";
  fs::create_directories(broken);
  fs::copy(dir / "sw" / "sweep.json", broken / "sweep.json");
  testing::ExpectOneLineError({absl::StrCat("report ", broken.string(), " --out=", (dir / "b.html").string()), 1,
                               "a sweep folder with no results.jsonl"});
  const std::string results = ReadAll(dir / "sw" / "results.jsonl");
  testing::WriteFile(broken / "results.jsonl", results.substr(0, results.find('\n') + 1) + "{\"run\": 3}\n");
  testing::ExpectOneLineError({absl::StrCat("report ", broken.string(), " --out=", (dir / "b.html").string()), 1,
                               "results.jsonl:2: not a sweep result"});
  EXPECT_FALSE(fs::exists(dir / "b.html"));
}

TEST_F(ReportCommand, BadInputIsOneLineAndNoPage) {
  const fs::path dir = testing::TestDir();
  const std::string page = (dir / "out" / "p.html").string();
  fs::create_directories(dir / "empty");
  const fs::path broken = dir / "broken";
  fs::create_directories(broken);
  fs::copy(RunFolder() / "summary.json", broken / "summary.json");
  testing::WriteFile(broken / "iterations.csv", ReadAll(RunFolder() / "iterations.csv") + "1,2,oops\n");
  const fs::path not_json = dir / "not-json";
  testing::WriteFile(not_json / "summary.json", "{\"ttft\": ");
  // What simulate never writes: a requests.csv cut at a row boundary, a time of -1e308, a
  // negative count in summary.json.
  const std::string summary = ReadAll(RunFolder() / "summary.json");
  const std::string requests = ReadAll(RunFolder() / "requests.csv");
  const fs::path cut = dir / "cut";
  testing::WriteFile(cut / "summary.json", summary);
  testing::WriteFile(cut / "requests.csv", requests.substr(0, requests.find('\n', requests.size() / 2) + 1));
  const fs::path huge = dir / "huge";
  testing::WriteFile(huge / "summary.json", summary);
  std::string edited = requests;
  const size_t second_row = edited.find('\n', edited.find('\n') + 1) + 1;
  const size_t arrival = edited.find(",finished,", second_row);
  ASSERT_NE(arrival, std::string::npos);
  const size_t value = arrival + std::string(",finished,").size();
  edited.replace(value, edited.find(',', value) - value, "-1e308");
  testing::WriteFile(huge / "requests.csv", edited);
  const fs::path negative = dir / "negative";
  std::string counts = summary;
  const size_t completed = counts.find("\"completed\": ");
  ASSERT_NE(completed, std::string::npos);
  counts.insert(completed + std::string("\"completed\": ").size(), "-");
  testing::WriteFile(negative / "summary.json", counts);
  const std::vector<testing::CliErrorCase> cases = {
      {absl::StrCat("report ", (dir / "nope").string(), " --out=", page), 1, "nope: no such folder"},
      {absl::StrCat("report ", (dir / "empty").string(), " --out=", page), 1,
       "no summary.json, comparison.json, sweep.json or plan.json"},
      {absl::StrCat("report ", broken.string(), " --out=", page), 1, "iterations.csv:"},
      {absl::StrCat("report ", not_json.string(), " --out=", page), 1, "summary.json:1:10: invalid JSON: "},
      {absl::StrCat("report ", cut.string(), " --out=", page), 1, "rows, but summary.json counts"},
      {absl::StrCat("report ", huge.string(), " --out=", page), 1, "a time outside [0, 1e15] s (arrival_s -1e+308"},
      {absl::StrCat("report ", negative.string(), " --out=", page), 1, "summary.json: completed is -"},
      {absl::StrCat("report ", RunFolder().string()), 2, "report needs --out=FILE.html"},
      {absl::StrCat("report --out=", page), 2, "report takes one or more folders"},
      {absl::StrCat("report ", RunFolder().string(), " --out=", dir.string()), 2, "names a folder"},
      {absl::StrCat("report ", RunFolder().string(), " --out=", page, " --rate=3"), 2, "unknown flag --rate"},
  };
  for (const testing::CliErrorCase& c : cases) testing::ExpectOneLineError(c);
  EXPECT_FALSE(fs::exists(dir / "out"));
}

// An iterations.csv cut short is refused, not drawn as a fraction of the run: cut at a row
// boundary (fewer rows than summary.json counts), or inside its last number (no newline).
TEST_F(ReportCommand, TablesCutShortAreRefused) {
  const fs::path dir = testing::TestDir();
  const std::string page = (dir / "p.html").string();
  const std::string iterations = ReadAll(RunFolder() / "iterations.csv");
  const fs::path rows = dir / "rows";
  fs::create_directories(rows);
  fs::copy(RunFolder() / "summary.json", rows / "summary.json");
  testing::WriteFile(rows / "iterations.csv", iterations.substr(0, iterations.find('\n', iterations.size() / 3) + 1));
  const fs::path digits = dir / "digits";
  fs::create_directories(digits);
  fs::copy(RunFolder() / "summary.json", digits / "summary.json");
  testing::WriteFile(digits / "iterations.csv", iterations.substr(0, iterations.size() - 3));
  const fs::path requests = dir / "requests";
  fs::create_directories(requests);
  fs::copy(RunFolder() / "summary.json", requests / "summary.json");
  const std::string request_rows = ReadAll(RunFolder() / "requests.csv");
  testing::WriteFile(requests / "requests.csv", request_rows.substr(0, request_rows.size() - 1));
  const int64_t lines = std::count(iterations.begin(), iterations.end(), '\n');
  const std::vector<testing::CliErrorCase> cases = {
      {absl::StrCat("report ", rows.string(), " --out=", page), 1,
       absl::StrCat("rows, but summary.json counts ", lines - 1, " iterations (a file cut short, or another run's)")},
      {absl::StrCat("report ", digits.string(), " --out=", page), 1,
       absl::StrCat("iterations.csv:", lines, ": the last line has no newline (a file cut short)")},
      {absl::StrCat("report ", requests.string(), " --out=", page), 1, "requests.csv:"},
  };
  for (const testing::CliErrorCase& c : cases) testing::ExpectOneLineError(c);
  EXPECT_FALSE(fs::exists(page));
}

TEST_F(ReportCommand, SimulateWritesTheReportWithItsOtherOutputs) {
  const fs::path dir = testing::TestDir();
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat(kSmallRun, " --outputs=summary --out=", (dir / "run").string(),
                                " --report=", (dir / "pages" / "run.html").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("wrote " + (dir / "pages" / "run.html").string()));
  // --outputs is respected: the report's tables went through a scratch folder.
  EXPECT_TRUE(fs::exists(dir / "run" / "summary.json"));
  EXPECT_FALSE(fs::exists(dir / "run" / "requests.csv"));
  EXPECT_FALSE(fs::exists(dir / "run" / "iterations.csv"));
  EXPECT_EQ(std::count_if(fs::directory_iterator(dir / "run"), fs::directory_iterator(),
                          [](const fs::directory_entry&) { return true; }),
            1);
  const std::string html = ReadAll(dir / "pages" / "run.html");
  EXPECT_EQ(Count(html, "<figure class=\"chart\""), 13u);
  // The same charts as `report` draws from a folder holding all of the same run's files.
  ASSERT_EQ(
      RunInfergrid(absl::StrCat("report ", RunFolder().string(), " --out=", (dir / "again.html").string())).exit_code,
      0);
  const std::string again = ReadAll(dir / "again.html");
  for (const char* field : {"\"ms\":", "\"mean\":", "\"share\":", "\"preempted\":"}) {
    EXPECT_EQ(Count(again, field), Count(html, field)) << field;
  }
}

TEST_F(ReportCommand, SimulateWithoutOutAndAFailedRunLeaveNothingBehind) {
  const fs::path dir = testing::TestDir();
  const testing::CommandResult ok = RunInfergrid(absl::StrCat(kSmallRun, " --report=", (dir / "a.html").string()));
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(fs::exists(dir / "a.html"));
  testing::ExpectOneLineError({absl::StrCat(kSmallRun, " --trace=", (dir / "missing.csv").string(),
                                            " --report=", (dir / "new" / "b.html").string()),
                               1, "missing.csv"});
  EXPECT_FALSE(fs::exists(dir / "new"));
  testing::ExpectOneLineError({absl::StrCat("compare --a=--rate=1 --b=--rate=2 --report=", (dir / "c.html").string()),
                               2, "unknown flag --report"});
}

// A plan by hand: h100-sxm (measured) and h200-sxm (extrapolated) ok and priced, an a100 one ok
// but dominated (dearer per hour than h100 at a lower rate), and one infeasible.
PlanResult HandMadePlan() {
  PlanResult plan;
  SloTerm& term = *plan.add_slo();
  term.set_text("ttft_p99<=2s");
  term.set_metric("ttft");
  term.set_statistic("p99");
  term.set_limit_s(2);
  plan.set_replications(1);
  plan.set_tolerance(0.05);
  plan.set_workload("--workload=azure-conv");
  plan.mutable_assumed_workload()->set_text("synthetic preset azure-conv (its fitted lengths), poisson arrivals");
  plan.add_notes("the GPU profiles of h200-sxm from h100-sxm are extrapolated by datasheet ratios");
  struct Row {
    const char* label;
    const char* gpu;
    int gpus;
    double rate, usd_per_hour, usd_per_m;
    bool extrapolated;
  };
  const Row rows[] = {{"h100-sxm tp1", "h100-sxm", 1, 9.5, 2.69, 2.79, false},
                      {"h200-sxm tp1", "h200-sxm", 1, 11.0, 3.59, 3.21, true},
                      {"a100-80gb tp2", "a100-80gb", 2, 6.0, 2.78, 4.5, false}};
  int rank = 0;
  for (const Row& r : rows) {
    PlanCandidate& c = *plan.add_candidates();
    c.set_rank(++rank);
    c.set_label(r.label);
    c.set_gpu(r.gpu);
    c.set_gpus(r.gpus);
    c.set_replicas(1);
    c.set_status("ok");
    c.set_rate(r.rate);
    c.set_output_tokens_per_s(r.rate * 200);
    c.set_usd_per_hour(r.usd_per_hour);
    c.set_usd_per_million_output_tokens(r.usd_per_m);
    c.set_cost_model("calibrated");
    c.set_profile_extrapolated(r.extrapolated);
    c.set_profile_extrapolated_from(r.extrapolated ? "h100-sxm" : "");
    SloValue& v = *c.add_slo_values();
    v.set_term("ttft_p99<=2s");
    v.set_mean_s(0.5);
    v.set_limit_s(2);
  }
  PlanCandidate& infeasible = *plan.add_candidates();
  infeasible.set_label("h100-sxm tp8");
  infeasible.set_status("infeasible");
  infeasible.set_error("the model does not fit");
  return plan;
}

std::string PlanJson(const PlanResult& plan) {
  std::string json;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(plan, &json).ok());
  return json;
}

TEST_F(ReportCommand, DrawsAPlanFolder) {
  const fs::path dir = testing::TestDir();
  testing::WriteFile(dir / "plan1" / "plan.json", PlanJson(HandMadePlan()));
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("report ", (dir / "plan1").string(), " --out=", (dir / "p.html").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = ReadAll(dir / "p.html");
  EXPECT_THAT(html, HasSubstr("Plan: plan1"));
  EXPECT_THAT(html, HasSubstr("Workload assumed: synthetic preset azure-conv"));
  EXPECT_THAT(html, HasSubstr("the GPU profiles of h200-sxm from h100-sxm are extrapolated"));
  EXPECT_THAT(html, HasSubstr("1 candidate is not ok (infeasible or failed) and not drawn."));
  const nlohmann::json specs = PageSpecs(html);
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(Count(html, "<figure class=\"chart\""), 3u);
  // Capacity and cost bars: the ok candidates in rank order, the extrapolated one in its own colour.
  const nlohmann::json& capacity = specs[0]["layer"][0];
  EXPECT_EQ(capacity["encoding"]["x"]["title"], "largest sustained rate (requests/s)");
  EXPECT_EQ(capacity["encoding"]["color"]["scale"]["domain"], nlohmann::json({"measured", "extrapolated"}));
  EXPECT_EQ(capacity["data"]["values"],
            nlohmann::json::parse(R"([{"candidate":"h100-sxm tp1","profile":"measured","value":9.5},
                                      {"candidate":"h200-sxm tp1","profile":"extrapolated","value":11.0},
                                      {"candidate":"a100-80gb tp2","profile":"measured","value":6.0}])"));
  const nlohmann::json& cost = specs[1]["layer"][0];
  EXPECT_EQ(cost["encoding"]["x"]["title"], "USD per million output tokens");
  ASSERT_EQ(cost["data"]["values"].size(), 3u);
  EXPECT_EQ(cost["data"]["values"][0]["value"], 2.79);
  EXPECT_EQ(cost["data"]["values"][1]["value"], 3.21);
  EXPECT_EQ(cost["data"]["values"][2]["value"], 4.5);
  // The frontier: h100 and h200 on it (more capacity costs more), a100 dominated by h100.
  const nlohmann::json& front = specs[2]["layer"][0]["data"]["values"];
  const nlohmann::json& marked = specs[2]["layer"][1]["data"]["values"];
  ASSERT_EQ(marked.size(), 3u);
  std::map<std::string, std::string> on_front;
  for (const nlohmann::json& p : marked) on_front[p["candidate"]] = p["front"];
  EXPECT_EQ(on_front,
            (std::map<std::string, std::string>{
                {"h100-sxm tp1", "on the front"}, {"h200-sxm tp1", "on the front"}, {"a100-80gb tp2", "dominated"}}));
  ASSERT_EQ(front.size(), 2u);
  EXPECT_EQ(front[0]["usd_per_hour"], 2.69);
  EXPECT_EQ(front[1]["usd_per_hour"], 3.59);
  // The same page from the plan.json itself.
  const testing::CommandResult file = RunInfergrid(
      absl::StrCat("report ", (dir / "plan1" / "plan.json").string(), " --out=", (dir / "q.html").string()));
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_EQ(PageSpecs(ReadAll(dir / "q.html")), specs);
}

// With a target every candidate serves the same rate: capacity is GPUs, cost is per hour, and
// the frontier is cost against the SLO's closest term (less of the limit used is better).
TEST(ReportPlan, ATargetDrawsGpusAndCostPerHour) {
  PlanResult plan = HandMadePlan();
  plan.set_target_rate(20);
  plan.mutable_candidates(2)->mutable_slo_values(0)->set_mean_s(0.2);  // a100: dearer, more headroom
  const std::vector<report::PlanPoint> points = report::PlanPoints(plan);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[2].capacity, 2);
  EXPECT_EQ(points[2].cost, 2.78);
  EXPECT_DOUBLE_EQ(points[2].frontier_x, 0.1);
  EXPECT_TRUE(points[0].on_front);  // the cheapest
  EXPECT_FALSE(points[1].on_front);  // dearer than h100 with the same headroom
  EXPECT_TRUE(points[2].on_front);  // dearer than h100, but further from the limit
  const std::vector<report::Chart> charts = report::PlanCharts(plan, points);
  ASSERT_EQ(charts.size(), 3u);
  EXPECT_EQ(charts[0].spec["layer"][0]["encoding"]["x"]["title"], "GPUs needed (replicas x tensor-parallel size)");
  EXPECT_EQ(charts[1].spec["layer"][0]["encoding"]["x"]["title"], "USD per hour");
}

TEST_F(ReportCommand, BadPlanFilesAreOneLineAndNoPage) {
  const fs::path dir = testing::TestDir();
  const std::string page = (dir / "p.html").string();
  PlanResult weird = HandMadePlan();
  weird.mutable_candidates(1)->set_status("pending");
  PlanResult negative = HandMadePlan();
  negative.mutable_candidates(0)->set_rate(-1);
  testing::WriteFile(dir / "not-json" / "plan.json", "{\"candidates\": [");
  testing::WriteFile(dir / "empty" / "plan.json", "{}");
  testing::WriteFile(dir / "weird" / "plan.json", PlanJson(weird));
  testing::WriteFile(dir / "negative" / "plan.json", PlanJson(negative));
  const std::vector<testing::CliErrorCase> cases = {
      {absl::StrCat("report ", (dir / "not-json").string(), " --out=", page), 1,
       "not-json/plan.json:1:17: invalid JSON"},
      {absl::StrCat("report ", (dir / "empty").string(), " --out=", page), 1, "empty/plan.json: not a plan.json"},
      {absl::StrCat("report ", (dir / "weird" / "plan.json").string(), " --out=", page), 1,
       "plan.json: candidate 2 ('h200-sxm tp1'): status 'pending' is not ok, infeasible or error"},
      {absl::StrCat("report ", (dir / "negative").string(), " --out=", page), 1, "candidates[0].rate"}};
  for (const testing::CliErrorCase& c : cases) testing::ExpectOneLineError(c);
  EXPECT_FALSE(fs::exists(page));
}

}  // namespace
}  // namespace infergrid
