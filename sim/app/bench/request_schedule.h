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

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_REQUEST_SCHEDULE_H_
