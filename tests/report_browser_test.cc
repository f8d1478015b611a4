// The HTML report in a real browser: headless Chromium loads the page from disk, runs its
// scripts, and dumps the DOM; the test requires every chart drawn (one SVG per chart, with data
// marks in it), the page's own count of drawn charts equal to its count of charts, and no script
// error or library warning (the page's error hook writes them into #report-errors). For a default
// simulation, for two runs side by side, for a sweep folder, for a plan folder, and for a page with a broken chart
// (which must fail). Skipped, saying so, only where no chromium is installed (CI installs
// Debian's: scripts/install-deps.sh).
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/app/report/html_page.h"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;
using testing::ReadAll;
using testing::RunInfergrid;

// Debian's chromium, or another on PATH; empty when there is none.
std::string FindChromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const std::string probe = absl::StrCat("command -v ", name, " >/dev/null 2>&1");
    if (std::system(probe.c_str()) == 0) return name;
  }
  return "";
}

// Chromium as CI runs it: headless, no sandbox (CI is root), no network or profile side effects,
// and a virtual-time budget so the page's asynchronous drawing finishes before the dump.
std::string Chromium(const std::string& chromium, const fs::path& profile) {
  return absl::StrCat("timeout 180 ", chromium,
                      " --headless --no-sandbox --disable-gpu --disable-background-networking "
                      "--disable-component-update --disable-sync --no-first-run --user-data-dir=",
                      profile.string(), " --virtual-time-budget=30000 --window-size=1280,2000");
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// What the dumped DOM shows of each chart.
struct DrawnChart {
  std::string id;
  int svgs = 0;  // <svg class="marks">: vega-embed drew the chart
  int marks = 0;  // data marks: lines, points, areas, bars, rules, ticks, texts of the data
  int mark_groups = 0;  // one per layer of the chart
  int empty_groups = 0;  // layers that drew nothing
};

// The text of attribute `name` of the first element that has it ("" if none). Plain string
// search: the DOM holds a megabyte of inlined script, too much for std::regex.
std::string Attribute(const std::string& dom, const std::string& name) {
  const std::string key = name + "=\"";
  const size_t at = dom.find(key);
  if (at == std::string::npos) return "";
  const size_t start = at + key.size();
  return dom.substr(start, dom.find('"', start) - start);
}

std::vector<DrawnChart> DrawnCharts(const std::string& dom) {
  std::vector<DrawnChart> charts;
  const std::string open = "<figure class=\"chart\"";
  for (size_t at = dom.find(open); at != std::string::npos;) {
    const size_t next = dom.find(open, at + open.size());
    const std::string figure = dom.substr(at, next == std::string::npos ? std::string::npos : next - at);
    DrawnChart chart;
    chart.id = Attribute(figure, "id");
    chart.svgs = static_cast<int>(Count(figure, "class=\"marks\""));  // on the <svg> alone
    // Vega's SVG renderer puts each layer's marks in a <g class="mark-TYPE role-mark ..."> and
    // gives every data mark role="graphics-symbol"; axes and legends are role-axis/role-legend.
    chart.marks = static_cast<int>(Count(figure, "role=\"graphics-symbol\""));
    for (size_t g = figure.find(" role-mark"); g != std::string::npos; g = figure.find(" role-mark", g + 1)) {
      ++chart.mark_groups;
      const size_t end = figure.find('>', g);
      if (figure.compare(end + 1, 4, "</g>") == 0) ++chart.empty_groups;
    }
    charts.push_back(chart);
    at = next;
  }
  return charts;
}

// The DOM of `page` after Chromium loaded it and ran its scripts.
std::string LoadInChromium(const fs::path& page) {
  const fs::path dir = page.parent_path();
  const fs::path dom_path = dir / (page.stem().string() + ".dom.html");
  const std::string command =
      absl::StrCat(Chromium(FindChromium(), dir / "profile"), " --dump-dom file://", fs::absolute(page).string(), " >",
                   dom_path.string(), " 2>", (dir / "chromium.log").string());
  EXPECT_EQ(std::system(command.c_str()), 0) << command << "\n" << ReadAll(dir / "chromium.log");
  const std::string dom = ReadAll(dom_path);
  EXPECT_FALSE(dom.empty()) << ReadAll(dir / "chromium.log");
  return dom;
}

// What the page wrote into #report-errors (empty: nothing went wrong).
std::string ReportedProblems(const std::string& dom) {
  const std::string open = "<pre id=\"report-errors\"";
  const size_t at = dom.find(open);
  if (at == std::string::npos) return "no #report-errors in the page";
  const size_t text = dom.find('>', at) + 1;
  return dom.substr(text, dom.find("</pre>", text) - text);
}

// Loads `page` in Chromium and checks what it drew; `expected_charts` is the page's chart count.
void ExpectEveryChartDrawn(const fs::path& page, size_t expected_charts) {
  const std::string dom = LoadInChromium(page);
  ASSERT_FALSE(dom.empty());

  // The page's own record: charts expected, charts drawn, and no error or warning.
  EXPECT_EQ(ReportedProblems(dom), "");
  EXPECT_THAT(dom, ::testing::HasSubstr("<pre id=\"report-errors\" hidden=\"\">"));
  EXPECT_EQ(Attribute(dom, "data-charts-expected"), std::to_string(expected_charts));
  EXPECT_EQ(Attribute(dom, "data-charts-rendered"), std::to_string(expected_charts))
      << "the page did not finish drawing";

  // What the DOM itself shows, chart by chart.
  const std::vector<DrawnChart> charts = DrawnCharts(dom);
  ASSERT_EQ(charts.size(), expected_charts);
  for (const DrawnChart& chart : charts) {
    EXPECT_EQ(chart.svgs, 1) << chart.id;
    EXPECT_GE(chart.marks, 2) << chart.id << ": no data drawn";
    EXPECT_GE(chart.mark_groups, 1) << chart.id;
    EXPECT_EQ(chart.empty_groups, 0) << chart.id << ": a layer drew nothing";
  }
}

class ReportBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (FindChromium().empty()) {
      GTEST_SKIP() << "chromium is not installed: the report's browser test needs it (apt-get install chromium; "
                      "scripts/install-deps.sh does)";
    }
  }
};

