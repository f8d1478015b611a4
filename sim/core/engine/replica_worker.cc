#include "sim/core/engine/replica_worker.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "sim/core/engine/autoscaler.h"

namespace infergrid {

namespace sg = simgrid::s4u;

ReplicaWorker::ReplicaWorker(RunContext& ctx, Client& client, FrontEndQueues& front_ends, const KvTransfer& kv,
                             int index)
    : ctx_(ctx),
      client_(client),
      front_ends_(front_ends),
      kv_(kv),
      index_(index),
      replica_(ctx.replica(index)),
      devices_(ctx.devices_of(index)),
      wake_(ctx.workers[static_cast<size_t>(index)]),
      block_bytes_(static_cast<double>(ctx.config.blocks.block_size) *
                   static_cast<double>(ctx.config.kv_bytes_per_token)),
      // Under disaggregation KV transfers cross the replicas' links at any time, and a closed
      // loop's next arrival waits on a completion: nothing runs ahead there.
      run_ahead_allowed_(ctx.config.coalesce && ctx.config.max_concurrency <= 0 && devices_.exclusive() &&
                         ctx.config.prefill_replicas <= 0) {}

bool ReplicaWorker::InputsDone() const {
  return ctx_.arrivals_done && front_ends_.Empty(index_) && (!ctx_.IsDecodeOnly(index_) || kv_.DecodeInputsDone());
}

void ReplicaWorker::Run() {
  while (ctx_.error.ok()) {
    const double now = sg::Engine::get_clock();
    // Requests arriving at this very instant are delivered before the batch is formed.
    ctx_.DrainArrivalsAt(now);
    if (!ctx_.error.ok()) return;
    front_ends_.TakeReady(index_, now);
    if (replica_.HasWork() && replica_.Schedule(now)) {
      RunIterations(now);
      continue;
    }
    replica_.Publish();
    if (ctx_.autoscaler != nullptr && front_ends_.Empty(index_)) ctx_.autoscaler->NoteIdle(index_, now);
    if (InputsDone()) {
      if (replica_.HasWork()) {
        ctx_.Fail(absl::InternalError(absl::StrCat("replica ", index_, " cannot schedule its ",
                                                   replica_.LiveLoad().outstanding,
                                                   " remaining requests (KV capacity too small for them)")));
      }
      return;
    }
    wake_.idle = true;
    if (front_ends_.Empty(index_)) {
      wake_.wake->acquire();
    } else {  // until the front end has the next request ready, or something else happens
      const double wait = front_ends_.NextReady(index_) - now;
      if (wait > 0) wake_.wake->acquire_timeout(wait);
      wake_.idle = false;
    }
  }
}

void ReplicaWorker::RunOne(double begin) {
  replica_.Publish();
  const ScheduledBatch& scheduled = replica_.scheduled();
  const IterationDuration& d = replica_.duration();
  const double t0 = sg::Engine::get_clock();
  if (run_ahead_allowed_ && ctx_.run_ahead_clock != nullptr && scheduled.swap_out_blocks == 0 &&
      scheduled.swap_in_blocks == 0) {
    // Fleet run-ahead: the links are the replica's own (run ahead is allowed only then), so the
    // iteration's time is its duration; the clock lets SimGrid's reach its end.
    ctx_.run_ahead_clock->WaitUntil(t0 + d.compute_s + d.ring_s, clock_wake_);
    const double end = sg::Engine::get_clock();
    ctx_.DrainArrivalsAt(end);
    replica_.Complete(begin, end, d.latency_s + d.ring_s);
    client_.NoteCompletions();
    replica_.Publish();
    return;
  }
  devices_.HostTransfer(static_cast<double>(scheduled.swap_out_blocks) * block_bytes_,
                        static_cast<double>(scheduled.swap_in_blocks) * block_bytes_);
  const double t1 = sg::Engine::get_clock();
  devices_.Compute(d.compute_s, replica_.cost().hbm_bytes);
  const double t2 = sg::Engine::get_clock();
  devices_.AllReduce(d.ring_bytes);
  const double end = sg::Engine::get_clock();
  // An arrival at this very instant sees the load the iteration started with (as it does
  // when iterations run ahead).
  ctx_.DrainArrivalsAt(end);
  replica_.Complete(begin, end, (t1 - t0) + d.latency_s + (end - t2));
  client_.NoteCompletions();
  replica_.Publish();
}

void ReplicaWorker::RunIterations(double start) {
  if (!MayRunAhead()) {
    RunOne(start);
    ctx_.ReportProgress();
    return;
  }
  // Run ahead: every iteration ending before the next input (an arrival, or a request its
  // front end has ready) cannot be interrupted. The iteration during which the next input comes
  // completes only after it is sent, as iteration by iteration: the front end serves requests
  // and tokens in time order. With inline arrivals the worker sends what arrived by that
  // iteration's end itself, completes it, takes what its front end has ready and goes on;
  // otherwise that iteration runs on its own once the run is executed.
  const bool inline_arrivals = client_.inline_arrivals();
  // The autoscaler's next decision is a horizon too: it reads the replicas' state at its instant.
  double horizon = std::min(front_ends_.NextInput(index_), ctx_.next_control_s);
  double t = start;
  double compute_s = 0;
  double hbm_bytes = 0;
  double ring_bytes = 0;
  int64_t count = 0;
  bool one_more = false;  // a swap or the next input ends the run: that iteration runs on its own
  while (true) {
    const IterationDuration& d = replica_.duration();
    const double end = t + d.compute_s + d.ring_s;
    const bool at_input = end >= horizon;
    if (at_input && !inline_arrivals) {
      one_more = true;
      break;
    }
    const bool last = count + 1 >= ctx_.config.max_run_iterations;
    // The load a router sees during the iteration in flight when the run is executed.
    if (last) replica_.Publish();
    compute_s += d.compute_s;
    hbm_bytes += replica_.cost().hbm_bytes;
    ring_bytes += d.ring_bytes;
    if (at_input) client_.SendArrivalsUntil(end);
    replica_.Complete(t, end, d.latency_s + d.ring_s);
    ++count;
    t = end;
    if (at_input) {
      if (!ctx_.error.ok()) break;
      front_ends_.TakeReady(index_, t);
      horizon = std::min(front_ends_.NextInput(index_), ctx_.next_control_s);
    }
    if (last || !replica_.HasWork() || !replica_.Schedule(t)) break;
    if (!MayRunAhead()) {
      one_more = true;
      break;
    }
  }
  if (ctx_.run_ahead_clock != nullptr) {
    ctx_.run_ahead_clock->WaitUntil(t, clock_wake_);
  } else {
    devices_.Compute(compute_s, hbm_bytes);
    devices_.AllReduce(ring_bytes);
  }
  ctx_.DrainArrivalsAt(sg::Engine::get_clock());
  replica_.Publish();
  if (one_more) RunOne(t);
  ctx_.ReportProgress();
}

}  // namespace infergrid
