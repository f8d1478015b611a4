// The report's tables about runs, from their summary.json: what each run was (model, GPUs,
// engine, workload, how much it served), its latency percentiles, and, for several runs, each
// metric side by side with its difference from the first run.
#ifndef INFERGRID_SIM_APP_REPORT_RUN_TABLES_H_
#define INFERGRID_SIM_APP_REPORT_RUN_TABLES_H_

#include <string>
#include <vector>

#include "sim/app/report/html_page.h"
#include "sim/app/report/report_inputs.h"

namespace infergrid::report {

// A number as a table shows it: 4 significant digits, thousands grouped, no exponent.
std::string TableNumber(double value);

void AddRunsTable(const std::vector<const RunInput*>& runs, HtmlPage* page);
void AddLatencyTable(const std::vector<const RunInput*>& runs, HtmlPage* page);
// Each metric of every run, and each run's difference from the first (absolute and relative).
void AddDifferencesTable(const std::vector<const RunInput*>& runs, HtmlPage* page);

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_RUN_TABLES_H_
