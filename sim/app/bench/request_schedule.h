// When `vllm bench serve` sends each request (vllm/benchmarks/serve.py get_request): with
// --request-rate=inf all at once; otherwise each interval drawn from a gamma distribution of
// shape --burstiness and mean 1/rate (a Poisson process at burstiness 1) from
// np.random.seed(--seed), accumulated from the benchmark's start (the first request waits its
// own interval), then scaled so that the last request goes out at exactly n / rate; an
// infinite burstiness gives evenly spaced requests. Seconds from the benchmark's start.
#ifndef INFERGRID_SIM_APP_BENCH_REQUEST_SCHEDULE_H_
#define INFERGRID_SIM_APP_BENCH_REQUEST_SCHEDULE_H_

#include <cstdint>
#include <vector>

namespace infergrid::bench {

std::vector<double> RequestSendTimes(int64_t count, double request_rate, double burstiness, uint32_t seed);

// vLLM's ramp-up (--ramp-up-strategy): request i of n is sent at its own rate, progress
// p = i / max(n - 1, 1) of the way from start_rps to end_rps, linearly (start + (end - start) p)
// or exponentially (start (end / start)^p); its interval is drawn as above at that rate, and the
// accumulated times are not rescaled. start_rps > 0.
std::vector<double> RampUpSendTimes(int64_t count, bool exponential, double start_rps, double end_rps,
                                    double burstiness, uint32_t seed);

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_REQUEST_SCHEDULE_H_
