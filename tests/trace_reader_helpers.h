// Helpers shared by the trace reader's and writer's test files (the traces_test binary): every
// request of a trace read through OpenTrace, with the reader's counts.
#ifndef INFERGRID_TESTS_TRACE_READER_HELPERS_H_
#define INFERGRID_TESTS_TRACE_READER_HELPERS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "traces/trace_reader.h"

namespace infergrid {

struct ReadResult {
  std::vector<Request> requests;
  TraceReadStats stats;
};

inline absl::StatusOr<ReadResult> ReadAllRequests(const std::string& path, TraceOptions options = {}) {
  ReadResult result;
  absl::StatusOr<std::unique_ptr<RequestSource>> source = OpenTrace(path, options, &result.stats);
  if (!source.ok()) return source.status();
  Request request;
  while (true) {
    absl::StatusOr<bool> more = (*source)->Next(&request);
    if (!more.ok()) return more.status();
    if (!*more) break;
    result.requests.push_back(request);
  }
  return result;
}

}  // namespace infergrid

#endif  // INFERGRID_TESTS_TRACE_READER_HELPERS_H_
