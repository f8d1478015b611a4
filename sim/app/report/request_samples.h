// The per-request latencies of one run, read from its requests.csv: the samples behind the
// latency CDFs and the latency-over-arrival chart. Only finished requests have latencies;
// the others are counted, so a page can say how many it leaves out.
#ifndef INFERGRID_SIM_APP_REPORT_REQUEST_SAMPLES_H_
#define INFERGRID_SIM_APP_REPORT_REQUEST_SAMPLES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace infergrid::report {

struct RequestSamples {
  // Finished requests, in file (arrival) order; seconds.
  std::vector<double> arrival_s;
  std::vector<double> ttft_s;
  std::vector<double> e2e_s;
  std::vector<double> tpot_s;  // only requests with >= 2 output tokens (others have no TPOT)
  int64_t rows = 0;  // every request in the file
  int64_t not_finished = 0;  // rejected or unfinished: no latency

  // Reads `path` (requests.csv as `simulate --out` writes it).
  static absl::StatusOr<RequestSamples> Read(const std::string& path);
};

}  // namespace infergrid::report

#endif  // INFERGRID_SIM_APP_REPORT_REQUEST_SAMPLES_H_
