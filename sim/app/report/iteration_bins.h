// iterations.csv reduced to time bins (time_bins.h) while it is read, for the charts of queues,
// KV blocks, batches, tokens and resources over time: a run has up to millions of iterations, a
// chart draws a few hundred points. An iteration falls in the bin holding its start (queue and
// KV columns are the state after that iteration's scheduling). Queues and KV use are pooled
// over replicas (each iteration is one sample of its replica's state); time-based figures are
// sums of iteration durations, so a bin's fractions are weighted by time, not by count.
#ifndef INFERGRID_SIM_APP_REPORT_ITERATION_BINS_H_
#define INFERGRID_SIM_APP_REPORT_ITERATION_BINS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/app/report/time_bins.h"

namespace infergrid::report {

struct IterationBin {
  BinStat waiting;  // requests, per replica
  BinStat running;
  BinStat swapped;
  BinStat kv_fraction;  // of the replica's blocks
  BinStat batch_size;  // sequences
  BinStat new_tokens;  // prefill tokens + decode sequences
  int64_t preempted = 0;
  double busy_s = 0;  // iteration durations (end_s - start_s), summed
  double hbm_fraction_s = 0;  // hbm_fraction x duration, summed
  double compute_fraction_s = 0;  // compute_fraction x duration, summed
  double host_s = 0;  // host time the GPU waited for
  double host_hidden_s = 0;  // host time under the GPU's
  std::vector<double> busy_by_resource_s;  // indexed like IterationBins::resources()
};

class IterationBins {
 public:
  explicit IterationBins(TimeAxis axis) : axis_(axis), bins_(static_cast<size_t>(axis.bins())) {}

  // Reads `path` (iterations.csv) into bins over [0, span_s].
  static absl::StatusOr<IterationBins> Read(const std::string& path, double span_s, int bins);

  const TimeAxis& axis() const { return axis_; }
  const std::vector<IterationBin>& bins() const { return bins_; }
  // The binding resources seen, in the order first seen.
  const std::vector<std::string>& resources() const { return resources_; }
  int64_t iterations() const { return iterations_; }
  int64_t preemptions() const { return preemptions_; }

 private:
  size_t ResourceIndex(const std::string& name);

  TimeAxis axis_;
  std::vector<IterationBin> bins_;
  std::vector<std::string> resources_;
  int64_t iterations_ = 0;
  int64_t preemptions_ = 0;
};

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_ITERATION_BINS_H_
