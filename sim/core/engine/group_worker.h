// Attention data parallelism (docs/engines.md#moe-with-attention-data-parallelism): the one worker actor
// of a replica whose GPUs serve several ranks, each with its own scheduler, KV blocks and batch.
// The ranks step together, as the MoE layers' exchange synchronises them: each step every rank
// with work forms and prices its batch, and the step lasts as long as the slowest rank's
// (IterationDuration::step_s, collectives included), executed as one activity on the replica's
// GPUs. Such a replica never runs ahead: one step is one activity.
#ifndef INFERGRID_SIM_CORE_ENGINE_GROUP_WORKER_H_
#define INFERGRID_SIM_CORE_ENGINE_GROUP_WORKER_H_

#include <vector>

#include "sim/core/engine/client.h"
#include "sim/core/engine/front_end_queue.h"
#include "sim/core/engine/run_context.h"

namespace infergrid {

class GroupWorker {
 public:
  // The worker of replica `group`: ranks group x dp ... group x dp + dp - 1 of `ctx`.
  GroupWorker(RunContext& ctx, Client& client, FrontEndQueues& front_ends, int group);
  GroupWorker(const GroupWorker&) = delete;
  GroupWorker& operator=(const GroupWorker&) = delete;

  // The actor's body: runs until no request can reach the ranks any more, or the run fails.
  void Run();

 private:
  Replica& rank(int r) { return ctx_.replica(first_ + r); }
  // Executes the step of the ranks whose `scheduled_` entry is set, begun at `begin`, and
  // completes them.
  void RunStep(double begin);
  // Nothing can reach any rank: fails the run if a rank still holds requests it cannot schedule.
  void FinishRanks();

  RunContext& ctx_;
  Client& client_;
  FrontEndQueues& front_ends_;
  const int group_;
  const int dp_;
  const int first_;  // the group's first rank
  std::vector<char> scheduled_;  // per rank of the group: whether it scheduled the step in flight
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_ENGINE_GROUP_WORKER_H_
