// What the units of one run share: the configuration, the result being built (request log,
// iteration aggregates, counters), the owner of every sequence, the replicas (one per serving
// rank) and their devices (one per replica), the worker actors' wake-ups, the client's horizon
// (when the next request can reach a replica) and the run's first error. The units
// (client.h, front_end_queue.h, kv_transfer.h, replica_worker.h, group_worker.h) keep their
// own state and touch only this of each other's. Everything here runs inside SimGrid actors,
// one at a time, so nothing is locked.
#ifndef INFERGRID_SIM_CORE_ENGINE_RUN_CONTEXT_H_
#define INFERGRID_SIM_CORE_ENGINE_RUN_CONTEXT_H_

#include <deque>
#include <limits>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "sim/core/engine/platform.h"
#include "sim/core/engine/run_ahead_clock.h"
#include "sim/core/engine/run_progress.h"
#include "sim/core/engine/simulation.h"
#include "sim/core/serving/replica.h"
#include "sim/core/serving/sequence_pool.h"
#include "simgrid/s4u.hpp"

namespace infergrid {

inline constexpr double kRunNever = std::numeric_limits<double>::infinity();

// Every iteration to the run's aggregates and to the caller's sink (iterations.csv, timeline).
class RunIterationSink final : public IterationSink {
 public:
  RunIterationSink(IterationStats& stats, IterationSink* extra) : stats_(stats), extra_(extra) {}
  void OnIteration(const IterationRecord& record) override {
    stats_.OnIteration(record);
    if (observer_ != nullptr) observer_->OnIteration(record);
    if (extra_ != nullptr) extra_->OnIteration(record);
  }
  // Also tells `observer` of every iteration (the autoscaler's utilization).
  void set_observer(IterationSink* observer) { observer_ = observer; }

 private:
  IterationStats& stats_;
  IterationSink* extra_;
  IterationSink* observer_ = nullptr;
};

// A worker actor's wake-up: it sleeps on `wake` while `idle`; whoever gives it work releases it.
struct WorkerWake {
  simgrid::s4u::SemaphorePtr wake = simgrid::s4u::Semaphore::create(0);
  bool idle = false;
};

class Autoscaler;

struct RunContext {
  RunContext(const EngineConfig& engine_config, IterationSink* extra_sink)
      : config(engine_config), sink(result.stats, extra_sink), progress(engine_config.on_progress) {}
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;

  Replica& replica(int rank) { return *replicas[static_cast<size_t>(rank)]; }
  ReplicaDevices& devices_of(int replica_index) { return devices[static_cast<size_t>(replica_index)]; }
  // Disaggregation: the replicas from prefill_replicas on serve only decodes.
  bool IsDecodeOnly(int rank) const { return config.prefill_replicas > 0 && rank >= config.prefill_replicas; }

  // Wakes the worker serving rank `rank` if it sleeps (all ranks of a replica share one).
  void WakeWorker(int rank) {
    WorkerWake& worker = workers[static_cast<size_t>(rank / config.attention_data_parallel)];
    if (worker.idle) {
      worker.idle = false;
      worker.wake->release();
    }
  }
  void WakeIdleWorkers();
  // Records the run's first error and stops it: no more arrivals, every worker woken to see it.
  void Fail(absl::Status status);
  // Yields until every request arriving at `now` has been delivered (the client is an actor
  // of its own; a worker forms no batch before what arrives at its instant is in).
  void DrainArrivalsAt(double now) {
    while (!arrivals_done && next_arrival_s <= now) simgrid::s4u::this_actor::yield();
  }
  // When the next request can reach rank `rank`: its own next arrival under fleet run-ahead,
  // otherwise the next arrival anywhere.
  double NextArrivalFor(int rank) const {
    if (rank_arrivals.empty()) return next_arrival_s;
    const std::deque<double>& own = rank_arrivals[static_cast<size_t>(rank)];
    return own.empty() ? kRunNever : own.front();
  }
  void ReportProgress() {
    progress.Update(result.arrivals, result.stats.iterations, simgrid::s4u::Engine::get_clock());
  }

  const EngineConfig& config;
  SimulationResult result;
  RunIterationSink sink;
  ProgressReporter progress;
  SequencePool sequences;  // declared before the replicas that point into it
  std::vector<std::unique_ptr<Replica>> replicas;  // one per rank
  std::vector<ReplicaDevices> devices;  // one per replica
  std::vector<WorkerWake> workers;  // one per replica (all its ranks)
  // The client's horizon: the arrival time of the next request not yet delivered (kRunNever
  // when none can come before something else happens), and whether none will come any more.
  double next_arrival_s = 0;
  bool arrivals_done = false;
  // Per-rank horizons (fleet run-ahead, client.h): when not empty, the arrival times of the
  // requests the client has read and routed ahead to each rank, earliest first; a rank with none
  // gets no request before the source ends (the client reads ahead until each rank has one).
  std::vector<std::deque<double>> rank_arrivals;
  // Fleet run-ahead with several replicas: the clock replicas wait on at the end of a run
  // instead of executing its work as an activity (run_ahead_clock.h); null otherwise.
  RunAheadClock* run_ahead_clock = nullptr;
  // The autoscaler (autoscaler.h; null without one): routes arrivals and turns draining replicas
  // off. Its next decision ends every run ahead, as an arrival does.
  Autoscaler* autoscaler = nullptr;
  double next_control_s = kRunNever;
  absl::Status error;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_ENGINE_RUN_CONTEXT_H_
