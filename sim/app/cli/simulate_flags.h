// The flags of `simulate` and `compare` beyond the accounting and engine-memory flags they share
// with `memory` (accounting_setup.h), the trace flags (trace_flags.h) and the SLO flags
// (slo_flags.h). Named as vLLM names them where vLLM has the concept.
#ifndef INFERGRID_SIM_APP_CLI_SIMULATE_FLAGS_H_
#define INFERGRID_SIM_APP_CLI_SIMULATE_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "hardware/topology.h"
#include "sim/app/cli/flag_group.h"

namespace infergrid::cli {

// The flags of the simulation beyond the accounting, engine, trace, speculative and SLO groups.
struct SimulateFlags {
  std::string scheduler;
  int64_t chunk_size = 0;
  int64_t chunked_prefill_size = 0;
  std::string capacity_scheduler_policy;
  int32_t num_scheduler_steps = 0;
  bool multi_step_stream_outputs = true;
  int32_t stream_interval = 0;
  bool disable_async_output_proc = false;
  bool no_async_scheduling = false;
  bool disable_overlap_schedule = false;
  bool disable_overlap_scheduler = false;
  bool disable_custom_all_reduce = false;
  double cpu_speed = 1;
  bool front_end = true;
  std::string front_end_file;
  bool noise = false;
  double iteration_noise = 0.01;
  double send_jitter = 1e-3;
  int32_t api_server_count = 0;
  std::string preemption_mode = "recompute";
  double swap_space = 4;
  bool enable_prefix_caching = false;
  bool enable_cuda_graphs = true;
  int64_t max_concurrency = 0;
  int32_t num_replicas = 1;
  std::string router = "round-robin";
  std::string pd;
  double kv_transfer_latency = 0;
  double fabric_bandwidth = 50e9;
  double fabric_latency = infergrid::kFabricLatencyS;
  std::string decode_router = "least-kv";
  std::string cost_model = "auto";
  std::string workload = "azure-conv";
  std::string arrival = "poisson";
  double rate = 0;
  double cv = 1;
  std::string input_len;
  std::string output_len;
  double range_ratio = 0;
  std::string lengths;
  double time_scale = 1;
  int64_t max_requests = 0;
  uint64_t seed = 0;
  std::string out;
  std::string outputs = "summary,requests,iterations,timeline";
  std::string timeline_format = "perfetto";
  std::string compress = "none";
  bool quiet = false;
  bool coalesce = true;
  bool fleet_run_ahead = false;
  int32_t cost_stride = 1;
  int64_t timeline_max_iterations = 200000;
  bool record_wall_time = true;
  std::string report;
};
const FlagGroup<SimulateFlags>& SimulateFlagGroup();

// The flags of every command that runs simulations (simulate, compare, plan, a sweep's points):
// accounting, engine memory, trace, speculative, SLO and SimulateFlags but --report.
const CommandFlags& SimulationFlags();

// The SimulationFlags about simulate's files (--out and what it writes there: --outputs,
// --timeline-format, --compress, --timeline-max-iterations): compare and plan leave them out,
// since their simulations write no files (their own --out is another flag).
const std::vector<absl::string_view>& SimulationFileFlags();

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_SIMULATE_FLAGS_H_
