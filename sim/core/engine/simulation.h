// One simulation run on SimGrid: an arrival actor replays the request source in simulated time
// and hands each request to the router, which picks a replica; one worker actor per replica
// forms batches with its scheduler, prices them with the cost model and executes them as
// SimGrid activities on the replica's GPU hosts (compute on the GPUs and their HBM links,
// tensor-parallel all-reduce rings over NVLink, KV swaps over PCIe), so transfers that share a
// link contend. Requests are plain data.
//
// The run is split by concern, one unit per file over a shared RunContext (run_context.h): the
// client and router (client.h), the front ends' queues (front_end_queue.h), disaggregation's KV
// transfers (kv_transfer.h), the replica workers (replica_worker.h: where run-ahead is decided),
// the attention-DP group worker (group_worker.h) and, with EngineConfig::autoscale, the
// autoscaler's controller actor (autoscaler.h). Sequences belong to one SequencePool;
// an iteration's duration is decided once, when it is scheduled (iteration_duration.h).
//
// Iteration granularity: by default a worker runs ahead through the iterations that nothing
// can interrupt (until the next arrival anywhere, a KV swap, or 65,536 iterations) and executes
// them as one activity carrying their summed work, recording each iteration and token at its
// own time; replicas whose links another replica's transfers can cross never run ahead, nor
// does anyone under a closed-loop client (its next arrival waits on a completion). With one
// replica and nothing that delays a send (no closed loop, no send jitter) the worker does not
// even stop at arrivals: it sends the requests that arrived by the end of an iteration itself,
// each at its own arrival time, and goes on (inline arrivals), so a busy period costs SimGrid
// one activity. With several replicas under round-robin, fleet_run_ahead ends a replica's runs
// at its own next arrival instead of the next arrival anywhere (client.h). coalesce = false
// executes every iteration as its own activities; all give the same times (to SimGrid's 1 ns
// timing precision), not the same bits: a run cut at an arrival reads the SimGrid clock there.
//
// One SimGrid Engine per process, ever: RunSimulation fails if called twice in a process (the
// `compare` command and the tests run each simulation in a child process).
#ifndef INFERGRID_SIM_CORE_ENGINE_SIMULATION_H_
#define INFERGRID_SIM_CORE_ENGINE_SIMULATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hardware/hardware_spec.pb.h"
#include "sim/core/cost/iteration_cost.h"
#include "sim/core/engine/autoscale_policy.h"
#include "sim/core/engine/platform.h"
#include "sim/core/engine/run_progress.h"
#include "sim/core/metrics/iteration_record.h"
#include "sim/core/metrics/iteration_stats.h"
#include "sim/core/metrics/request_log.h"
#include "sim/core/serving/admission.h"
#include "sim/core/serving/block_manager.h"
#include "sim/core/serving/execution_policy.h"
#include "sim/core/serving/front_end.h"
#include "sim/core/serving/run_noise.h"
#include "sim/core/serving/router.h"
#include "sim/core/serving/scheduler.h"
#include "traces/request.h"

