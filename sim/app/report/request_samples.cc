#include "sim/app/report/request_samples.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "sim/app/report/csv_columns.h"

namespace infergrid::report {

absl::StatusOr<RequestSamples> RequestSamples::Read(const std::string& path) {
  enum Column { kArrival, kTtft, kTpot, kE2e };
  static const CsvColumnNames* names = new CsvColumnNames{{"arrival_s", "ttft_s", "tpot_s", "e2e_s"}, {"status"}};
  RequestSamples samples;
  int64_t bad_line = 0;
  std::string bad_what;
  absl::Status status = ReadCsvColumns(path, *names, [&](const CsvRow& row) {
    ++samples.rows;
    if (row.texts[0] != "finished") {
      ++samples.not_finished;
      return;
    }
    const double arrival = row.numbers[kArrival], ttft = row.numbers[kTtft], e2e = row.numbers[kE2e];
    const double tpot = row.numbers[kTpot];
    // As simulate writes them: times in [0, 1e15] s, and the whole request no shorter than
    // its first token. A cut or edited row is named, not drawn.
    const auto out_of_range = [](double v) { return !(v >= 0 && v <= 1e15); };
    std::string what;
    if (std::isnan(arrival) || std::isnan(ttft) || std::isnan(e2e)) {
      what = "a finished request without arrival_s, ttft_s or e2e_s";
    } else if (out_of_range(arrival) || out_of_range(ttft) || out_of_range(e2e) ||
               (!std::isnan(tpot) && out_of_range(tpot))) {
      what = absl::StrCat("a time outside [0, 1e15] s (arrival_s ", arrival, ", ttft_s ", ttft, ", tpot_s ", tpot,
                          ", e2e_s ", e2e, ")");
    } else if (e2e < ttft) {
      what = absl::StrCat("e2e_s ", e2e, " is shorter than ttft_s ", ttft);
    }
    if (!what.empty()) {
      if (bad_line == 0) {
        bad_line = row.line;
        bad_what = what;
      }
      return;
    }
    samples.arrival_s.push_back(arrival);
    samples.ttft_s.push_back(ttft);
    samples.e2e_s.push_back(e2e);
    if (!std::isnan(row.numbers[kTpot])) samples.tpot_s.push_back(row.numbers[kTpot]);
  });
  if (!status.ok()) return status;
  if (bad_line > 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":", bad_line, ": ", bad_what));
  }
  return samples;
}

}  // namespace infergrid::report
