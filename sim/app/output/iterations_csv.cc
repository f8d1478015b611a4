#include "sim/app/output/iterations_csv.h"

#include <utility>

#include "sim/app/output/csv_append.h"

namespace infergrid {

absl::StatusOr<std::unique_ptr<IterationsCsv>> IterationsCsv::Open(const std::string& path, bool speculative,
                                                                   Compression compression) {
  absl::StatusOr<BufferedFile> file = BufferedFile::Open(path, compression);
  if (!file.ok()) return file.status();
  std::unique_ptr<IterationsCsv> csv(new IterationsCsv(std::move(*file), speculative));
  csv->file_.Append(
      "replica,iteration,start_s,end_s,compute_s,communication_s,host_s,host_hidden_s,batch_size,prefill_seqs,"
      "prefill_tokens,decode_seqs,padding_seqs,kv_blocks_used,kv_fraction,waiting,running,swapped,"
      "preempted,swap_out_blocks,swap_in_blocks,binding,hbm_fraction,compute_fraction");
  csv->file_.Append(speculative ? ",draft_s,speculative_seqs,draft_tokens,accepted_tokens,emitted_tokens\n" : "\n");
  return csv;
}

void IterationsCsv::OnIteration(const IterationRecord& r) {
  const double kv_fraction =
      r.kv_blocks_total > 0 ? static_cast<double>(r.kv_blocks_used) / static_cast<double>(r.kv_blocks_total) : 0;
  // Same text as printf("%d,%d,%.9f x 6,%d x 6,%.6f,%d x 6,%s,%.6f,%.6f\n"). The columns that
  // mostly repeat the row before's value reuse its text (FixedMemo); a row's start is the same
  // double as the one before's end, so the two share one.
  {  // the row is complete (trimmed) before the buffer may be flushed
    TextRow row(file_.buffer());
    row.Int(r.replica);
    row.Int(r.index);
    row.Fixed(r.start_s, 9, time_memo_);
    row.Fixed(r.end_s, 9, time_memo_);
    row.Fixed(r.compute_s, 9);
    row.Fixed(r.communication_s, 9, communication_memo_);
    row.Fixed(r.host_s, 9, host_memo_);
    row.Fixed(r.host_hidden_s, 9, host_hidden_memo_);
    row.Int(r.batch_size());
    row.Int(r.prefill_seqs);
    row.Int(r.prefill_tokens);
    row.Int(r.decode_seqs);
    row.Int(r.padding_seqs);
    row.Int(r.kv_blocks_used);
    row.Fixed(kv_fraction, 6, kv_fraction_memo_);
    row.Int(r.waiting);
    row.Int(r.running);
    row.Int(r.swapped);
    row.Int(r.preempted);
    row.Int(r.swap_out_blocks);
    row.Int(r.swap_in_blocks);
    row.Text(ResourceName(r.binding));
    row.Fixed(r.hbm_fraction, 6);
    if (!speculative_) {
      row.Fixed(r.compute_fraction, 6, compute_fraction_memo_, '\n');
    } else {
      row.Fixed(r.compute_fraction, 6, compute_fraction_memo_);
      row.Fixed(r.draft_s, 9, draft_memo_);
      row.Int(r.speculative_seqs);
      row.Int(r.draft_tokens);
      row.Int(r.accepted_tokens);
      row.Int(r.emitted_tokens, '\n');
    }
  }
  file_.FlushIfFull();
}

absl::Status IterationsCsv::Close() { return file_.Close(); }

}  // namespace infergrid
