#include "sim/app/report/report_builder.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/app/report/comparison_section.h"
#include "sim/app/report/html_page.h"
#include "sim/app/report/iteration_charts.h"
#include "sim/app/report/latency_charts.h"
#include "sim/app/report/plan_section.h"
#include "sim/app/report/run_tables.h"
#include "sim/app/report/summary_charts.h"
#include "sim/app/report/sweep_section.h"

namespace infergrid::report {
namespace {

std::string Title(const ReportInputs& inputs) {
  std::vector<std::string> labels;
  for (const RunInput& run : inputs.runs) labels.push_back(run.label);
  for (const ComparisonInput& comparison : inputs.comparisons) labels.push_back(comparison.label);
  for (const SweepInput& sweep : inputs.sweeps) labels.push_back(sweep.label);
  for (const PlanInput& plan : inputs.plans) labels.push_back(plan.label);
  return absl::StrCat("InferGrid report: ", absl::StrJoin(labels, " vs "));
}

// The charts of one run over time and resources, or notes saying which files they need.
void AddRunSection(const RunInput& run, bool several, HtmlPage* page) {
  page->AddHeading(2,
                   several ? absl::StrCat("Run ", run.label, ": over time and resources") : "Over time and resources");
  if (run.requests) {
    page->AddChart(LatencyOverArrivalChart(run));
  } else {
    page->AddNote(
        absl::StrCat(run.source,
                     " has no requests.csv (simulate --outputs left it out): the latency over "
                     "arrival time is not drawn, and the latency curves go through the summary's percentiles."));
  }
  if (run.iterations) {
    for (const Chart& chart : IterationCharts(*run.iterations, run.summary)) page->AddChart(chart);
  } else {
    page->AddNote(absl::StrCat(run.source,
                               " has no iterations.csv (simulate --outputs left it out): the queue, "
                               "KV, batch, token and resource charts over time are not drawn."));
  }
  if (run.summary.binding_size() > 0) page->AddChart(BindingShareChart(run.summary));
  if (std::optional<Chart> memory = MemoryWaterfallChart(run.summary)) {
    page->AddChart(*memory);
  } else {
    page->AddNote(absl::StrCat(run.source,
                               "/summary.json predates the memory plan's terms in summary.json: rerun "
                               "the simulation to draw the memory plan."));
  }
}

}  // namespace

std::string BuildReportPage(const ReportInputs& inputs) {
  HtmlPage page(Title(inputs));
  std::vector<const RunInput*> runs;
  for (const RunInput& run : inputs.runs) runs.push_back(&run);
  const bool several = runs.size() > 1;
  if (!runs.empty()) {
    page.AddHeading(2, several ? "Runs" : "Run");
    AddRunsTable(runs, &page);
    page.AddHeading(2, "Latency");
    AddLatencyTable(runs, &page);
    for (const Chart& chart : LatencyCdfCharts(runs)) page.AddChart(chart);
  }
  if (several) {
    page.AddHeading(2, "Differences");
    AddDifferencesTable(runs, &page);
  }
  for (const ComparisonInput& comparison : inputs.comparisons) AddComparisonSection(comparison, &page);
  for (const SweepInput& sweep : inputs.sweeps) AddSweepSection(sweep, inputs.gpu_prices, &page);
  for (const PlanInput& plan : inputs.plans) AddPlanSection(plan, &page);
  for (const RunInput* run : runs) AddRunSection(*run, several, &page);
  return page.Render();
}

}  // namespace infergrid::report
