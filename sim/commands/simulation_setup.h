// `simulate` from flags to results: ResolveSimulationPlan() validates every flag (usage errors
// name the flag) and fixes the deployment, the memory plan (the KV capacity `infergrid memory
// --engine` prints for the same flags) and the engine configuration; ExecuteSimulation() opens
// the workload, runs the engine and writes the outputs. `compare` runs the same plan with
// flag overrides in child processes.
#ifndef INFERGRID_SIM_COMMANDS_SIMULATION_SETUP_H_
#define INFERGRID_SIM_COMMANDS_SIMULATION_SETUP_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "sim/cli/accounting_setup.h"
#include "sim/cost/cost_model_factory.h"
#include "sim/engine/simulation.h"
#include "sim/memory_plan/memory_plan.h"
#include "sim/output/output_dir.h"
#include "sim/output/summary_builder.h"
#include "sim/reports/simulation.pb.h"
#include "traces/request.h"
#include "traces/synthetic_workload.h"
#include "traces/trace_reader.h"

namespace infergrid {

// The files `simulate --out=DIR` writes (--outputs).
struct OutputSelection {
  bool summary = true;     // summary.json
  bool requests = true;    // requests.csv
  bool iterations = true;  // iterations.csv
  bool timeline = true;    // timeline.json
  // "summary.json, requests.csv, ..." in that order, for the closing line.
  std::string FileList() const;
};

struct SimulationPlan {
  SimulationConfig config;            // the echo in summary.json
  cli::AccountingSetup setup;
  MemoryPlan memory_plan;
  MemorySummary memory;
  EngineConfig engine;
  CostModelRequest cost_request;
  SummaryOptions summary_options;
  std::string title;                  // "Llama-3-8B on 1 x NVIDIA H100 SXM 80GB"

  // Workload: a trace, or a synthetic preset.
  std::string trace;
  TraceOptions trace_options;
  double time_scale = 1;
  double trace_rate = 0;              // 0: as recorded
  int64_t max_requests = 0;           // 0: all (trace)
  SyntheticWorkloadSpec synthetic;

  std::string out_dir;                // empty: no files
  OutputSelection outputs;
  bool json = false;
  int64_t timeline_max_iterations = 200000;
};

// Synthetic defaults when --rate / --max-requests are 0.
inline constexpr double kDefaultSyntheticRate = 5.0;
inline constexpr int64_t kDefaultSyntheticRequests = 1000;

absl::StatusOr<SimulationPlan> ResolveSimulationPlan();

// Runs `plan` with the workload seeded by `seed`. With `out`, writes the files plan.outputs
// selects (summary.json, requests.csv, iterations.csv, timeline.json) as temporaries there
// (the caller commits).
absl::StatusOr<SimulationSummary> ExecuteSimulation(const SimulationPlan& plan, uint64_t seed,
                                                    OutputDir* out);

}  // namespace infergrid

#endif  // INFERGRID_SIM_COMMANDS_SIMULATION_SETUP_H_
