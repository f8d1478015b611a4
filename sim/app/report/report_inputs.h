// What a report draws from: `simulate --out=DIR` folders (summary.json, plus requests.csv and
// iterations.csv when --outputs wrote them), `compare --out=DIR` folders (comparison.json) and
// `sweep --out=DIR` folders (sweep.json and results.jsonl), and `plan --out=DIR` folders (plan.json)
// or a plan.json itself.
// Everything is read and checked before a page is built, so bad input fails before any output
// exists; each error names the folder or file.
#ifndef INFERGRID_SIM_APP_REPORT_REPORT_INPUTS_H_
#define INFERGRID_SIM_APP_REPORT_REPORT_INPUTS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/app/plan/plan_result.pb.h"
#include "sim/app/report/iteration_bins.h"
#include "sim/app/report/request_samples.h"
#include "sim/app/results/simulation.pb.h"
#include "sim/app/results/sweep.pb.h"

namespace infergrid::report {

struct RunInput {
  std::string source;  // the folder as given (or the run's --out), for the page
  std::string label;  // its name in legends and headings
  SimulationSummary summary;
  std::optional<RequestSamples> requests;  // absent: the folder has no requests.csv
  std::optional<IterationBins> iterations;  // absent: the folder has no iterations.csv
};

struct ComparisonInput {
  std::string source;
  std::string label;
  Comparison comparison;
};

// A sweep folder: its manifest and the results of its runs (results.jsonl, one SweepResult a
// line, failed runs included), in the manifest's order.
struct SweepInput {
  std::string source;
  std::string label;
  SweepManifest manifest;
  std::vector<SweepResult> results;
};

// A plan: its report as `plan --out=DIR` wrote it (DIR/plan.json).
struct PlanInput {
  std::string source;
  std::string label;
  PlanResult plan;
};

struct ReportInputs {
  std::vector<RunInput> runs;
  std::vector<ComparisonInput> comparisons;
  std::vector<SweepInput> sweeps;
  std::vector<PlanInput> plans;
  // USD per GPU-hour by the GPU name of summary.json's config, for the sweeps' cost chart. This
  // layer cannot see the hardware catalog: the caller fills it (report_command.cc resolves each
  // sweep's GPUs as --gpu does). A GPU missing here, or priced 0, has no cost.
  std::map<std::string, double> gpu_prices;
};

// The GPU names the sweeps' runs used (config.gpu of each ok run), for the caller to price.
std::vector<std::string> SweepGpus(const ReportInputs& inputs);

// Reads each folder: one with sweep.json is a sweep, one with comparison.json a comparison, one
// with plan.json a plan, else one with summary.json a run. A file ending in .json is read as a
// plan.json (its candidates' statuses and numbers checked). A sweep's results.jsonl must exist (the sweep writes it at the end
// of every run of it); its errors name the file and line.
// A folder that is missing or has neither, or a file that does not parse, is an error. Labels are
// the folders' names, numbered where two are the same.
absl::StatusOr<ReportInputs> ReadReportInputs(const std::vector<std::string>& dirs);

// One run from its parts: `simulate --report` has the summary in memory and its CSVs under
// temporary names. An empty path: that file was not written.
absl::StatusOr<RunInput> ReadRun(std::string source, std::string label, SimulationSummary summary,
                                 const std::string& requests_csv, const std::string& iterations_csv);

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_REPORT_INPUTS_H_
