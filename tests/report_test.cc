// The HTML report's parts (sim/app/report): CSV columns and their errors, time bins, the memory
// waterfall's arithmetic, the sweep section's means and Pareto rule, the page's escaping and
// inlined assets, the plan section. `infergrid report` / `simulate --report` as users run them:
// report_cli_test.cc; the browser check of the drawn page: report_browser_test.cc.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
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
#include "tests/report_helpers.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ReadAll;

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

}  // namespace
}  // namespace infergrid
