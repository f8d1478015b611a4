#include "sim/core/engine/group_worker.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace infergrid {

namespace sg = simgrid::s4u;

GroupWorker::GroupWorker(RunContext& ctx, Client& client, FrontEndQueues& front_ends, int group)
    : ctx_(ctx),
      client_(client),
      front_ends_(front_ends),
      group_(group),
      dp_(ctx.config.attention_data_parallel),
      first_(group * ctx.config.attention_data_parallel),
      scheduled_(static_cast<size_t>(ctx.config.attention_data_parallel), 0) {}

void GroupWorker::Run() {
  WorkerWake& wake = ctx_.workers[static_cast<size_t>(group_)];
  while (ctx_.error.ok()) {
    const double now = sg::Engine::get_clock();
    ctx_.DrainArrivalsAt(now);
    if (!ctx_.error.ok()) return;
    bool any = false;
    for (int r = 0; r < dp_; ++r) {
      front_ends_.TakeReady(first_ + r, now);
      scheduled_[static_cast<size_t>(r)] = rank(r).HasWork() && rank(r).Schedule(now);
      any = any || scheduled_[static_cast<size_t>(r)];
    }
    if (any) {
      RunStep(now);
      ctx_.ReportProgress();
      continue;
    }
    double next_ready = kRunNever;  // the earliest request a rank's front end holds
    for (int r = 0; r < dp_; ++r) {
      rank(r).Publish();
      next_ready = std::min(next_ready, front_ends_.NextReady(first_ + r));
    }
    if (ctx_.arrivals_done && next_ready == kRunNever) {
      FinishRanks();
      return;
    }
    wake.idle = true;
    if (next_ready == kRunNever) {
      wake.wake->acquire();
    } else {
      if (next_ready > now) wake.wake->acquire_timeout(next_ready - now);
      wake.idle = false;
    }
  }
}

void GroupWorker::FinishRanks() {
  for (int r = 0; r < dp_; ++r) {
    if (rank(r).HasWork()) {
      ctx_.Fail(absl::InternalError(absl::StrCat("replica ", group_, " rank ", r, " cannot schedule its ",
                                                 rank(r).LiveLoad().outstanding,
                                                 " remaining requests (KV capacity too small for them)")));
    }
  }
}

void GroupWorker::RunStep(double begin) {
  ReplicaDevices& devices = ctx_.devices_of(group_);
  const double block_bytes =
      static_cast<double>(ctx_.config.blocks.block_size) * static_cast<double>(ctx_.config.kv_bytes_per_token);
  // Every GPU of the group runs its rank's batch; the exchange of each MoE layer waits for the
  // slowest, so the step lasts as long as the longest rank's (its collectives included).
  double duration_s = 0, hbm_bytes = 0, swap_out = 0, swap_in = 0;
  for (int r = 0; r < dp_; ++r) {
    if (!scheduled_[static_cast<size_t>(r)]) continue;
    Replica& replica = rank(r);
    replica.Publish();
    duration_s = std::max(duration_s, replica.duration().step_s);
    hbm_bytes = std::max(hbm_bytes, replica.cost().hbm_bytes);
    swap_out += static_cast<double>(replica.scheduled().swap_out_blocks) * block_bytes;
    swap_in += static_cast<double>(replica.scheduled().swap_in_blocks) * block_bytes;
  }
  const double t0 = sg::Engine::get_clock();
  devices.HostTransfer(swap_out, swap_in);
  const double t1 = sg::Engine::get_clock();
  devices.Compute(duration_s, hbm_bytes);
  const double end = sg::Engine::get_clock();
  ctx_.DrainArrivalsAt(end);
  for (int r = 0; r < dp_; ++r) {
    if (!scheduled_[static_cast<size_t>(r)]) continue;
    Replica& replica = rank(r);
    replica.Complete(begin, end, (t1 - t0) + replica.cost().network_s);
  }
  client_.NoteCompletions();
  for (int r = 0; r < dp_; ++r) rank(r).Publish();
}

}  // namespace infergrid
