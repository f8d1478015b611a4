// Mooncake JSON lines: one object per line, {"timestamp": ms, "input_length": n,
// "output_length": n, "hash_ids": [ids of 512-token prefix blocks]}. Parsed by a small
// hand-written scanner rather than a general JSON library: the object is flat, the scanner
// allocates nothing per row but the hash list, and it holds the contract of the one JSON reader
// (base/json_text.h) itself: nesting bounded at the same kMaxJsonDepth (a value of an unknown key
// nested deeper than 64 levels is rejected, reason too_deep) so no input can exhaust the stack,
// and numbers out of a double's range refused at their column.
// Unknown keys are skipped and listed in the warnings; a line that is valid JSON but not an
// object is a bad row (reason not_an_object).
#ifndef INFERGRID_TRACES_MOONCAKE_TRACE_SOURCE_H_
#define INFERGRID_TRACES_MOONCAKE_TRACE_SOURCE_H_

#include <memory>
#include <set>
#include <string>

#include "base/json_text.h"
#include "traces/line_trace_source.h"

namespace infergrid {

class MooncakeTraceSource final : public LineTraceSource {
 public:
  static constexpr int kMaxDepth = kMaxJsonDepth;

  // `first_line` is the line the reader returned last: the first data row.
  MooncakeTraceSource(std::unique_ptr<LineReader> reader, const TraceOptions& options, TraceReadStats* stats,
                      absl::string_view first_line);

 private:
  RowOutcome ParseRow(absl::string_view line, Request* request, RowTime* time, RowProblem* problem) override;
  void Finish(TraceReadStats* stats) override;

  std::string key_;
  std::set<std::string> unknown_keys_;
};

}  // namespace infergrid

#endif  // INFERGRID_TRACES_MOONCAKE_TRACE_SOURCE_H_
