// A histogram of positive durations with constant relative resolution (1/1024: each power-of-
// two octave is split into 1,024 buckets), for distributions too large to keep sample by
// sample (inter-token latencies: one per output token of the run). Count, sum, min and max
// are exact; percentiles are read from bucket centres (at most 0.05% off the exact sample),
// never above the maximum or below the minimum.
// Fixed 1 MiB of memory; deterministic.
#ifndef INFERGRID_SIM_CORE_METRICS_LOG_HISTOGRAM_H_
#define INFERGRID_SIM_CORE_METRICS_LOG_HISTOGRAM_H_

#include <cstdint>
#include <vector>

namespace infergrid {

class LogHistogram {
 public:
  LogHistogram();
  void Add(double value, int64_t count = 1);
  // Exactly `count` calls of Add(value) (the sum too, added one by one), in one bucket update.
  void AddRepeated(double value, int64_t count);
  int64_t count() const { return count_; }
  double sum() const { return sum_; }
  double max() const { return max_; }
  double min() const { return min_; }
  double mean() const { return count_ > 0 ? sum_ / static_cast<double>(count_) : 0; }
  // The q-quantile (0 <= q <= 1), linearly interpolated between the two nearest ranks as
  // LatencyStats does for exact samples; 0 when empty.
  double Quantile(double q) const;

 private:
  double ValueAt(int64_t rank) const;  // the value of the rank-th smallest sample (0-based)

  std::vector<int64_t> buckets_;
  int64_t count_ = 0;
  double sum_ = 0;
  double max_ = 0;
  double min_ = 0;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_METRICS_LOG_HISTOGRAM_H_
