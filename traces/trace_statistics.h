// Statistics of a request stream, computed in one streaming pass with memory bounded by the
// number of distinct token counts, the distinct prefix blocks, and the arrivals inside one
// 60 s window: rows, span, mean and peak rates, inter-arrival CV, length percentiles, and
// prefix-block reuse where the trace has hash ids.
#ifndef INFERGRID_TRACES_TRACE_STATISTICS_H_
#define INFERGRID_TRACES_TRACE_STATISTICS_H_

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "traces/request.h"
#include "traces/trace_reader.h"
#include "traces/trace_stats.pb.h"

namespace infergrid {

// Exact distribution of integer values (token counts): counts per distinct value.
class ValueHistogram {
 public:
  void Add(int64_t value) {
    ++counts_[value];
    ++n_;
    sum_ += static_cast<double>(value);
  }
  int64_t count() const { return n_; }
  double mean() const { return n_ == 0 ? 0 : sum_ / static_cast<double>(n_); }
  // Nearest-rank quantiles: the smallest value with at least ceil(p * n) values at or below it.
  std::vector<int64_t> Quantiles(const std::vector<double>& probabilities) const;
  TokenStats Summarize() const;

 private:
  absl::flat_hash_map<int64_t, int64_t> counts_;
  int64_t n_ = 0;
  double sum_ = 0;
};

// Nearest-rank quantile of a sorted vector.
double NearestRankQuantile(const std::vector<double>& sorted, double p);

class TraceStatsAccumulator {
 public:
  void Add(const Request& request);
  // `read` supplies the skipped-row counts and warnings of the reader.
  TraceStats Finish(const TraceReadStats& read) const;

 private:
  void Window(double t, double width, std::deque<double>* window, int64_t* peak, double* start);

  int64_t rows_ = 0;
  double first_ = 0;
  double last_ = 0;
  bool timestamps_ = false;
  double gap_sum_ = 0;
  double gap_sum_sq_ = 0;
  std::deque<double> window_1s_, window_60s_;
  int64_t peak_1s_ = 0, peak_60s_ = 0;
  double peak_1s_start_ = 0, peak_60s_start_ = 0;
  ValueHistogram input_, output_;
  int64_t with_blocks_ = 0;
  int64_t blocks_ = 0;
  absl::flat_hash_set<uint64_t> seen_blocks_;
};

// Reads the trace at `path` once and summarizes it.
absl::StatusOr<TraceStats> ComputeTraceStats(const std::string& path, const TraceOptions& options);

}  // namespace infergrid

#endif  // INFERGRID_TRACES_TRACE_STATISTICS_H_
