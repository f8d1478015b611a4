#include "sim/core/engine/run_ahead_clock.h"

#include <limits>

namespace infergrid {

namespace sg = simgrid::s4u;

void RunAheadClock::Start(sg::Host* host) {
  // A daemon: SimGrid ends it when the last replica and the client have ended.
  sg::Actor::create("run-ahead clock", host, [this] { Keep(); })->daemonize();
}

void RunAheadClock::WaitUntil(double t, const sg::SemaphorePtr& self) {
  if (t <= sg::Engine::get_clock()) return;
  waiters_.push({t, order_++, self.get()});
  if (!keeper_awake_ && t < keeper_until_) {
    keeper_awake_ = true;
    keeper_wake_->release();
  }
  self->acquire();
}

void RunAheadClock::Keep() {
  while (true) {
    keeper_awake_ = false;
    if (waiters_.empty()) {
      keeper_until_ = std::numeric_limits<double>::infinity();
      keeper_wake_->acquire();
      continue;
    }
    const double t = waiters_.top().t;
    keeper_until_ = t;
    const double now = sg::Engine::get_clock();
    if (t > now) {
      ++activities_;
      // false: a waiter came for an earlier time and woke the keeper; look again.
      if (!keeper_wake_->acquire_timeout(t - now)) continue;
    }
    keeper_awake_ = true;
    while (!waiters_.empty() && waiters_.top().t <= t) {
      waiters_.top().wake->release();
      waiters_.pop();
    }
  }
}

}  // namespace infergrid
