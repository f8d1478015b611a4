// The latency charts: the distribution (CDF, log x) of TTFT, TPOT, ITL and E2E for one run or
// several overlaid, with p50/p90/p99 marked, and each request's TTFT and E2E over its arrival
// time. Per-request latencies come from requests.csv; ITL gaps are not in any output file, so the
// ITL curve (and any curve of a run without requests.csv) is drawn through summary.json's
// percentiles, as its caption says.
#ifndef INFERGRID_SIM_APP_REPORT_LATENCY_CHARTS_H_
#define INFERGRID_SIM_APP_REPORT_LATENCY_CHARTS_H_

#include <vector>

#include "sim/app/report/chart.h"
#include "sim/app/report/report_inputs.h"

namespace infergrid::report {

// Four charts, TTFT, TPOT, ITL and E2E, each with one curve per run.
std::vector<Chart> LatencyCdfCharts(const std::vector<const RunInput*>& runs);

// TTFT and E2E of each finished request against its arrival time (binned on long runs).
// Requires run.requests.
Chart LatencyOverArrivalChart(const RunInput& run);

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_LATENCY_CHARTS_H_
