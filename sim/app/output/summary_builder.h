// Builds summary.json's SimulationSummary, the one place it is assembled: the run's setup (the
// configuration echo, the cost model that ran, the memory plan and the block counts), latency
// distributions of the completed requests (TTFT, TPOT, ITL, E2E, queueing), throughput over the
// simulated duration, goodput under the SLO, KV and preemption figures, iteration aggregates,
// the binding resource's share, and notes on what a reader must know (optimistic model, skipped
// trace rows, a truncated timeline).
#ifndef INFERGRID_SIM_APP_OUTPUT_SUMMARY_BUILDER_H_
#define INFERGRID_SIM_APP_OUTPUT_SUMMARY_BUILDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/cost/cost_model_factory.h"
#include "sim/core/engine/simulation.h"
#include "sim/core/memory_plan/memory_plan.h"
#include "sim/app/results/simulation.pb.h"
#include "traces/trace_reader.h"

namespace infergrid {

// What the run was set up with, beyond its result.
struct SummaryContext {
  SimulationConfig config;  // the plan's echo, with this run's seed
  const EngineConfig* engine = nullptr;  // replicas, blocks, block size, KV bytes per token
  const MemoryPlan* memory_plan = nullptr;
  const CostModelChoice* cost_model = nullptr;
  double slo_ttft_s = 0;  // 0: no limit
  double slo_tpot_s = 0;
  bool record_wall_time = true;
  const TraceReadStats* trace_stats = nullptr;  // null: a synthetic workload
  std::string timeline_file;  // timeline.pftrace or timeline.json
  int64_t timeline_written = -1;  // >= 0: timeline.json stopped after this many
  // The approximations the model's attention layout needs, one line each (sliding windows:
  // which layers, and how the engine's KV cache holds them). Empty for full attention.
  std::vector<std::string> model_notes;
  // The personality a version without one of its own runs on (ResolveEngine's note); empty
  // when --engine named a personality.
  std::string engine_note;
};

SimulationSummary BuildSummary(const SimulationResult& result, const SummaryContext& context);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_SUMMARY_BUILDER_H_
