#include "sim/app/bench/request_schedule.h"

#include <algorithm>
#include <cmath>

#include "sim/app/bench/numpy_random.h"

namespace infergrid::bench {

std::vector<double> RequestSendTimes(int64_t count, double request_rate, double burstiness, uint32_t seed) {
  std::vector<double> delays(static_cast<size_t>(count), 0.0);
  if (count == 0 || std::isinf(request_rate)) return delays;
  if (std::isinf(burstiness)) {
    for (double& d : delays) d = 1.0 / request_rate;
  } else {
    LegacyRandomState random(seed);
    const double theta = 1.0 / (request_rate * burstiness);
    for (double& d : delays) d = random.Gamma(burstiness, theta);
  }
  for (size_t i = 1; i < delays.size(); ++i) delays[i] += delays[i - 1];
  if (delays.back() != 0) {
    const double target_total_delay_s = static_cast<double>(count) / request_rate;
    const double normalize_factor = target_total_delay_s / delays.back();
    for (double& d : delays) d = d * normalize_factor;
  }
  return delays;
}

std::vector<double> RampUpSendTimes(int64_t count, bool exponential, double start_rps, double end_rps,
                                    double burstiness, uint32_t seed) {
  std::vector<double> delays(static_cast<size_t>(count), 0.0);
  LegacyRandomState random(seed);
  const double steps = static_cast<double>(std::max<int64_t>(count - 1, 1));
  for (size_t i = 0; i < delays.size(); ++i) {
    const double progress = static_cast<double>(i) / steps;
    const double rate = exponential ? start_rps * std::pow(end_rps / start_rps, progress)
                                    : start_rps + (end_rps - start_rps) * progress;
    delays[i] = std::isinf(burstiness) ? 1.0 / rate : random.Gamma(burstiness, 1.0 / (rate * burstiness));
  }
  for (size_t i = 1; i < delays.size(); ++i) delays[i] += delays[i - 1];
  return delays;
}

}  // namespace infergrid::bench
