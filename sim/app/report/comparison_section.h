// The part of the report drawn from a `compare --out=DIR` folder (comparison.json): the metric
// table with B - A and its Student-t 95% interval as compare computed them, the relative
// differences with their intervals as a chart, and the latency percentiles of every replication
// of A and B overlaid. comparison.json holds summaries only, so the curves go through each run's
// summary percentiles.
#ifndef INFERGRID_SIM_APP_REPORT_COMPARISON_SECTION_H_
#define INFERGRID_SIM_APP_REPORT_COMPARISON_SECTION_H_

#include "sim/app/report/html_page.h"
#include "sim/app/report/report_inputs.h"

namespace infergrid::report {

void AddComparisonSection(const ComparisonInput& input, HtmlPage* page);

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_COMPARISON_SECTION_H_
