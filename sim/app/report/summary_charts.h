// The charts drawn from summary.json alone: the binding resource's shares of iterations and of
// busy time, and the memory plan as a waterfall from the device's memory to the KV cache.
#ifndef INFERGRID_SIM_APP_REPORT_SUMMARY_CHARTS_H_
#define INFERGRID_SIM_APP_REPORT_SUMMARY_CHARTS_H_

#include <optional>

#include "sim/app/report/chart.h"
#include "sim/app/results/simulation.pb.h"

namespace infergrid::report {

Chart BindingShareChart(const SimulationSummary& summary);

// Per GPU, in GiB: device total, the part outside the engine's budget, the budget, then weights,
// activation peak, non-torch memory and CUDA graphs taken from it, down to the KV cache. A term
// the engine's rule does not subtract from the budget (CUDA graphs in some versions) is drawn
// beside the steps, and what the terms leave unexplained is one "other" step, never hidden.
// Empty for a summary.json without the plan's terms (written before they were added).
std::optional<Chart> MemoryWaterfallChart(const SimulationSummary& summary);

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_SUMMARY_CHARTS_H_
