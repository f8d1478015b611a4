// The autoscaler's arithmetic, without SimGrid (the controller actor is autoscaler.h): the
// target it scales by, Kubernetes HPA's rule for the replicas it wants, the scale-down
// stabilisation window and the default start-up time of a new replica.
//
// The rule (HPA's, without its 10% tolerance): desired = ceil(active x metric / target), clamped
// to [min, max], where metric is the mean over the active (routable) replicas. A scale-down
// follows the highest desired count of the decisions within the last scale-down delay, so the
// fleet shrinks only when every decision of that window wanted fewer replicas.
#ifndef INFERGRID_SIM_CORE_ENGINE_AUTOSCALE_POLICY_H_
#define INFERGRID_SIM_CORE_ENGINE_AUTOSCALE_POLICY_H_

#include <deque>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/enum_names.h"

namespace infergrid {

// What the autoscaler reads at each decision, per active replica:
//   utilization: the engine-busy fraction over the last interval (the summed durations of the
//                iterations that ended in it, over the interval);
//   queue:       requests waiting, running or swapped at the decision.
enum class AutoscaleMetric { kUtilization, kQueue };
inline constexpr EnumName<AutoscaleMetric> kAutoscaleMetricNames[] = {{AutoscaleMetric::kUtilization, "utilization"},
                                                                      {AutoscaleMetric::kQueue, "queue"}};

struct AutoscaleTarget {
  AutoscaleMetric metric = AutoscaleMetric::kUtilization;
  double target = 0;
};

// Parses METRIC:TARGET (utilization:0.6, queue:8): utilization's target in (0, 1], queue's > 0.
absl::StatusOr<AutoscaleTarget> ParseAutoscaleTarget(absl::string_view text);

// The autoscaler's settings (EngineConfig::autoscale); disabled unless `enabled`.
struct AutoscaleConfig {
  bool enabled = false;
  AutoscaleTarget target;
  int min_replicas = 1;  // active at time 0; the maximum is the fleet's replicas
  double interval_s = 30;  // between decisions
  double scale_down_delay_s = 300;  // HPA's scale-down stabilisation window
  double startup_s = 0;  // from a decision to scale up to the new replica taking requests
};

// HPA's rule: ceil(active x metric / target) within [min_replicas, max_replicas]. A product a
// rounding error above an integer (0.6 x 2 / 0.6) counts as that integer.
int DesiredReplicas(int active, double metric, double target, int min_replicas, int max_replicas);

// Scale-down stabilisation: Add records a decision's desired count at `now` and returns the
// highest desired count among the decisions in (now - delay, now], the count a scale-down may
// go down to.
class ScaleDownWindow {
 public:
  explicit ScaleDownWindow(double delay_s) : delay_s_(delay_s) {}
  int Add(double now, int desired);

 private:
  double delay_s_;
  std::deque<std::pair<double, int>> decisions_;  // (time, desired), oldest first
};

// The start-up time assumed when --replica-startup is not given: the weights read from storage
// at kWeightLoadBytesPerS (each GPU reads its shard in parallel) plus kEngineStartS for the
// engine's start (process and NCCL start, the memory-profiling pass, CUDA-graph capture).
inline constexpr double kWeightLoadBytesPerS = 2e9;
inline constexpr double kEngineStartS = 30;
double DefaultReplicaStartup(double weight_bytes_per_gpu);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_ENGINE_AUTOSCALE_POLICY_H_
