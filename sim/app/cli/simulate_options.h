// Every setting of one `simulate` run, read from its flags once and checked: policy names become
// enums here, ranges are checked here, and a bad value is a usage error naming the flag. What
// the settings imply (the memory plan, engine defaults, the cost model) is resolved later, from
// these options alone (sim/app/commands/simulation_plan.h). `compare` builds one per configuration.
#ifndef INFERGRID_SIM_APP_CLI_SIMULATE_OPTIONS_H_
#define INFERGRID_SIM_APP_CLI_SIMULATE_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hardware/topology.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/speculative_options.h"
#include "sim/app/cli/workload_options.h"
#include "sim/core/cost/cost_model_factory.h"
#include "sim/core/memory_plan/memory_plan.h"
#include "sim/core/serving/router.h"
#include "sim/core/serving/scheduler.h"
#include "traces/synthetic_workload.h"
#include "traces/trace_reader.h"

namespace infergrid::cli {

// The files `simulate --out=DIR` writes (--outputs).
struct OutputSelection {
  bool summary = true;     // summary.json
  bool requests = true;    // requests.csv
  bool iterations = true;  // iterations.csv
  bool timeline = true;    // timeline.pftrace (timeline.json with timeline_json)
  bool timeline_json = false;  // --timeline-format=json
  bool zstd = false;           // --compress=zstd: requests.csv.zst, iterations.csv.zst
  std::string RequestsFile() const { return zstd ? "requests.csv.zst" : "requests.csv"; }
  std::string IterationsFile() const { return zstd ? "iterations.csv.zst" : "iterations.csv"; }
  std::string TimelineFile() const { return timeline_json ? "timeline.json" : "timeline.pftrace"; }
  // "summary.json, requests.csv, ..." in that order, for the closing line.
  std::string FileList() const;
};

// The most GPUs one simulated deployment has (replicas x tensor-parallel size). The platform
// routes every pair of its GPUs and host CPUs, so its setup grows with the cube of their count:
// 1,024 GPUs take about 40 s, twice as many several minutes.
inline constexpr int kMaxSimulatedGpus = 1024;

struct SimulateOptions {
  AccountingSetup setup;             // model, GPU, weight and KV formats, parameter count
  MemoryPlanRequest memory;          // the engine flags as given (0: the engine's default)
  std::optional<SchedulerKind> scheduler;  // unset: the engine's batch policy
  int64_t chunk_size = 0;                   // 0: max_num_batched_tokens
  // SGLang's --chunked-prefill-size: -1 whole prompts, 0 the engine's default.
  int64_t chunked_prefill_size = 0;
  // TensorRT-LLM's capacity_scheduler_policy: unset the engine's (GUARANTEED_NO_EVICT); false
  // MAX_UTILIZATION.
  std::optional<bool> guaranteed_no_evict;
  int num_scheduler_steps = 0;              // 0: the engine's default
  std::optional<bool> multi_step_stream_outputs;  // unset: the engine's default
  int stream_interval = 0;                  // tokens per streamed message; 0: the engine's default
  // The engine flags given that switch an overlap off ("disable_async_output_proc", ...).
  std::vector<std::string> overlap_disabled_by;
  bool custom_all_reduce = true;
  ExpertParallelism expert_parallel;  // --enable-expert-parallel, --expert-dispatch, --expert-imbalance
  double cpu_speed = 1;
  // The serving front end (the personality's execution.front_end): on unless --front-end=false
  // or an offline benchmark; api_server_count > 0 overrides its first process's servers.
  bool front_end = true;
  std::string front_end_file;        // --front-end-file: replaces the personality's front end
  int api_server_count = 0;
  // Run-to-run variation (--noise): sizes apply only when it is on.
  bool noise = false;
  double iteration_noise = 0.01;
  double send_jitter_s = 1e-3;
  PreemptionMode preemption = PreemptionMode::kRecompute;
  double swap_space_gib = 4;
  bool prefix_caching = false;
  bool cuda_graphs = true;
  int num_replicas = 1;
  RouterKind router = RouterKind::kRoundRobin;
  int prefill_replicas = 0;          // --pd=xPyD: x (0: not disaggregated); num_replicas = x + y
  RouterKind decode_router = RouterKind::kLeastKv;
  double kv_transfer_latency_s = 0;  // --kv-transfer-latency
  double fabric_bytes_per_s = 50e9;  // --fabric-bandwidth
  double fabric_latency_s = kFabricLatencyS;  // --fabric-latency
  CostModelKind cost_model = CostModelKind::kAuto;
  std::string calibration_path;      // --calibration; empty: the bundled profile
  bool coalesce = true;
  int cost_stride = 1;
  SpeculativeOptions speculative;    // --num-speculative-tokens and its proposer
  WorkloadOptions workload;
  int64_t max_concurrency = 0;       // > 0: a closed-loop client with this many requests in flight
  double slo_ttft_s = 0;             // 0: no limit
  double slo_tpot_s = 0;
  std::string out_dir;               // empty: no files
  OutputSelection outputs;
  bool json = false;                 // --format=json
  bool progress = false;             // a progress line on stderr (a terminal, not --quiet)
  int64_t timeline_max_iterations = 200000;
  bool record_wall_time = true;
  // The flags that differ from their defaults, as a command line that reruns the simulation.
  std::string command_line;
};

// Reads and checks every simulate flag. Usage errors (exit 2) name the flag; a trace that
// cannot be read or a model/GPU file that does not parse is bad input (exit 1).
absl::StatusOr<SimulateOptions> ReadSimulateOptions(const FlagValues& flags);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_SIMULATE_OPTIONS_H_
