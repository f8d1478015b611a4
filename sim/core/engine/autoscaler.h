// The autoscaler (EngineConfig::autoscale, issue 47): a controller actor that turns replicas on
// and off by a target (autoscale_policy.h) and the replicas' states it keeps. All the fleet's
// replicas exist; each is off, starting (turned on, loading the model: GPUs held, no requests),
// routable (the router sends it requests) or draining (no new requests; it finishes its own,
// then turns off). The first min_replicas are routable at time 0, the others off.
//
// Every interval the controller reads the metric over the routable replicas and applies HPA's
// rule. Scaling up turns on the lowest-numbered replicas that are off; each becomes routable
// startup_s later. Scaling down (to the highest count the decisions of the last scale-down
// delay wanted) first turns off replicas still starting, then drains the routable replicas
// turned on last; at least one stays routable. A draining replica turns off when it has no
// request left (its worker says so, NoteIdle).
//
// Exactness: the decision instants are horizons of the replicas' runs ahead
// (RunContext::next_control_s), so at a decision every iteration that ended before it has been
// completed and none after: the metric reads the state at that instant. Utilization counts each
// iteration in the interval it ends in. GPU-seconds are the time integral of (starting +
// routable + draining) replicas x GPUs per replica, to the run's end.
//
// Left out: a replica starts with an empty KV cache and prefix cache and no warm-up beyond its
// start-up time; no spot preemption, no failures, no cost of stopping.
#ifndef INFERGRID_SIM_CORE_ENGINE_AUTOSCALER_H_
#define INFERGRID_SIM_CORE_ENGINE_AUTOSCALER_H_

#include <cstdint>
#include <vector>

#include "sim/core/engine/autoscale_policy.h"
#include "sim/core/engine/front_end_queue.h"
#include "sim/core/engine/run_context.h"
#include "sim/core/metrics/iteration_record.h"
#include "sim/core/serving/router.h"

namespace infergrid {

class Autoscaler final : public IterationSink {
 public:
  // Sets the first min_replicas routable; observes every iteration of `ctx` (utilization).
  Autoscaler(RunContext& ctx, const FrontEndQueues& front_ends);
  Autoscaler(const Autoscaler&) = delete;
  Autoscaler& operator=(const Autoscaler&) = delete;

  // The controller actor's body; its actor is a daemon (the run ends when the replicas' work does).
  void Run();
  // The rank the router picks among the routable replicas.
  int Route(Router& router);
  // A worker with nothing to do: a draining replica turns off at `now`.
  void NoteIdle(int rank, double now);
  void OnIteration(const IterationRecord& record) override;
  // The fleet's figures, integrated to `end_s` (the run's end).
  AutoscaleResult Finish(double end_s);

 private:
  enum class State { kOff, kStarting, kRoutable, kDraining };
  void Decide(double now);
  double Metric() const;
  void ScaleUp(int count, double now);
  void ScaleDown(int count, double now);
  void SetState(int rank, State state, double now);
  void Integrate(double now);
  int Count(State state) const;

  RunContext& ctx_;
  const FrontEndQueues& front_ends_;
  const AutoscaleConfig& config_;
  ScaleDownWindow window_;
  std::vector<State> state_;
  std::vector<double> ready_s_;  // starting: when it becomes routable
  std::vector<int64_t> turned_on_;  // the order replicas were turned on in (newest highest)
  int64_t turn_ons_ = 0;
  std::vector<double> busy_s_;  // per rank, iterations ended since the last decision
  std::vector<Replica*> routable_;  // rank order
  std::vector<int> routable_ranks_;
  // The integrals: replicas on (starting, routable or draining) and routable, over time.
  double last_s_ = 0;
  double on_seconds_ = 0;
  double routable_seconds_ = 0;
  int on_ = 0;
  AutoscaleResult result_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_ENGINE_AUTOSCALER_H_
