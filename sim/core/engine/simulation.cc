#include "sim/core/engine/simulation.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/core/engine/autoscaler.h"
#include "sim/core/engine/client.h"
#include "sim/core/engine/front_end_queue.h"
#include "sim/core/engine/group_worker.h"
#include "sim/core/engine/kv_transfer.h"
#include "sim/core/engine/replica_worker.h"
#include "sim/core/engine/run_context.h"
#include "sim/core/serving/replica.h"
#include "simgrid/s4u.hpp"

namespace infergrid {
namespace {

#if defined(__SANITIZE_ADDRESS__)  // g++
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)  // clang
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

namespace sg = simgrid::s4u;

// The configuration's checks that need no platform.
absl::Status CheckEngineConfig(const EngineConfig& config) {
  const int dp = config.attention_data_parallel;
  if (dp < 1 || (dp > 1 && config.prefill_replicas > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attention data parallelism needs 1 or more ranks and no prefill/decode disaggregation (", dp, " ranks)"));
  }
  const int n = config.ranks();
  if (config.prefill_replicas > 0 && (config.prefill_replicas >= n || config.scheduler == SchedulerKind::kStatic ||
                                      config.scheduler == SchedulerKind::kOrca)) {
    return absl::InvalidArgumentError(
        absl::StrCat("disaggregation needs at least one prefill and one decode replica and a continuous-batching "
                     "scheduler (",
                     config.prefill_replicas, " prefill of ", n, " replicas)"));
  }
  if (config.autoscale.enabled && (dp > 1 || config.prefill_replicas > 0 || config.autoscale.min_replicas < 1 ||
                                   config.autoscale.min_replicas > n || config.autoscale.interval_s <= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("autoscaling needs 1 to ", n, " minimum replicas (", config.autoscale.min_replicas,
                     "), a positive interval and neither attention data parallelism nor disaggregation"));
  }
  return absl::OkStatus();
}

// The platform of the run: routes between NVLink domains only where replicas send each other
// KV (disaggregation).
PlatformLayout PlatformLayoutOf(const EngineConfig& config) {
  PlatformLayout layout = config.layout;
  layout.route_between_domains = config.prefill_replicas > 0;
  return layout;
}

// The collectives of a replica on `devices` (Replica::SetCollectives).
CollectiveTiming CollectivesOf(const EngineConfig& config, const ReplicaDevices& devices) {
  CollectiveTiming c;
  c.tensor_parallel = devices.tensor_parallel();
  c.ring_bytes_per_s = devices.ring_bytes_per_s();
  c.num_layers = config.num_layers;
  c.hidden_size = config.hidden_size;
  c.activation_bytes = config.activation_bytes;
  c.all_to_all_bytes_per_token = config.all_to_all_bytes_per_token;
  c.allreduce_latency_s = config.allreduce_latency_s;
  return c;
}

// The replicas (one per rank, each with its scheduler, KV blocks, noise and collectives) and
// their workers' wake-ups.
void AddReplicas(RunContext& ctx, const IterationCostModel& cost_model) {
  const EngineConfig& config = ctx.config;
  const int n = config.ranks();
  ctx.workers.resize(static_cast<size_t>(config.layout.num_replicas));
  ctx.result.requests_per_replica.assign(static_cast<size_t>(n), 0);
  if (n > 1) ctx.result.stats.KeepPerReplica(n);  // summary.json's fleet
  if (config.record_chunk_times) ctx.result.log.KeepChunkTimes();
  for (int i = 0; i < n; ++i) {
    auto replica = std::make_unique<Replica>(i, MakeScheduler(config.scheduler, config.limits), config.blocks,
                                             cost_model, ctx.result.log, ctx.sink, ctx.sequences, config.cost_stride,
                                             config.execution ? &*config.execution : nullptr);
    replica->SetNoise(config.noise);
    replica->SetCollectives(CollectivesOf(config, ctx.devices_of(i / config.attention_data_parallel)));
    ctx.replicas.push_back(std::move(replica));
  }
}

// Whether replicas running ahead wait on the fleet's clock instead of executing their runs as
// parallel tasks (run_ahead_clock.h): with several replicas under fleet run-ahead, whatever
// the router (a load-aware one still cuts every run at every arrival).
bool UsesRunAheadClock(const EngineConfig& config) { return config.fleet_run_ahead && config.layout.num_replicas > 1; }

// One run's units, wired to one context; the actors run their bodies.
struct RunUnits {
  RunUnits(RunContext& ctx, RequestSource& source)
      : context(ctx), front_ends(ctx), client(ctx, source, front_ends), kv_transfer(ctx, client) {
    if (UsesRunAheadClock(ctx.config)) ctx.run_ahead_clock = &clock;
    if (ctx.config.autoscale.enabled) {
      autoscaler = std::make_unique<Autoscaler>(ctx, front_ends);
      ctx.autoscaler = autoscaler.get();
    }
    const int dp = ctx.config.attention_data_parallel;
    for (int i = 0; i < ctx.config.layout.num_replicas; ++i) {
      if (dp > 1) {
        groups.push_back(std::make_unique<GroupWorker>(ctx, client, front_ends, i));
      } else {
        workers.push_back(std::make_unique<ReplicaWorker>(ctx, client, front_ends, kv_transfer, i));
      }
    }
  }
  // The client first, then each replica's worker: SimGrid runs actors in creation order.
  void CreateActors(sg::Host* host) {
    sg::Actor::create("arrivals", host, [this] { client.Run(); });
    if (context.run_ahead_clock != nullptr) clock.Start(host);
    for (size_t i = 0; i < workers.size(); ++i) {
      sg::Actor::create(absl::StrCat("replica", i), host, [w = workers[i].get()] { w->Run(); });
    }
    for (size_t i = 0; i < groups.size(); ++i) {
      sg::Actor::create(absl::StrCat("replica", i), host, [g = groups[i].get()] { g->Run(); });
    }
    // A daemon: SimGrid ends it when the last replica and the client have ended.
    if (autoscaler != nullptr) sg::Actor::create("autoscaler", host, [a = autoscaler.get()] { a->Run(); })->daemonize();
  }

  RunContext& context;
  RunAheadClock clock;  // fleet run-ahead only
  FrontEndQueues front_ends;
  Client client;
  KvTransfer kv_transfer;
  std::vector<std::unique_ptr<ReplicaWorker>> workers;
  std::vector<std::unique_ptr<GroupWorker>> groups;
  std::unique_ptr<Autoscaler> autoscaler;
};

}  // namespace

absl::StatusOr<SimulationResult> RunSimulation(const EngineConfig& config, const GpuSpec& gpu,
                                               const IterationCostModel& cost_model, RequestSource& source,
                                               IterationSink* sink) {
  static bool engine_started = false;
  if (engine_started) {
    return absl::FailedPreconditionError(
        "SimGrid allows one simulation per process; run each simulation in its own process");
  }
  engine_started = true;
  // SimGrid reads its own options from argv: ours never reach it, its logging stays quiet and
  // the ptask model is selected.
  char arg0[] = "infergrid";
  char arg1[] = "--log=root.thres:critical";
  char arg2[] = "--cfg=host/model:ptask_L07";
  // Under AddressSanitizer actors run on system threads: ASan cannot follow SimGrid's own
  // stack switching (Debian's SimGrid is not built with ASan annotations) and would report
  // false positives. The thread factory gives the same simulation, only slower.
  char arg3[] = "--cfg=contexts/factory:thread";
  char* argv[] = {arg0, arg1, arg2, kAddressSanitizer ? arg3 : nullptr, nullptr};
  int argc = kAddressSanitizer ? 4 : 3;
  // SimGrid installs a SIGINT handler of its own (it lists its actors and exits 1); the process
  // keeps the one it had (the command's: remove the run's temporaries, say so, exit 130).
  struct sigaction interrupt_handler = {};
  sigaction(SIGINT, nullptr, &interrupt_handler);
  sg::Engine engine(&argc, argv);
  sigaction(SIGINT, &interrupt_handler, nullptr);

  absl::StatusOr<std::vector<ReplicaDevices>> devices = BuildPlatform(gpu, PlatformLayoutOf(config));
  if (!devices.ok()) return devices.status();
  if (absl::Status s = CheckEngineConfig(config); !s.ok()) return s;
  sg::Host* host = (*devices)[0].host();
  auto ctx = std::make_unique<RunContext>(config, sink);
  ctx->devices = *std::move(devices);
  AddReplicas(*ctx, cost_model);
  auto units = std::make_unique<RunUnits>(*ctx, source);
  units->CreateActors(host);
  const auto wall_start = std::chrono::steady_clock::now();
  try {
    engine.run();
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("SimGrid: ", e.what()));
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  ctx->progress.Finish(ctx->result.arrivals, ctx->result.stats.iterations, sg::Engine::get_clock());
  if (!ctx->error.ok()) return ctx->error;

  int64_t cost_model_calls = 0;
  for (const auto& replica : ctx->replicas) cost_model_calls += replica->pricer().exact_calls();
  int64_t activities = 0;
  for (const ReplicaDevices& d : ctx->devices) activities += d.activities();
  activities += units->clock.activities();
  SimulationResult result = std::move(ctx->result);
  // The run lasts from the first arrival (time 0) to its last response: the front end hands a
  // request its last tokens after the engine's last step (its CPU queues), so the engine's clock
  // alone would end the run early and overstate its throughput.
  result.duration_s = sg::Engine::get_clock();
  result.wall_s = wall;
  int64_t finished = 0;
  for (const RequestRecord& record : result.log.records()) {
    finished += record.outcome == RequestOutcome::kFinished;
    result.duration_s = std::max({result.duration_s, record.finish_s, record.last_token_s});
  }
  result.events = result.arrivals + result.stats.iterations + finished;
  result.activities = activities;
  result.cost_model_calls = cost_model_calls;
  if (units->autoscaler != nullptr) result.autoscale = units->autoscaler->Finish(result.duration_s);
  return result;
}

}  // namespace infergrid
