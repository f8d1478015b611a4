// The clock of replicas that run ahead in a fleet (EngineConfig::fleet_run_ahead with several
// replicas, whatever the router; issue 47).
// A replica running ahead has timed its iterations already (its links are its own); what is left
// is to let SimGrid's clock reach the end of the run. As a parallel task per replica that costs
// every event of the run a solve over all of them (the ptask model re-solves every activity in
// flight at each event: 41% of a 256-replica run). Instead the replica waits on its own
// semaphore (no activity) and one daemon actor sleeps to the earliest end any replica waits for
// and wakes whoever waits for it: SimGrid then holds one timed activity for the whole fleet.
//
// Waiters due at the same time are woken in the order they started waiting. Everything runs
// inside SimGrid actors, one at a time, so nothing is locked.
#ifndef INFERGRID_SIM_CORE_ENGINE_RUN_AHEAD_CLOCK_H_
#define INFERGRID_SIM_CORE_ENGINE_RUN_AHEAD_CLOCK_H_

#include <cstdint>
#include <queue>
#include <vector>

#include "simgrid/s4u.hpp"

namespace infergrid {

class RunAheadClock {
 public:
  RunAheadClock() = default;
  RunAheadClock(const RunAheadClock&) = delete;
  RunAheadClock& operator=(const RunAheadClock&) = delete;

  // Creates the daemon actor that keeps the clock, on `host` (it computes nothing).
  void Start(simgrid::s4u::Host* host);
  // Blocks the calling actor until the simulated time `t` (returns at once when it has passed);
  // `self` is the caller's own semaphore, released by nobody else while it waits.
  void WaitUntil(double t, const simgrid::s4u::SemaphorePtr& self);
  // The timed waits of the keeper: the SimGrid activities the clock cost.
  int64_t activities() const { return activities_; }

 private:
  struct Waiter {
    double t;
    int64_t order;  // ties at one time wake in the order they came
    simgrid::s4u::Semaphore* wake;
    bool operator>(const Waiter& o) const { return t != o.t ? t > o.t : order > o.order; }
  };
  // The keeper's body: sleeps to the earliest waiter (or until one comes earlier) and wakes
  // every waiter due by then.
  void Keep();

  std::priority_queue<Waiter, std::vector<Waiter>, std::greater<Waiter>> waiters_;
  simgrid::s4u::SemaphorePtr keeper_wake_ = simgrid::s4u::Semaphore::create(0);
  double keeper_until_ = 0;  // the time the keeper sleeps to (infinity: until a waiter comes)
  bool keeper_awake_ = true;  // running, or woken and not yet run: no need to wake it again
  int64_t order_ = 0;
  int64_t activities_ = 0;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_ENGINE_RUN_AHEAD_CLOCK_H_
