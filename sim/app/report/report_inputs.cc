#include "sim/app/report/report_inputs.h"

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/proto_numbers.h"
#include "base/textproto.h"
#include "base/json_text.h"

namespace infergrid::report {
namespace {

namespace fs = std::filesystem;

// Parses a JSON file the simulator wrote (or one line of it) into a T; a file without `required`
// set is some other JSON, not a T.
template <typename T>
absl::StatusOr<T> ParseJsonAs(absl::string_view text, const JsonSource& source, absl::string_view what) {
  T result;
  if (absl::Status s = ParseJsonMessage(text, source, what, &result); !s.ok()) return s;
  return result;
}

template <typename T, typename Required>
absl::StatusOr<T> ReadJson(const std::string& path, absl::string_view what, Required required) {
  std::string text;
  if (absl::Status s = ReadFileToString(path, &text); !s.ok()) return s;
  absl::StatusOr<T> result = ParseJsonAs<T>(text, JsonSource{path}, what);
  if (result.ok() && !std::invoke(required, *result))
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a ", what));
  return result;
}

// A summary.json as simulate writes it: every number finite, not negative and at most 1e18;
// the completed and rejected requests among those that arrived.
absl::Status CheckSummary(const SimulationSummary& s, const std::string& path) {
  NumberRule rule;
  rule.maximum = 1e18;
  if (absl::Status status = CheckMessageNumbers(s, path, rule); !status.ok()) return status;
  if (static_cast<int64_t>(s.completed()) + s.rejected() > s.requests()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", s.completed(), " completed and ", s.rejected(),
                                                   " rejected of ", s.requests(), " requests"));
  }
  return absl::OkStatus();
}

// sweep.json and results.jsonl; a line that is not a SweepResult is an error naming its line.
absl::StatusOr<SweepInput> ReadSweep(const std::string& source, const std::string& label) {
  const fs::path dir(source);
  absl::StatusOr<SweepManifest> manifest = ReadJson<SweepManifest>(
      (dir / "sweep.json").string(), "sweep.json", [](const SweepManifest& m) { return !m.sweep_id().empty(); });
  if (!manifest.ok()) return manifest.status();
  const std::string results_path = (dir / "results.jsonl").string();
  std::error_code error;
  if (!fs::exists(results_path, error)) {
    return absl::NotFoundError(absl::StrCat(source,
                                            ": a sweep folder with no results.jsonl (sweep --out writes it "
                                            "when its runs end: rerun the sweep to finish it)"));
  }
  std::string text;
  if (absl::Status s = ReadFileToString(results_path, &text); !s.ok()) return s;
  SweepInput sweep{source, label, *std::move(manifest), {}};
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    const std::string where = absl::StrCat(results_path, ":", line_number);
    absl::StatusOr<SweepResult> result =
        ParseJsonAs<SweepResult>(line, JsonSource{results_path, line_number, true}, "sweep result");
    if (!result.ok()) return result.status();
    if (!result->has_run() || (result->status() == "ok" && !result->summary().has_config())) {
      return absl::InvalidArgumentError(absl::StrCat(where,
                                                     ": not a sweep result (no run, or an ok run without "
                                                     "its summary)"));
    }
    if (result->status() == "ok") {
      if (absl::Status s = CheckSummary(result->summary(), where); !s.ok()) return s;
    }
    sweep.results.push_back(*std::move(result));
  }
  return sweep;
}

