// The charts of one run over simulated time, from iterations.csv reduced to time bins
// (iteration_bins.h): queues (waiting, running, swapped) and KV-block occupancy with the
// preemptions marked, batch size and new tokens per iteration against the engine's limits,
// the binding resource's share of busy time, and the achieved HBM and tensor fractions with the
// host's share. Each caption states the bin width.
#ifndef INFERGRID_SIM_APP_REPORT_ITERATION_CHARTS_H_
#define INFERGRID_SIM_APP_REPORT_ITERATION_CHARTS_H_

#include <vector>

#include "sim/app/report/chart.h"
#include "sim/app/report/iteration_bins.h"
#include "sim/app/results/simulation.pb.h"

namespace infergrid::report {

// Queue, KV, batch, tokens, binding over time and resource fractions, in that order.
std::vector<Chart> IterationCharts(const IterationBins& bins, const SimulationSummary& summary);

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_ITERATION_CHARTS_H_
