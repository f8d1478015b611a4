// Any trace InferGrid reads, as a benchmark dataset: its first --num-prompts requests in file
// order, with their token counts as logged (what the server processed) and their arrival
// times for --self-timed runs.
#include <vector>

#include "absl/status/status.h"
#include "sim/app/bench/bench_dataset.h"
#include "traces/trace_reader.h"

namespace infergrid::bench {

absl::StatusOr<std::vector<BenchRequest>> SampleTrace(const DatasetOptions& o) {
  TraceOptions options;
  options.format = o.trace_format;
  absl::StatusOr<std::vector<Request>> read = ReadTraceRequests(o.path, options, o.num_prompts);
  if (!read.ok()) return read.status();
  std::vector<BenchRequest> requests;
  for (const Request& request : *read) {
    BenchRequest row;
    row.prompt_len = request.input_tokens;
    row.output_len = request.output_tokens;
    row.timestamp_s = request.arrival_s;
    requests.push_back(row);
  }
  return requests;
}

}  // namespace infergrid::bench
