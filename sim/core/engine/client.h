// The client of a run and the router in front of the replicas. The client replays the request
// source in simulated time as an actor of its own (Run): each request is admitted (a prompt
// that can never fit is rejected, an output past max_model_len cut), routed to a replica (the
// prefill pool under disaggregation) and passed through the replica's front end or straight
// into its queue. Two things can delay a send past its arrival time: a closed-loop client
// (max_concurrency) waits for a request in flight to finish, and send jitter (run noise) adds
// the client's own delay; a request's latencies count from when it is sent.
//
// Inline arrivals: with one replica and nothing that delays a send, the router has one choice
// and no send waits on another actor's clock, so the worker running iterations ahead may send
// the requests arriving meanwhile itself (SendArrivalsUntil), each at its own arrival time; the
// client actor then finds them taken and goes on. This is what lets a busy period of a lone
// replica be one SimGrid activity (replica_worker.h decides when a worker runs ahead).
//
// Fleet run-ahead (EngineConfig::fleet_run_ahead, issue 47): with several replicas, a router
// that reads no replica's state (round-robin) and nothing that delays a send, the client reads
// the source ahead and routes each request when it reads it (admission decides the same then as
// at the send), until every replica has a request on its way or the source has ended. Each
// replica's horizon is then its own next arrival (RunContext::NextArrivalFor), so a worker runs
// ahead through the other replicas' arrivals. The requests are still sent one by one at their
// arrival times, in arrival order, by this actor. Load-aware routers keep the horizon of the
// next arrival anywhere: they read every replica's load at each arrival.
#ifndef INFERGRID_SIM_CORE_ENGINE_CLIENT_H_
#define INFERGRID_SIM_CORE_ENGINE_CLIENT_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "sim/core/engine/front_end_queue.h"
#include "sim/core/engine/run_context.h"
#include "sim/core/serving/admission.h"
#include "sim/core/serving/router.h"
#include "traces/request.h"

namespace infergrid {

class Client {
 public:
  // The replicas in `ctx` exist already (admission reads the first one's KV capacity).
  Client(RunContext& ctx, RequestSource& source, FrontEndQueues& front_ends);
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // The arrival actor's body: sends every request of the source, then marks arrivals done.
  void Run();
  // Whether a worker running ahead sends arrivals itself (see above).
  bool inline_arrivals() const { return inline_arrivals_; }
  // Whether fleet run-ahead is in effect (see above; the flag alone does not decide it).
  bool fleet_run_ahead() const { return fleet_; }
  // Inline arrivals: sends, each at its own arrival time, every request arriving by `time_s`.
  void SendArrivalsUntil(double time_s);
  // Hands the requests finished since the last call to a closed-loop client (no-op otherwise);
  // called after every completion of requests.
  void NoteCompletions();

 private:
  // Sends `request` at `now`: admission, the router (unless `routed_to` says where fleet
  // run-ahead routed it: a rank, or -1 for a request admission rejects), the front end or the
  // replica's queue.
  void Deliver(const Request& request, double now, int routed_to = kRouteNow);
  // Reads the source's next request into pending_ (checked); false at its end or on a bad
  // request (the run fails). ReadNext also moves the horizon: the request's arrival, or at the
  // source's end no arrival any more.
  bool ReadRequest();
  bool ReadNext();
  // Fleet run-ahead: the client's body, and reading ahead until every rank has a request routed
  // to it (or the source has ended), then the horizon: the earliest request read and not sent.
  void RunFleet();
  void FillAhead();

  static constexpr int kRouteNow = -2;
  // Closed loop: waits until fewer than max_concurrency requests are in flight; returns when
  // the slot it takes freed (-inf when one was free already).
  double WaitForSlot();

  RunContext& ctx_;
  RequestSource& source_;
  FrontEndQueues& front_ends_;
  AdmissionPolicy admission_;
  std::unique_ptr<Router> router_;
  std::vector<Replica*> routed_;  // the replicas arrivals are routed to (the prefill pool)
  // The source's next request, read and not yet sent (have_pending_), and how many were taken
  // from there (by the client actor or, inline, by a worker).
  Request pending_;
  bool have_pending_ = false;
  bool source_done_ = false;
  double last_arrival_s_ = 0;
  int64_t taken_ = 0;
  bool inline_arrivals_ = false;
  // Fleet run-ahead: requests read and routed, not yet sent (arrival order), each with its rank
  // (-1: rejected at admission), and how many ranks have none of them.
  struct Routed {
    Request request;
    int rank = -1;
  };
  bool fleet_ = false;
  std::deque<Routed> ahead_;
  size_t ranks_without_ahead_ = 0;
  // Closed loop: requests sent and not finished, finish times not yet handed to the client
  // (earliest first), and the semaphore the client waits on for them.
  int64_t in_flight_ = 0;
  size_t completions_seen_ = 0;
  std::priority_queue<double, std::vector<double>, std::greater<double>> finished_;
  simgrid::s4u::SemaphorePtr completion_ = simgrid::s4u::Semaphore::create(0);
  bool waiting_ = false;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_ENGINE_CLIENT_H_
