#include "sim/report/request_samples.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "sim/report/csv_columns.h"

namespace infergrid::report {

absl::StatusOr<RequestSamples> RequestSamples::Read(const std::string& path) {
  enum Column { kArrival, kTtft, kTpot, kE2e };
  static const CsvColumnNames* names =
      new CsvColumnNames{{"arrival_s", "ttft_s", "tpot_s", "e2e_s"}, {"status"}};
  RequestSamples samples;
  int64_t bad_line = 0;
  absl::Status status = ReadCsvColumns(path, *names, [&](const CsvRow& row) {
    ++samples.rows;
    if (row.texts[0] != "finished") {
      ++samples.not_finished;
      return;
    }
    const double arrival = row.numbers[kArrival], ttft = row.numbers[kTtft], e2e = row.numbers[kE2e];
    if (std::isnan(arrival) || std::isnan(ttft) || std::isnan(e2e)) {
      if (bad_line == 0) bad_line = row.line;
      return;
    }
    samples.arrival_s.push_back(arrival);
    samples.ttft_s.push_back(ttft);
    samples.e2e_s.push_back(e2e);
    if (!std::isnan(row.numbers[kTpot])) samples.tpot_s.push_back(row.numbers[kTpot]);
  });
  if (!status.ok()) return status;
  if (bad_line > 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":", bad_line, ": a finished request without "
                                                   "arrival_s, ttft_s or e2e_s"));
  }
  return samples;
}

}  // namespace infergrid::report