TEST_F(ReportBrowser, DefaultSimulationDrawsEveryChart) {
  const fs::path dir = testing::TestDir();
  const fs::path page = dir / "default.html";
  const testing::CommandResult r = RunInfergrid(absl::StrCat("simulate --quiet --report=", page.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectEveryChartDrawn(page, 13);

  // A screenshot renders too (scripts/docs/report-screenshot.sh makes the one in docs/ this way).
  const fs::path png = dir / "default.png";
  const std::string command = absl::StrCat(Chromium(FindChromium(), dir / "profile"), " --screenshot=", png.string(),
                                           " file://", fs::absolute(page).string(), " >/dev/null 2>&1");
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const std::string image = ReadAll(png);
  ASSERT_GT(image.size(), 20000u);
  EXPECT_EQ(image.substr(1, 3), "PNG");
}

// The checks can fail: a chart Vega-Lite cannot compile is reported in the page and not counted.
TEST_F(ReportBrowser, ABrokenChartIsReported) {
  const fs::path dir = testing::TestDir();
  report::HtmlPage page("broken");
  const nlohmann::json values = {{{"x", 1}, {"y", 2}}, {{"x", 2}, {"y", 3}}};
  const nlohmann::json encoding = {{"x", {{"field", "x"}, {"type", "quantitative"}}},
                                   {"y", {{"field", "y"}, {"type", "quantitative"}}}};
  page.AddChart({"good", "", {{"data", {{"values", values}}}, {"mark", "line"}, {"encoding", encoding}}});
  page.AddChart({"bad", "", {{"data", {{"values", values}}}, {"mark", "no-such-mark"}, {"encoding", encoding}}});
  testing::WriteFile(dir / "broken.html", page.Render());
  const std::string dom = LoadInChromium(dir / "broken.html");
  EXPECT_THAT(ReportedProblems(dom), ::testing::HasSubstr("chart-1"));
  EXPECT_EQ(Attribute(dom, "data-charts-expected"), "2");
  EXPECT_EQ(Attribute(dom, "data-charts-rendered"), "1");
  const std::vector<DrawnChart> charts = DrawnCharts(dom);
  ASSERT_EQ(charts.size(), 2u);
  EXPECT_EQ(charts[0].svgs, 1);
  EXPECT_EQ(charts[1].svgs, 0);
}

TEST_F(ReportBrowser, TwoRunsSideBySideDrawEveryChart) {
  const fs::path dir = testing::TestDir();
  for (const char* scheduler : {"vllm", "sarathi"}) {
    const testing::CommandResult r = RunInfergrid(absl::StrCat(
        "simulate --quiet --max-requests=300 --rate=8 --scheduler=", scheduler, " --out=", (dir / scheduler).string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const fs::path page = dir / "two.html";
  const testing::CommandResult r = RunInfergrid(
      absl::StrCat("report ", (dir / "vllm").string(), " ", (dir / "sarathi").string(), " --out=", page.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectEveryChartDrawn(page, 4 + 2 * 9);
}

// A sweep folder: three metrics against the rate (a line per tensor-parallel size) and the cost
// chart with its front.
TEST_F(ReportBrowser, ASweepFolderDrawsEveryChart) {
  const fs::path dir = testing::TestDir();
  const std::string spec = testing::WriteFile(dir / "sweep.textproto", R"(base: "--max-requests=30"
base: "--record-wall-time=false"
grid { flag: "rate" values: ["4", "16"] }
grid { flag: "tensor-parallel-size" values: ["1", "2"] }
)");
  const testing::CommandResult s =
      RunInfergrid(absl::StrCat("sweep --quiet --jobs=2 --spec=", spec, " --out=", (dir / "sweep").string()));
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const fs::path page = dir / "sweep.html";
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("report ", (dir / "sweep").string(), " --out=", page.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectEveryChartDrawn(page, 4);
}

// A plan folder: capacity and cost bars and the SLO frontier, an extrapolated candidate among them.
TEST_F(ReportBrowser, APlanFolderDrawsEveryChart) {
  const fs::path dir = testing::TestDir();
  const testing::CommandResult p = RunInfergrid(absl::StrCat(
      "plan --quiet --verify-seeds=1 --tolerance=0.25 --max-rate=4 --max-requests=40 --workload=azure-conv "
      "--slo='ttft_p99<=2s,tpot_p99<=100ms' --gpus=h100-sxm,h200-sxm --out=",
      (dir / "plan").string()));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const fs::path page = dir / "plan.html";
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("report ", (dir / "plan").string(), " --out=", page.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectEveryChartDrawn(page, 3);
}

}  // namespace
}  // namespace infergrid
