// The report's rule for drawing a series too long to draw point by point: time is cut into a
// fixed number of equal bins over the run, and each bin is drawn as the minimum, mean and
// maximum of the samples that fall in it. Every chart drawn this way states the bin width in its
// caption (BinRule), so the reduction is never silent.
#ifndef INFERGRID_SIM_APP_REPORT_TIME_BINS_H_
#define INFERGRID_SIM_APP_REPORT_TIME_BINS_H_

#include <cstdint>
#include <string>

namespace infergrid::report {

// Bins per time series: enough to show minutes-long phases of a day-long trace, few enough that
// a page with a dozen charts stays small and draws in a second.
inline constexpr int kTimeBins = 400;

// Min, mean and max of the samples in one bin.
struct BinStat {
  int64_t count = 0;
  double min = 0;
  double max = 0;
  double sum = 0;

  void Add(double value) {
    if (count == 0 || value < min) min = value;
    if (count == 0 || value > max) max = value;
    sum += value;
    ++count;
  }
  double mean() const { return count > 0 ? sum / static_cast<double>(count) : 0; }
};

// `bins` equal bins over [0, span_s]: which bin a time falls in (times outside are clamped to
// the first or last bin) and where a bin starts.
class TimeAxis {
 public:
  TimeAxis(double span_s, int bins);
  int bins() const { return bins_; }
  double width_s() const { return width_s_; }
  int BinOf(double t_s) const;
  double Start(int bin) const { return width_s_ * bin; }
  double Middle(int bin) const { return width_s_ * (bin + 0.5); }

 private:
  int bins_;
  double width_s_;
};

// "each point is one bin of 2.6 s (the run in 400 bins): line = mean, band = min to max of
// <what>", for a caption.
std::string BinRule(const TimeAxis& axis, const std::string& what);

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_TIME_BINS_H_
