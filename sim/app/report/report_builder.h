// Builds the report page from what report_inputs.h read. One run: what it was, its latency
// table and CDFs, then its charts over time and resources and its memory plan. Several runs:
// the same, with the CDFs overlaid, a table of every metric's difference from the first run,
// and one section per run. A compare folder adds its own section, and so does a sweep folder
// (its design table, metrics against the swept axis, cost against latency). A chart that a folder's files
// cannot support (no requests.csv, no iterations.csv) is replaced by a note saying why.
#ifndef INFERGRID_SIM_APP_REPORT_REPORT_BUILDER_H_
#define INFERGRID_SIM_APP_REPORT_REPORT_BUILDER_H_

#include <string>

#include "sim/app/report/report_inputs.h"

namespace infergrid::report {

// The whole HTML page. `inputs` holds at least one run, comparison or sweep.
std::string BuildReportPage(const ReportInputs& inputs);

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_REPORT_BUILDER_H_
