// `infergrid report` and `simulate --report` as users run them: a page from a run, compare, sweep
// and plan folder, several runs overlaid, and the commands' bad-input rules (one line, exit 1 or
// 2, no partial file). The report's parts: report_test.cc.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/app/plan/plan_result.pb.h"
#include "sim/app/results/simulation.pb.h"
#include "sim/app/results/sweep.pb.h"
#include "tests/command_runner.h"
#include "tests/report_helpers.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ReadAll;
using testing::RunInfergrid;

// A small deterministic run for the command tests.
const char kSmallRun[] = "simulate --max-requests=60 --rate=6 --record-wall-time=false --quiet";

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

std::string PlanJson(const PlanResult& plan) {
  std::string json;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(plan, &json).ok());
  return json;
}

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
