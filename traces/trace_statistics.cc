#include "traces/trace_statistics.h"

#include <algorithm>
#include <cmath>

namespace infergrid {

std::vector<int64_t> ValueHistogram::Quantiles(const std::vector<double>& probabilities) const {
  std::vector<std::pair<int64_t, int64_t>> sorted(counts_.begin(), counts_.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> out;
  for (double p : probabilities) {
    const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(p * static_cast<double>(n_) - 1e-9)));
    int64_t seen = 0;
    int64_t value = sorted.empty() ? 0 : sorted.back().first;
    for (const auto& [v, c] : sorted) {
      seen += c;
      if (seen >= rank) {
        value = v;
        break;
      }
    }
    out.push_back(value);
  }
  return out;
}

TokenStats ValueHistogram::Summarize() const {
  TokenStats stats;
  if (n_ == 0) return stats;
  const std::vector<int64_t> q = Quantiles({0.0, 0.5, 0.9, 0.99, 1.0});
  stats.set_mean(mean());
  stats.set_min(q[0]);
  stats.set_p50(q[1]);
  stats.set_p90(q[2]);
  stats.set_p99(q[3]);
  stats.set_max(q[4]);
  stats.set_total(static_cast<int64_t>(std::llround(sum_)));
  return stats;
}

double NearestRankQuantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto n = static_cast<double>(sorted.size());
  const auto rank = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(p * n - 1e-9)));
  return sorted[static_cast<size_t>(std::min<int64_t>(rank, static_cast<int64_t>(sorted.size())) - 1)];
}

void TraceStatsAccumulator::Window(double t, double width, std::deque<double>* window, int64_t* peak, double* start) {
  window->push_back(t);
  while (!window->empty() && window->front() <= t - width) window->pop_front();
  if (!window->empty() && static_cast<int64_t>(window->size()) > *peak) {
    *peak = static_cast<int64_t>(window->size());
    *start = window->front();
  }
}

void TraceStatsAccumulator::Add(const Request& r) {
  if (rows_ == 0) first_ = r.arrival_s;
  if (rows_ > 0) {
    const double gap = r.arrival_s - last_;
    gap_sum_ += gap;
    gap_sum_sq_ += gap * gap;
  }
  if (r.arrival_s != first_) timestamps_ = true;
  last_ = r.arrival_s;
  ++rows_;
  Window(r.arrival_s, 1.0, &window_1s_, &peak_1s_, &peak_1s_start_);
  Window(r.arrival_s, 60.0, &window_60s_, &peak_60s_, &peak_60s_start_);
  input_.Add(r.input_tokens);
  output_.Add(r.output_tokens);
  if (!r.prefix_block_hashes.empty()) {
    ++with_blocks_;
    blocks_ += static_cast<int64_t>(r.prefix_block_hashes.size());
    seen_blocks_.insert(r.prefix_block_hashes.begin(), r.prefix_block_hashes.end());
  }
}

TraceStats TraceStatsAccumulator::Finish(const TraceReadStats& read) const {
  TraceStats stats;
  stats.set_rows(rows_);
  stats.set_skipped(read.skipped);
  for (const auto& [reason, count] : read.skipped_by_reason) {
    (*stats.mutable_skipped_by_reason())[reason] = count;
  }
  for (const std::string& w : read.warnings) stats.add_warnings(w);
  stats.set_has_timestamps(timestamps_);
  if (timestamps_) {
    const double span = last_ - first_;
    stats.set_span_s(span);
    stats.set_mean_rate_per_s(span > 0 ? static_cast<double>(rows_ - 1) / span : 0);
    stats.set_peak_requests_1s(peak_1s_);
    stats.set_peak_1s_start_s(peak_1s_start_);
    stats.set_peak_requests_60s(peak_60s_);
    stats.set_peak_60s_start_s(peak_60s_start_);
    if (rows_ > 1) {
      const double n = static_cast<double>(rows_ - 1);
      const double mean = gap_sum_ / n;
      const double variance = std::max(0.0, gap_sum_sq_ / n - mean * mean);
      stats.set_interarrival_cv(mean > 0 ? std::sqrt(variance) / mean : 0);
    }
  }
  *stats.mutable_input() = input_.Summarize();
  *stats.mutable_output() = output_.Summarize();
  if (blocks_ > 0) {
    PrefixStats& prefix = *stats.mutable_prefix();
    prefix.set_requests_with_blocks(with_blocks_);
    prefix.set_blocks(blocks_);
    prefix.set_unique_blocks(static_cast<int64_t>(seen_blocks_.size()));
    prefix.set_reuse_fraction(1.0 - static_cast<double>(seen_blocks_.size()) / static_cast<double>(blocks_));
  }
  return stats;
}

absl::StatusOr<TraceStats> ComputeTraceStats(const std::string& path, const TraceOptions& options) {
  TraceReadStats read;
  absl::StatusOr<std::unique_ptr<RequestSource>> source = OpenTrace(path, options, &read);
  if (!source.ok()) return source.status();
  TraceStatsAccumulator accumulator;
  Request request;
  while (true) {
    absl::StatusOr<bool> more = (*source)->Next(&request);
    if (!more.ok()) return more.status();
    if (!*more) break;
    accumulator.Add(request);
  }
  TraceStats stats = accumulator.Finish(read);
  stats.set_path(path);
  stats.set_format(read.format);
  return stats;
}

}  // namespace infergrid
