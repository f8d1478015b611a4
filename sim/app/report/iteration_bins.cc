#include "sim/app/report/iteration_bins.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "sim/app/report/csv_columns.h"

namespace infergrid::report {
namespace {

// The numeric columns read, in this order.
enum Column {
  kStart,
  kEnd,
  kHost,
  kHostHidden,
  kBatch,
  kPrefillTokens,
  kDecodeSeqs,
  kKvFraction,
  kWaiting,
  kRunning,
  kSwapped,
  kPreempted,
  kHbmFraction,
  kComputeFraction,
};
const CsvColumnNames& Columns() {
  static const CsvColumnNames* names = new CsvColumnNames{
      {"start_s", "end_s", "host_s", "host_hidden_s", "batch_size", "prefill_tokens", "decode_seqs", "kv_fraction",
       "waiting", "running", "swapped", "preempted", "hbm_fraction", "compute_fraction"},
      {"binding"}};
  return *names;
}

// A value that must be there; NaN (an empty field) is replaced by 0 and reported.
double Required(const CsvRow& row, Column column, bool* missing) {
  const double value = row.numbers[column];
  if (std::isnan(value)) {
    *missing = true;
    return 0;
  }
  return value;
}

}  // namespace

size_t IterationBins::ResourceIndex(const std::string& name) {
  auto it = std::find(resources_.begin(), resources_.end(), name);
  if (it != resources_.end()) return static_cast<size_t>(it - resources_.begin());
  resources_.push_back(name);
  for (IterationBin& bin : bins_) bin.busy_by_resource_s.push_back(0);
  return resources_.size() - 1;
}

absl::StatusOr<IterationBins> IterationBins::Read(const std::string& path, double span_s, int bins) {
  IterationBins result{TimeAxis(span_s, bins)};
  int64_t empty_line = 0;
  absl::Status status = ReadCsvColumns(path, Columns(), [&](const CsvRow& row) {
    bool missing = false;
    const double start = Required(row, kStart, &missing);
    const size_t resource = result.ResourceIndex(std::string(row.texts[0]));
    const double duration = std::max(0.0, Required(row, kEnd, &missing) - start);
    IterationBin& bin = result.bins_[static_cast<size_t>(result.axis_.BinOf(start))];
    bin.waiting.Add(Required(row, kWaiting, &missing));
    bin.running.Add(Required(row, kRunning, &missing));
    bin.swapped.Add(Required(row, kSwapped, &missing));
    bin.kv_fraction.Add(Required(row, kKvFraction, &missing));
    bin.batch_size.Add(Required(row, kBatch, &missing));
    bin.new_tokens.Add(Required(row, kPrefillTokens, &missing) + Required(row, kDecodeSeqs, &missing));
    const double preempted = Required(row, kPreempted, &missing);
    bin.preempted += static_cast<int64_t>(preempted);
    bin.busy_s += duration;
    bin.hbm_fraction_s += Required(row, kHbmFraction, &missing) * duration;
    bin.compute_fraction_s += Required(row, kComputeFraction, &missing) * duration;
    bin.host_s += Required(row, kHost, &missing);
    bin.host_hidden_s += Required(row, kHostHidden, &missing);
    bin.busy_by_resource_s[resource] += duration;
    result.preemptions_ += static_cast<int64_t>(preempted);
    ++result.iterations_;
    if (missing && empty_line == 0) empty_line = row.line;
  });
  if (!status.ok()) return status;
  if (empty_line > 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":", empty_line,
                                                   ": an empty field where "
                                                   "iterations.csv always has a number"));
  }
  return result;
}

}  // namespace infergrid::report
