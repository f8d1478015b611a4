// Every setting of one simulation, typed and checked: the deployment (model, GPU, formats,
// parallelism, replicas, routers, disaggregation), the engine (personality name and its limits
// as given, scheduler, CUDA graphs, multi-step, overlap, front end), the cost model, the
// speculative decoding, the workload and the client. A member's initializer is its default;
// 0 or unset means "the engine's default", resolved by ResolveSimulation
// (simulation_setup.h). sim/app/cli reads them from flags (simulate_options.h) and adds what
// only the product needs (output files, format).
#ifndef INFERGRID_SIM_CORE_SIMULATOR_SIMULATION_SETTINGS_H_
#define INFERGRID_SIM_CORE_SIMULATOR_SIMULATION_SETTINGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hardware/topology.h"
#include "models/iteration_kernels.h"
#include "sim/core/cost/cost_model_factory.h"
#include "sim/core/memory_plan/memory_plan.h"
#include "sim/core/serving/router.h"
#include "sim/core/serving/scheduler.h"
#include "sim/core/simulator/accounting_setup.h"
#include "sim/core/simulator/speculative_settings.h"
#include "sim/core/simulator/workload_settings.h"

namespace infergrid {

// The most GPUs one simulated deployment has (replicas x tensor-parallel size). The platform
// routes every pair of its GPUs and host CPUs, so its setup grows with the cube of their count:
// 1,024 GPUs take about 40 s, twice as many several minutes.
inline constexpr int kMaxSimulatedGpus = 1024;

struct SimulationSettings {
  AccountingSetup setup;  // model, GPU, weight and KV formats, parameter count
  MemoryPlanRequest memory;  // the engine flags as given (0: the engine's default)
  std::optional<SchedulerKind> scheduler;  // unset: the engine's batch policy
  int64_t chunk_size = 0;  // 0: max_num_batched_tokens
  // SGLang's --chunked-prefill-size: -1 whole prompts, 0 the engine's default.
  int64_t chunked_prefill_size = 0;
  // TensorRT-LLM's capacity_scheduler_policy: unset the engine's (GUARANTEED_NO_EVICT); false
  // MAX_UTILIZATION.
  std::optional<bool> guaranteed_no_evict;
  int num_scheduler_steps = 0;  // 0: the engine's default
  std::optional<bool> multi_step_stream_outputs;  // unset: the engine's default
  int stream_interval = 0;  // tokens per streamed message; 0: the engine's default
  // The engine flags given that switch an overlap off ("disable_async_output_proc", ...).
  std::vector<std::string> overlap_disabled_by;
  bool custom_all_reduce = true;
  ExpertParallelism expert_parallel;  // --enable-expert-parallel, --expert-dispatch, --expert-imbalance
  double cpu_speed = 1;
  // The serving front end (the personality's execution.front_end): on unless --front-end=false
  // or an offline benchmark; api_server_count > 0 overrides its first process's servers.
  bool front_end = true;
  std::string front_end_file;  // --front-end-file: replaces the personality's front end
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
  int prefill_replicas = 0;  // --pd=xPyD: x (0: not disaggregated); num_replicas = x + y
  RouterKind decode_router = RouterKind::kLeastKv;
  double kv_transfer_latency_s = 0;  // --kv-transfer-latency
  double fabric_bytes_per_s = 50e9;  // --fabric-bandwidth
  double fabric_latency_s = kFabricLatencyS;  // --fabric-latency
  CostModelKind cost_model = CostModelKind::kAuto;
  std::string calibration_path;  // --calibration; empty: the bundled profile
  bool coalesce = true;
  bool fleet_run_ahead = true;  // --fleet-run-ahead (EngineConfig::fleet_run_ahead)
  // Autoscaling (EngineConfig::autoscale): METRIC:TARGET (empty: every replica serves the whole
  // run), the replicas on at least, the seconds between decisions and of the scale-down
  // window, and a new replica's start-up (unset: DefaultReplicaStartup of the weights per GPU).
  std::string autoscale;
  int min_replicas = 1;
  double autoscale_interval_s = 30;
  double scale_down_delay_s = 300;
  std::optional<double> replica_startup_s;
  int cost_stride = 1;
  SpeculativeSettings speculative;  // --num-speculative-tokens and its proposer
  WorkloadSettings workload;
  int64_t max_concurrency = 0;  // > 0: a closed-loop client with this many requests in flight
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SIMULATOR_SIMULATION_SETTINGS_H_
