// Run-to-run variation of a real server, seeded: each iteration's time is multiplied by a
// lognormal factor of mean 1 (kernel timing, clocks, the host's scheduling), and each request
// leaves the client a random moment after the time its schedule says (the client's event loop).
// Without it identical requests sent together stay in lockstep for the whole run; with it
// they drift apart as on hardware. The same seed gives the same draws, so the same bytes.
// Sizes and sources: docs/engines.md#run-to-run-variation.
#ifndef INFERGRID_SIM_CORE_SERVING_RUN_NOISE_H_
#define INFERGRID_SIM_CORE_SERVING_RUN_NOISE_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "traces/random_streams.h"

namespace infergrid {

struct RunNoiseSpec {
  double iteration_sigma = 0;  // std of log(iteration time factor); 0: off
  double send_jitter_s = 0;  // mean of the client's exponential send delay; 0: off
  uint64_t seed = 0;
  bool enabled() const { return iteration_sigma > 0 || send_jitter_s > 0; }
};

// One stream of draws (traces/random_streams.h: the same numbers with any compiler); streams for
// different purposes ("client", "replica0", ...) are independent, so adding a replica does not
// shift another's draws.
class RunNoise {
 public:
  RunNoise(const RunNoiseSpec& spec, absl::string_view stream);
  // exp(sigma Z - sigma^2 / 2), Z standard normal: mean 1.
  double IterationFactor();
  double SendDelay();

 private:
  RunNoiseSpec spec_;
  RandomStream random_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SERVING_RUN_NOISE_H_
