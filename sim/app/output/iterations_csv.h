// iterations.csv, streamed as the run goes (it can hold millions of rows): one row per
// iteration of each replica, in completion order. Columns:
//   replica, iteration, start_s, end_s, compute_s, communication_s, batch_size, prefill_seqs,
//   prefill_tokens, decode_seqs, padding_seqs, kv_blocks_used, kv_fraction, waiting, running,
//   swapped, preempted, swap_out_blocks, swap_in_blocks, binding, hbm_fraction,
//   compute_fraction
// and, with speculative decoding only: draft_s, speculative_seqs, draft_tokens, accepted_tokens,
// emitted_tokens.
// Queue and KV columns are the state after the iteration's scheduling decisions.
#ifndef INFERGRID_SIM_APP_OUTPUT_ITERATIONS_CSV_H_
#define INFERGRID_SIM_APP_OUTPUT_ITERATIONS_CSV_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "sim/core/metrics/iteration_record.h"
#include "sim/app/output/buffered_file.h"
#include "sim/app/output/csv_append.h"

namespace infergrid {

class IterationsCsv final : public IterationSink {
 public:
  // Opens `path` for writing (the caller's temporary name); `speculative` adds the speculative
  // decoding columns; kZstd writes the same text as one zstd frame (iterations.csv.zst).
  static absl::StatusOr<std::unique_ptr<IterationsCsv>> Open(const std::string& path, bool speculative = false,
                                                             Compression compression = Compression::kNone);
  void OnIteration(const IterationRecord& r) override;
  // Flushes and closes; reports any write error.
  absl::Status Close();

 private:
  IterationsCsv(BufferedFile file, bool speculative) : file_(std::move(file)), speculative_(speculative) {}

  BufferedFile file_;
  bool speculative_;
  // The last text of each column that often repeats (start and end share one).
  FixedMemo time_memo_, communication_memo_, host_memo_, host_hidden_memo_, kv_fraction_memo_, compute_fraction_memo_,
      draft_memo_;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_OUTPUT_ITERATIONS_CSV_H_
