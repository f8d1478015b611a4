// Builds summary.json's SimulationSummary from a finished run: latency distributions of the
// completed requests (TTFT, TPOT, ITL, E2E, queueing), throughput over the simulated duration,
// goodput under the SLO, KV and preemption figures, iteration aggregates and the binding
// resource's share. The caller fills config, cost_model and memory.
#ifndef INFERGRID_SIM_OUTPUT_SUMMARY_BUILDER_H_
#define INFERGRID_SIM_OUTPUT_SUMMARY_BUILDER_H_

#include "sim/engine/simulation.h"
#include "sim/reports/simulation.pb.h"

namespace infergrid {

struct SummaryOptions {
  double slo_ttft_s = 0;            // 0: no limit
  double slo_tpot_s = 0;
  double kv_bytes_per_block = 0;    // per GPU, for swap traffic
  int num_replicas = 1;
  bool record_wall_time = true;
};

// Adds the run's figures to `summary` (config, cost_model and memory already set).
void FillSummary(const SimulationResult& result, const SummaryOptions& options,
                 SimulationSummary* summary);

}  // namespace infergrid

#endif  // INFERGRID_SIM_OUTPUT_SUMMARY_BUILDER_H_
