#include "sim/core/serving/iteration_duration.h"

#include <algorithm>

namespace infergrid {

double RingBytes(int64_t new_tokens, const CollectiveTiming& c) {
  const int tp = c.tensor_parallel;
  if (tp < 2) return 0;
  const double message = static_cast<double>(new_tokens) * static_cast<double>(c.hidden_size) * c.activation_bytes;
  return 2.0 * c.num_layers * 2.0 * (tp - 1) / tp * message +
         static_cast<double>(new_tokens) * c.all_to_all_bytes_per_token;
}

IterationDuration DecideIterationDuration(IterationCost& cost, const IterationVariation& variation,
                                          int64_t new_tokens, const CollectiveTiming& collectives) {
  if (variation.noise_factor != 1) {
    cost.duration_s *= variation.noise_factor;
    cost.network_s *= variation.noise_factor;
    cost.host_s *= variation.noise_factor;
  }
  if (variation.front_end_work_s != 0) {
    // A front end in the engine's own thread ran between the steps: the step starts after it.
    cost.duration_s += variation.front_end_work_s;
    cost.host_s += variation.front_end_work_s;
  }
  IterationDuration d;
  d.step_s = cost.duration_s;
  d.ring_bytes = RingBytes(new_tokens, collectives);
  d.ring_s = d.ring_bytes > 0 ? d.ring_bytes / collectives.ring_bytes_per_s : 0;
  if (cost.network_s > 0) {
    d.latency_s = std::max(0.0, cost.network_s - d.ring_s);
  } else if (collectives.tensor_parallel > 1) {
    d.latency_s = 2.0 * collectives.num_layers * collectives.allreduce_latency_s;
  }
  d.compute_s = cost.duration_s - cost.network_s + d.latency_s;
  return d;
}

}  // namespace infergrid