namespace infergrid {

struct EngineConfig {
  // replicas, GPUs per replica (tensor parallel x attention_data_parallel), GPUs per node
  PlatformLayout layout;
  // Attention data parallelism (docs/engines.md#moe-with-attention-data-parallelism): each replica's GPUs
  // serve this many ranks, each with its own scheduler, KV blocks (`blocks` is per rank) and
  // batch; the router picks a rank among all replicas' ranks (rank r of replica g is replica
  // index g x ranks + r in the log). The ranks of a replica step together, as the MoE layers'
  // exchange synchronises them: each step every rank with work forms and prices its batch and
  // the step lasts as long as the slowest rank's. 1: no data parallelism.
  int attention_data_parallel = 1;
  // Serving ranks in all: replicas x attention_data_parallel (the replica indices of the log).
  int ranks() const { return layout.num_replicas * attention_data_parallel; }
  SchedulerKind scheduler = SchedulerKind::kVllm;
  SchedulerLimits limits;
  BlockManagerOptions blocks;  // per replica
  RouterKind router = RouterKind::kRoundRobin;
  // Prefill/decode disaggregation: > 0 makes the first this many replicas prefill-only and the
  // others decode-only. A request is routed (`router`) to a prefill replica; when its prefill
  // ends, its prompt's KV moves to the decode replica `decode_router` picks, over the platform's
  // links, and its first token reaches the client when the KV has arrived.
  int prefill_replicas = 0;
  RouterKind decode_router = RouterKind::kLeastKv;
  double kv_transfer_latency_s = 0;  // fixed time added to each KV transfer (connector, RDMA setup)
  int64_t max_model_len = 8192;
  // Tensor parallelism: two all-reduces per layer of new_tokens x hidden_size activations.
  int num_layers = 32;
  int64_t hidden_size = 4096;
  double activation_bytes = 2;  // bf16 activations
  // Expert-parallel all-to-all bytes each GPU sends per new token of an iteration (0: none).
  double all_to_all_bytes_per_token = 0;
  double allreduce_latency_s = 0;  // fixed time per all-reduce (NCCL launch + sync)
  int64_t kv_bytes_per_token = 0;  // per GPU, for swap transfers
  bool coalesce = true;
  // Fleet run-ahead (client.h): under round-robin, each replica runs ahead to its own next
  // arrival instead of the next arrival anywhere. The same times to SimGrid's 1 ns precision (as
  // coalesce), not the same bits: a run cut at another replica's arrival reads the SimGrid clock
  // there, and iterations reach the sinks in the order they are completed. With several
  // replicas under any router, replicas running ahead also wait on one clock instead of a
  // parallel task each (run_ahead_clock.h). Off here, so that a
  // run states it; simulate turns it on unless --fleet-run-ahead=false (SimulationSettings).
  bool fleet_run_ahead = false;
  int cost_stride = 1;  // IterationPricer: exact price every Nth decode step
  // > 0: a closed-loop client with at most this many requests in flight: a request is sent at
  // its arrival time or, when that many are outstanding, when one finishes (its last token
  // reaches the client), whichever is later (vLLM's bench serve --max-concurrency).
  int64_t max_concurrency = 0;
  // Keep every request's token chunk times in the result's log (RequestLog::KeepChunkTimes).
  bool record_chunk_times = false;
  int64_t max_run_iterations = 65536;
  // How the engine runs its batches (CUDA graphs, multi-step); unset: the cost model's own
  // launch setting for every batch, one step per scheduler call.
  std::optional<ExecutionPolicy> execution;
  // The serving front end of each replica (sim/core/serving/front_end.h); empty: requests reach the
  // engine when sent and tokens the client when produced. With one, an actor per replica hands
  // each request to the engine when the front end has processed it.
  FrontEndSpec front_end;
  // Run-to-run variation (sim/core/serving/run_noise.h): iteration times and client send times.
  RunNoiseSpec noise;
  // Told how far the run has come (sim/core/engine/run_progress.h); unset: nobody is.
  ProgressCallback on_progress;
  // Replicas turned on and off by a target (autoscaler.h); off by default. Not with attention
  // data parallelism or disaggregation; fleet run-ahead and inline arrivals are off under it
  // (routing reads the fleet at each arrival), whatever fleet_run_ahead says.
  AutoscaleConfig autoscale;
};

// What the autoscaler did (autoscaler.h): GPU-seconds held (starting, routable or draining
// replicas x GPUs per replica, over the run) against the fixed fleet's (every replica over the
// run), its scale-up and scale-down decisions and the replicas they turned on and off, and the
// routable replicas' peak and time-weighted mean, and each decision.
struct AutoscaleDecision {
  double time_s = 0;
  double metric = 0;  // mean per routable replica
  int desired = 0;  // HPA's rule
  int routable = 0;  // after the decision (the replicas starting come later)
  int on = 0;  // starting, routable or draining after the decision
};
struct AutoscaleResult {
  double gpu_seconds = 0;
  double fixed_gpu_seconds = 0;
  int64_t scale_ups = 0;
  int64_t scale_downs = 0;
  int64_t replicas_started = 0;
  int64_t replicas_stopped = 0;
  int peak_active = 0;
  double mean_active = 0;
  double startup_s = 0;
  std::vector<AutoscaleDecision> decisions;
};

struct SimulationResult {
  RequestLog log;
  IterationStats stats;
  double duration_s = 0;  // simulated: first arrival (0) to the last response
  double wall_s = 0;  // wall-clock time of the run (not deterministic)
  int64_t arrivals = 0;
  int64_t rejected = 0;
  int64_t truncated = 0;
  int64_t events = 0;  // arrivals + iterations + request completions
  int64_t activities = 0;  // SimGrid activities executed
  int64_t cost_model_calls = 0;  // exact prices (the rest interpolated)
  std::vector<int64_t> requests_per_replica;
  std::optional<AutoscaleResult> autoscale;  // with EngineConfig::autoscale only
};

// `sink`, when given, receives every iteration (iterations.csv, timeline).
absl::StatusOr<SimulationResult> RunSimulation(const EngineConfig& config, const GpuSpec& gpu,
                                               const IterationCostModel& cost_model, RequestSource& source,
                                               IterationSink* sink);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_ENGINE_SIMULATION_H_
