// Writes requests in InferGrid's own trace format (README "Workloads and trace formats"): a CSV
// whose header is arrival_s,input_tokens,output_tokens,priority,session,model,log_type,
// block_hashes. Arrivals are printed as the shortest decimal that reads back to the same
// double, so a written trace reads back field for field. The file appears only when Close()
// succeeds (written to a temporary unique to the run, then renamed; a device such as /dev/null is
// written through and a symbolic link followed, base/output_file.h): a failed run leaves no half
// trace behind.
#ifndef INFERGRID_TRACES_TRACE_WRITER_H_
#define INFERGRID_TRACES_TRACE_WRITER_H_

#include <cstdio>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/output_file.h"
#include "traces/request.h"

namespace infergrid {

inline constexpr char kInfergridTraceHeader[] =
    "arrival_s,input_tokens,output_tokens,priority,session,model,log_type,block_hashes";

// Appends one row (with its newline) to *out.
void AppendInfergridRow(const Request& request, std::string* out);

class TraceWriter {
 public:
  static absl::StatusOr<std::unique_ptr<TraceWriter>> Create(const std::string& path);
  ~TraceWriter();  // without Close(): the temporary file is removed
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  absl::Status Write(const Request& request);
  absl::Status Close();
  int64_t rows() const { return rows_; }

 private:
  TraceWriter(OutputPlacement placement, std::FILE* file);
  absl::Status Flush();

  OutputPlacement placement_;
  std::FILE* file_;
  std::string buffer_;
  int64_t rows_ = 0;
};

}  // namespace infergrid

#endif  // INFERGRID_TRACES_TRACE_WRITER_H_
