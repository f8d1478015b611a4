// How long an iteration lasts, decided in one place. The cost model prices a batch
// (IterationCost: GPU kernels, the engine's host phases, the collectives it measured); the run
// then varies it (a seeded noise factor on its time, docs/engines.md; the CPU time a front end
// in the engine's own thread spent between the steps) and splits it into what the replica's
// devices execute: GPU time with the fixed latency of its collectives, and the tensor-parallel
// ring's (and expert all-to-all's) bytes that travel over the ring's links, where another
// replica's transfers may contend. Replica::Schedule decides it once per scheduled iteration; the
// engine executes it as priced (one iteration), summed with the iterations it runs ahead with,
// or as the slowest rank's step under attention data parallelism.
#ifndef INFERGRID_SIM_CORE_SERVING_ITERATION_DURATION_H_
#define INFERGRID_SIM_CORE_SERVING_ITERATION_DURATION_H_

#include <algorithm>
#include <cstdint>

#include "sim/core/cost/iteration_cost.h"

namespace infergrid {

// The replica's collectives: what an iteration's new tokens send over its ring. The default
// (tensor_parallel 1) has none.
struct CollectiveTiming {
  int tensor_parallel = 1;
  double ring_bytes_per_s = 0;  // the ring's slowest hop when nothing else uses it
  int num_layers = 32;  // two all-reduces per layer
  int64_t hidden_size = 4096;
  double activation_bytes = 2;
  double all_to_all_bytes_per_token = 0;  // expert-parallel, per GPU
  double allreduce_latency_s = 0;  // per all-reduce, for a cost model without collectives
};

// The run's variation of one iteration: its noise factor (1: none) and the front end's CPU time
// that ran in the engine's thread before it (0: none).
struct IterationVariation {
  double noise_factor = 1;
  double front_end_work_s = 0;
};

struct IterationDuration {
  double step_s = 0;  // the whole iteration as priced and varied (cost.duration_s)
  double compute_s = 0;  // on the GPUs, fixed collective latency included
  double latency_s = 0;  // of compute_s, spent in collectives
  double ring_bytes = 0;  // per GPU, over the ring's links
  double ring_s = 0;  // uncontended time of ring_bytes
  // When the iteration ends if nothing contends for its links.
  double uncontended_s() const { return compute_s + ring_s; }
};

// Bytes each GPU sends over the ring for an iteration of `new_tokens` (0 without tensor
// parallelism): 2 (k - 1) / k of each all-reduce's message, two all-reduces per layer, plus the
// expert all-to-all's.
// Inline (forced below): decided once per scheduled iteration, on the engine's hot path, where an
// out-of-line call measurably cost instructions per iteration (callgrind).
[[gnu::always_inline]] inline double RingBytes(int64_t new_tokens, const CollectiveTiming& c) {
  const int tp = c.tensor_parallel;
  if (tp < 2) return 0;
  const double message = static_cast<double>(new_tokens) * static_cast<double>(c.hidden_size) * c.activation_bytes;
  return 2.0 * c.num_layers * 2.0 * (tp - 1) / tp * message +
         static_cast<double>(new_tokens) * c.all_to_all_bytes_per_token;
}

// Applies `variation` to `cost` in place (the noise scales its duration, network and host time;
// the front end's work adds to its duration and host time) and returns the iteration's
// duration on devices with `collectives`: the measured collective time (cost.network_s) beyond
// what the ring's bytes take on free links is fixed latency; a model without collectives pays
// the configured latency per all-reduce.
[[gnu::always_inline]] inline IterationDuration DecideIterationDuration(IterationCost& cost,
                                                                        const IterationVariation& variation,
                                                                        int64_t new_tokens,
                                                                        const CollectiveTiming& collectives) {
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

#endif  // INFERGRID_SIM_CORE_SERVING_ITERATION_DURATION_H_
