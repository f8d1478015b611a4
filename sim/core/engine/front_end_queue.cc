#include "sim/core/engine/front_end_queue.h"

namespace infergrid {

FrontEndQueues::FrontEndQueues(RunContext& ctx) : ctx_(ctx) {
  if (!ctx.config.front_end.enabled()) return;
  queues_.resize(ctx.replicas.size());
  for (size_t i = 0; i < queues_.size(); ++i) {
    queues_[i].front_end = std::make_unique<FrontEnd>(ctx.config.front_end);
    ctx.replicas[i]->SetFrontEnd(queues_[i].front_end.get());
  }
}

void FrontEndQueues::Send(int rank, Sequence* seq, double now) {
  Queue& q = queues_[static_cast<size_t>(rank)];
  const double ready = q.front_end->Inbound(now, seq->prompt_tokens);
  q.pending.push({ready, q.handed_in++, seq});
  ctx_.WakeWorker(rank);  // an idle worker waits for the earliest request its front end holds
}

void FrontEndQueues::TakeReady(int rank, double now) {
  if (queues_.empty()) return;
  Queue& q = queues_[static_cast<size_t>(rank)];
  Replica& replica = ctx_.replica(rank);
  // Within the clock's rounding of `now`: a timed wait may end a few ulps short of its target.
  const double until = now + 1e-9 + 1e-12 * now;
  while (!q.pending.empty() && q.pending.top().ready_s <= until) {
    replica.Enqueue(q.pending.top().seq, q.pending.top().ready_s);
    q.pending.pop();
  }
}

}  // namespace infergrid
