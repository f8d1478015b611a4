// vLLM bench serve's calculate_metrics over per-request outcomes, definition for definition:
// TTFT from sending to the first chunk; TPOT = (latency - TTFT) / (output tokens - 1) for
// requests with more than one token; ITL every gap between consecutive chunks (tokens the
// engine delivers together arrive as one chunk: one gap); E2EL from sending to the last chunk;
// throughputs over the benchmark's duration; goodput counts requests within every SLO given;
// peak output tokens/s in whole-second buckets from the first send; peak concurrency by a
// sweep over [send, finish) intervals. Statistics as NumPy computes them, in milliseconds.
#ifndef INFERGRID_SIM_APP_BENCH_SERVE_METRICS_H_
#define INFERGRID_SIM_APP_BENCH_SERVE_METRICS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace infergrid::bench {

// One request as the benchmark client saw it (vLLM's RequestFuncOutput). Seconds.
struct RequestOutcome {
  bool success = false;
  int64_t prompt_len = 0;
  int64_t output_tokens = 0;
  double start_time = 0;  // sent (after the client's concurrency limit let it go)
  double queue_time = 0;  // start_time - when the schedule released it
  double ttft = 0;
  double latency = 0;
  std::vector<double> itl;
  std::string error;
};

struct GoodputSlo {  // milliseconds; unset: not part of the goodput test
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;
  std::optional<double> e2el_ms;
  bool any() const { return ttft_ms || tpot_ms || e2el_ms; }
};

struct MetricStats {  // milliseconds
  double mean = 0;
  double median = 0;
  double std = 0;
  std::vector<std::pair<double, double>> percentiles;  // (p, value)
};

struct ServeMetrics {
  int64_t completed = 0;
  int64_t failed = 0;
  int64_t total_input = 0;
  int64_t total_output = 0;
  double request_throughput = 0;
  double request_goodput = 0;
  double output_throughput = 0;
  double total_token_throughput = 0;
  MetricStats ttft, tpot, itl, e2el, client_queue_time, e2el_including_client_queue;
  double max_output_tokens_per_s = 0;
  int64_t max_concurrent_requests = 0;
  std::vector<int64_t> actual_output_lens;  // per request; 0 for a failed one
};

MetricStats ComputeStats(const std::vector<double>& seconds, const std::vector<double>& percentiles);

ServeMetrics CalculateServeMetrics(const std::vector<RequestOutcome>& outcomes, double duration_s,
                                   const std::vector<double>& percentiles, const GoodputSlo& goodput);

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_SERVE_METRICS_H_
