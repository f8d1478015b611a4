// The serving front ends of a run's replicas (sim/core/serving/front_end.h) as queues in
// simulated time: a request sent to a replica enters its front end, which says when its CPU
// processes (HTTP server, tokenizer) have handed it to the engine; it waits here until then.
// The replica's worker takes what is ready when it forms a batch and, when idle, sleeps until
// the earliest ready time, so a front end adds no actor and no event per request. Requests of
// one replica reach its queue in ready-time order, ties in the order they were sent.
// Disabled (no front end in the configuration): requests reach the replica's queue when sent.
#ifndef INFERGRID_SIM_CORE_ENGINE_FRONT_END_QUEUE_H_
#define INFERGRID_SIM_CORE_ENGINE_FRONT_END_QUEUE_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "sim/core/engine/run_context.h"
#include "sim/core/serving/front_end.h"

namespace infergrid {

class FrontEndQueues {
 public:
  // One front end per rank when `ctx.config.front_end` is enabled, each set on its replica
  // (the replica's tokens pass it on their way out).
  explicit FrontEndQueues(RunContext& ctx);
  FrontEndQueues(const FrontEndQueues&) = delete;
  FrontEndQueues& operator=(const FrontEndQueues&) = delete;

  bool enabled() const { return !queues_.empty(); }
  // Sends `seq` into rank `rank`'s front end at `now` and wakes its worker.
  void Send(int rank, Sequence* seq, double now);
  // Moves the requests rank `rank`'s front end has processed by `now` into its replica's
  // queue, each at the time it was ready.
  void TakeReady(int rank, double now);
  bool Empty(int rank) const { return queues_.empty() || queues_[static_cast<size_t>(rank)].pending.empty(); }
  // When the earliest request rank `rank`'s front end holds is ready (kRunNever: none).
  double NextReady(int rank) const {
    return Empty(rank) ? kRunNever : queues_[static_cast<size_t>(rank)].pending.top().ready_s;
  }
  // When the next input can reach rank `rank`'s queue: the next arrival that can reach it
  // (RunContext::NextArrivalFor), or a request already in its front end.
  double NextInput(int rank) const {
    const double arrival = ctx_.NextArrivalFor(rank);
    if (queues_.empty()) return arrival;
    const Queue& q = queues_[static_cast<size_t>(rank)];
    return q.pending.empty() ? arrival : std::min(arrival, q.pending.top().ready_s);
  }

 private:
  // A request on its way through a front end: when it reaches the engine.
  struct Inbound {
    double ready_s = 0;
    int64_t order = 0;
    Sequence* seq = nullptr;  // the run's pool owns it
    bool operator>(const Inbound& o) const { return ready_s != o.ready_s ? ready_s > o.ready_s : order > o.order; }
  };
  struct Queue {
    std::unique_ptr<FrontEnd> front_end;
    std::priority_queue<Inbound, std::vector<Inbound>, std::greater<Inbound>> pending;
    int64_t handed_in = 0;
  };

  RunContext& ctx_;
  std::vector<Queue> queues_;  // per rank; empty without a front end
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_ENGINE_FRONT_END_QUEUE_H_
