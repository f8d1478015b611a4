// The terminal view of a simulation: a header naming the deployment, workload, cost model and
// KV capacity, a table of the latency percentiles in milliseconds, and lines for throughput,
// goodput, KV use, iterations and the engine's own speed (omitted without wall time).
#ifndef INFERGRID_SIM_APP_OUTPUT_SUMMARY_TABLE_H_
#define INFERGRID_SIM_APP_OUTPUT_SUMMARY_TABLE_H_

#include <string>

#include "sim/app/results/simulation.pb.h"

namespace infergrid {

// `title` names the deployment ("Llama-3-8B on 1 x NVIDIA H100 SXM 80GB").
std::string RenderSummaryTable(const SimulationSummary& summary, const std::string& title);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_SUMMARY_TABLE_H_