// The numbers of a plan.json the page draws: finite, not negative, at most 1e18 (an SLO value's
// 95% interval may go below zero with few seeds, and is not drawn).
absl::Status CheckPlanNumbers(const PlanResult& plan, const std::string& path) {
  const auto check = [&](double value, const std::string& name) -> absl::Status {
    if (std::isfinite(value) && value >= 0 && value <= 1e18) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", name, " is ", value, "; expected a finite number in [0, 1e18]"));
  };
  if (absl::Status s = check(plan.target_rate(), "target_rate"); !s.ok()) return s;
  for (int i = 0; i < plan.candidates_size(); ++i) {
    const PlanCandidate& c = plan.candidates(i);
    const std::string at = absl::StrCat("candidates[", i, "].");
    const std::pair<double, const char*> numbers[] = {
        {c.rate(), "rate"},
        {static_cast<double>(c.gpus()), "gpus"},
        {static_cast<double>(c.replicas()), "replicas"},
        {c.output_tokens_per_s(), "output_tokens_per_s"},
        {c.usd_per_hour(), "usd_per_hour"},
        {c.usd_per_million_output_tokens(), "usd_per_million_output_tokens"}};
    for (const auto& [value, name] : numbers) {
      if (absl::Status s = check(value, at + name); !s.ok()) return s;
    }
    for (int t = 0; t < c.slo_values_size(); ++t) {
      const std::string v = absl::StrCat(at, "slo_values[", t, "].");
      if (absl::Status s = check(c.slo_values(t).mean_s(), v + "mean_s"); !s.ok()) return s;
      if (absl::Status s = check(c.slo_values(t).limit_s(), v + "limit_s"); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

// A plan.json as plan writes it: at least one candidate and one SLO term, each candidate's status
// one plan writes, the numbers drawn in range.
absl::StatusOr<PlanInput> ReadPlan(const std::string& source, const std::string& path, const std::string& label) {
  absl::StatusOr<PlanResult> plan = ReadJson<PlanResult>(
      path, "plan.json", [](const PlanResult& p) { return p.candidates_size() > 0 && p.slo_size() > 0; });
  if (!plan.ok()) return plan.status();
  if (absl::Status status = CheckPlanNumbers(*plan, path); !status.ok()) return status;
  for (int i = 0; i < plan->candidates_size(); ++i) {
    const PlanCandidate& c = plan->candidates(i);
    if (c.status() != "ok" && c.status() != "infeasible" && c.status() != "error") {
      return absl::InvalidArgumentError(absl::StrCat(path, ": candidate ", i + 1, " ('", c.label(), "'): status '",
                                                     c.status(), "' is not ok, infeasible or error"));
    }
  }
  return PlanInput{source, label, *std::move(plan)};
}

std::string FolderName(const std::string& dir) {
  fs::path path = fs::path(dir).lexically_normal();
  if (path.filename().empty()) path = path.parent_path();  // "runs/a/"
  const std::string name = fs::absolute(path).lexically_normal().filename().string();
  return name.empty() ? dir : name;
}

// Folder names as labels, "name (2)" for a repeated one.
std::vector<std::string> UniqueLabels(const std::vector<std::string>& dirs) {
  std::map<std::string, int> seen;
  std::vector<std::string> labels;
  for (const std::string& dir : dirs) {
    const std::string name = FolderName(dir);
    const int n = ++seen[name];
    labels.push_back(n == 1 ? name : absl::StrCat(name, " (", n, ")"));
  }
  return labels;
}

}  // namespace

absl::StatusOr<RunInput> ReadRun(std::string source, std::string label, SimulationSummary summary,
                                 const std::string& requests_csv, const std::string& iterations_csv) {
  RunInput run;
  run.source = std::move(source);
  run.label = std::move(label);
  run.summary = std::move(summary);
  if (!requests_csv.empty()) {
    absl::StatusOr<RequestSamples> requests = RequestSamples::Read(requests_csv);
    if (!requests.ok()) return requests.status();
    // One row per arrived request: fewer is a file cut at a row boundary, more another run's.
    if (requests->rows != run.summary.requests()) {
      return absl::InvalidArgumentError(absl::StrCat(requests_csv, ": ", requests->rows,
                                                     " rows, but summary.json counts ", run.summary.requests(),
                                                     " requests (a file cut short, or another run's)"));
    }
    run.requests = *std::move(requests);
  }
  if (!iterations_csv.empty()) {
    absl::StatusOr<IterationBins> iterations =
        IterationBins::Read(iterations_csv, run.summary.simulated_duration_s(), kTimeBins);
    if (!iterations.ok()) return iterations.status();
    // One row per iteration the summary counts: fewer is a file cut at a row boundary.
    if (iterations->iterations() != run.summary.iterations().iterations()) {
      return absl::InvalidArgumentError(
          absl::StrCat(iterations_csv, ": ", iterations->iterations(), " rows, but summary.json counts ",
                       run.summary.iterations().iterations(), " iterations (a file cut short, or another run's)"));
    }
    run.iterations = *std::move(iterations);
  }
  return run;
}

std::vector<std::string> SweepGpus(const ReportInputs& inputs) {
  std::set<std::string> gpus;
  for (const SweepInput& sweep : inputs.sweeps) {
    for (const SweepResult& result : sweep.results) {
      if (result.status() == "ok") gpus.insert(result.summary().config().gpu());
    }
  }
  return {gpus.begin(), gpus.end()};
}

absl::StatusOr<ReportInputs> ReadReportInputs(const std::vector<std::string>& dirs) {
  ReportInputs inputs;
  const std::vector<std::string> labels = UniqueLabels(dirs);
  for (size_t i = 0; i < dirs.size(); ++i) {
    const fs::path dir(dirs[i]);
    std::error_code error;
    if (fs::is_regular_file(dir, error) && dir.extension() == ".json") {
      absl::StatusOr<PlanInput> plan = ReadPlan(dirs[i], dirs[i], labels[i]);
      if (!plan.ok()) return plan.status();
      inputs.plans.push_back(*std::move(plan));
      continue;
    }
    if (!fs::is_directory(dir, error)) {
      return absl::NotFoundError(
          absl::StrCat(dirs[i], ": ", fs::exists(dir, error) ? "not a folder" : "no such folder",
                       " (give folders written by simulate, compare, sweep or plan --out, or a plan.json)"));
    }
    if (fs::exists(dir / "sweep.json", error)) {
      absl::StatusOr<SweepInput> sweep = ReadSweep(dirs[i], labels[i]);
      if (!sweep.ok()) return sweep.status();
      inputs.sweeps.push_back(*std::move(sweep));
      continue;
    }
    if (fs::exists(dir / "comparison.json", error)) {
      absl::StatusOr<Comparison> comparison =
          ReadJson<Comparison>((dir / "comparison.json").string(), "comparison.json", &Comparison::has_a);
      if (!comparison.ok()) return comparison.status();
      inputs.comparisons.push_back({dirs[i], labels[i], *std::move(comparison)});
      continue;
    }
    if (fs::exists(dir / "plan.json", error)) {
      absl::StatusOr<PlanInput> plan = ReadPlan(dirs[i], (dir / "plan.json").string(), labels[i]);
      if (!plan.ok()) return plan.status();
      inputs.plans.push_back(*std::move(plan));
      continue;
    }
    const fs::path summary_path = dir / "summary.json";
    if (!fs::exists(summary_path, error)) {
      return absl::NotFoundError(
          absl::StrCat(dirs[i],
                       ": no summary.json, comparison.json, sweep.json or plan.json in "
                       "the folder (simulate --out=DIR writes summary.json unless --outputs leaves it out)"));
    }
    absl::StatusOr<SimulationSummary> summary =
        ReadJson<SimulationSummary>(summary_path.string(), "summary.json", &SimulationSummary::has_config);
    if (!summary.ok()) return summary.status();
    if (absl::Status s = CheckSummary(*summary, summary_path.string()); !s.ok()) return s;
    for (const char* name : {"requests.csv", "iterations.csv"}) {
      const fs::path packed = dir / absl::StrCat(name, ".zst");
      if (!fs::exists(dir / name, error) && fs::exists(packed, error)) {
        return absl::InvalidArgumentError(absl::StrCat(packed.string(),
                                                       ": report reads the plain table; restore it with `zstd -d ",
                                                       packed.string(), "` (or run simulate without --compress)"));
      }
    }
    auto optional_file = [&](const char* name) {
      return fs::exists(dir / name, error) ? (dir / name).string() : std::string();
    };
    absl::StatusOr<RunInput> run = ReadRun(dirs[i], labels[i], *std::move(summary), optional_file("requests.csv"),
                                           optional_file("iterations.csv"));
    if (!run.ok()) return run.status();
    inputs.runs.push_back(*std::move(run));
  }
  return inputs;
}

}  // namespace infergrid::report
