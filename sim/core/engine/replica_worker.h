// One replica's worker actor: forms batches with the replica's scheduler (Replica::Schedule, which
// also prices the batch and decides its duration, sim/core/serving/iteration_duration.h) and
// executes them on the replica's devices as SimGrid activities (KV swaps over PCIe, compute on
// the GPUs and their HBM links, the tensor-parallel ring), then completes them (tokens,
// finished requests, the iteration's record). Idle, it sleeps until a request reaches its
// queue (or its front end has one ready).
//
// Run-ahead is decided here (MayRunAhead and RunIterations): a replica whose links no other
// replica's transfers can cross (ReplicaDevices::exclusive), outside disaggregation and a
// closed-loop client, runs the iterations ending before its next input (NextInput: the next
// arrival that can reach it, or a request its front end has ready) as one activity carrying
// their summed work, completing each at its own time; a KV swap or the 65,536th iteration ends a
// run. The horizon is the only thing tying a replica to the others: the next arrival anywhere,
// or under fleet run-ahead (round-robin, client.h) the replica's own next arrival, so that a
// replica advances on its own between the moments something reaches it (issue 47); with an
// autoscaler, its next decision too (it reads every replica's state then, autoscaler.h).
#ifndef INFERGRID_SIM_CORE_ENGINE_REPLICA_WORKER_H_
#define INFERGRID_SIM_CORE_ENGINE_REPLICA_WORKER_H_

#include "sim/core/engine/client.h"
#include "sim/core/engine/front_end_queue.h"
#include "sim/core/engine/kv_transfer.h"
#include "sim/core/engine/run_context.h"

namespace infergrid {

class ReplicaWorker {
 public:
  ReplicaWorker(RunContext& ctx, Client& client, FrontEndQueues& front_ends, const KvTransfer& kv, int index);
  ReplicaWorker(const ReplicaWorker&) = delete;
  ReplicaWorker& operator=(const ReplicaWorker&) = delete;

  // The actor's body: runs until no request can reach the replica any more, or the run fails
  // (also when the replica holds requests it can never schedule).
  void Run();

 private:
  // Whether the scheduled iteration may start a run ahead: allowed for this replica and no KV
  // swap scheduled (a swap's transfer is timed on its own).
  bool MayRunAhead() const {
    return run_ahead_allowed_ && replica_.scheduled().swap_out_blocks == 0 && replica_.scheduled().swap_in_blocks == 0;
  }
  // Runs ahead from `start` through uninterruptible iterations (or one iteration when running
  // ahead is not allowed) and executes them.
  void RunIterations(double start);
  // Executes the scheduled iteration, begun at `begin`, as its own activities (KV swaps,
  // compute, the all-reduce ring) and completes it.
  void RunOne(double begin);
  // No request can reach this replica any more.
  bool InputsDone() const;

  RunContext& ctx_;
  Client& client_;
  FrontEndQueues& front_ends_;
  const KvTransfer& kv_;
  const int index_;
  Replica& replica_;
  ReplicaDevices& devices_;
  WorkerWake& wake_;
  double block_bytes_;  // one KV block on one GPU, for swaps
  bool run_ahead_allowed_;  // coalescing on, exclusive links, no closed loop, no disaggregation
  simgrid::s4u::SemaphorePtr clock_wake_ = simgrid::s4u::Semaphore::create(0);  // RunAheadClock's
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_ENGINE_REPLICA_WORKER_H_
