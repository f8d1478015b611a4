#include "sim/app/bench/serve_metrics.h"

#include <algorithm>
#include <cmath>

#include "sim/app/bench/numpy_stats.h"

namespace infergrid::bench {

MetricStats ComputeStats(const std::vector<double>& seconds, const std::vector<double>& percentiles) {
  MetricStats stats;
  stats.mean = NumpyMean(seconds) * 1000;
  stats.std = NumpyStd(seconds) * 1000;
  stats.median = NumpyMedian(seconds) * 1000;
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  for (const double p : percentiles) stats.percentiles.emplace_back(p, SortedPercentile(sorted, p) * 1000);
  return stats;
}

namespace {

// Peaks over the successful requests: whole-second token buckets, and a sweep-line over
// [start, end) with departures before arrivals at the same instant.
void SetPeaks(const std::vector<RequestOutcome>& outcomes, ServeMetrics* m) {
  double min_start = 0;
  double max_end = 0;
  bool any = false;
  for (const RequestOutcome& o : outcomes) {
    if (!o.success) continue;
    min_start = any ? std::min(min_start, o.start_time) : o.start_time;
    max_end = any ? std::max(max_end, o.start_time + o.latency) : o.start_time + o.latency;
    any = true;
  }
  if (any) {
    const auto buckets = static_cast<int64_t>(std::ceil(max_end - min_start)) + 1;
    std::vector<double> tokens_per_second(static_cast<size_t>(buckets), 0.0);
    std::vector<std::pair<double, int>> events;
    for (const RequestOutcome& o : outcomes) {
      if (!o.success) continue;
      double t = o.start_time + o.ttft;
      const auto add = [&](double time) {
        const auto bucket = static_cast<int64_t>(time - min_start);  // int(): toward zero
        if (bucket >= 0 && bucket < buckets) tokens_per_second[static_cast<size_t>(bucket)] += 1;
      };
      add(t);
      for (const double gap : o.itl) {
        t += gap;
        add(t);
      }
      events.emplace_back(o.start_time, 1);
      events.emplace_back(o.start_time + o.latency, -1);
    }
    std::sort(events.begin(), events.end());
    int64_t current = 0;
    for (const auto& [time, delta] : events) {
      current += delta;
      m->max_concurrent_requests = std::max(m->max_concurrent_requests, current);
    }
    m->max_output_tokens_per_s = *std::max_element(tokens_per_second.begin(), tokens_per_second.end());
  }
}

}  // namespace

ServeMetrics CalculateServeMetrics(const std::vector<RequestOutcome>& outcomes, double duration_s,
                                   const std::vector<double>& percentiles, const GoodputSlo& goodput) {
  ServeMetrics m;
  std::vector<double> itls, tpots, all_tpots, ttfts, e2els, queue_times, e2els_with_queue;
  int64_t good = 0;
  for (const RequestOutcome& o : outcomes) {
    if (!o.success) {
      m.actual_output_lens.push_back(0);
      ++m.failed;
      continue;
    }
    const int64_t output_len = o.output_tokens > 0 ? o.output_tokens : 1;
    m.actual_output_lens.push_back(output_len);
    m.total_input += o.prompt_len;
    double tpot = 0;
    if (output_len > 1) {
      tpot = (o.latency - o.ttft) / static_cast<double>(output_len - 1);
      tpots.push_back(tpot);
    }
    all_tpots.push_back(tpot);
    itls.insert(itls.end(), o.itl.begin(), o.itl.end());
    ttfts.push_back(o.ttft);
    e2els.push_back(o.latency);
    queue_times.push_back(o.queue_time);
    e2els_with_queue.push_back(o.latency + o.queue_time);
    ++m.completed;
    // An SLO in milliseconds is met when it is at least the request's value.
    const bool is_good = (!goodput.ttft_ms || *goodput.ttft_ms / 1000 >= o.ttft) &&
                         (!goodput.tpot_ms || *goodput.tpot_ms / 1000 >= tpot) &&
                         (!goodput.e2el_ms || *goodput.e2el_ms / 1000 >= o.latency);
    if (goodput.any() && is_good) ++good;
  }
  for (const int64_t n : m.actual_output_lens) m.total_output += n;

  SetPeaks(outcomes, &m);

  m.request_throughput = static_cast<double>(m.completed) / duration_s;
  m.request_goodput = static_cast<double>(good) / duration_s;
  m.output_throughput = static_cast<double>(m.total_output) / duration_s;
  m.total_token_throughput = static_cast<double>(m.total_input + m.total_output) / duration_s;
  m.ttft = ComputeStats(ttfts, percentiles);
  m.tpot = ComputeStats(tpots, percentiles);
  m.itl = ComputeStats(itls, percentiles);
  m.e2el = ComputeStats(e2els, percentiles);
  m.client_queue_time = ComputeStats(queue_times, percentiles);
  m.e2el_including_client_queue = ComputeStats(e2els_with_queue, percentiles);
  return m;
}

}  // namespace infergrid::bench
