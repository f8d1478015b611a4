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
  const double kv_fraction = r.kv_blocks_total > 0 ? static_cast<double>(r.kv_blocks_used) /
                                                          static_cast<double>(r.kv_blocks_total) : 0;
  // Same text as printf("%d,%d,%.9f x 6,%d x 6,%.6f,%d x 6,%s,%.6f,%.6f\n").
  std::string& b = *file_.buffer();
  AppendInt(&b, r.replica);
  AppendInt(&b, r.index);
  AppendFixed(&b, r.start_s, 9);
  AppendFixed(&b, r.end_s, 9);
  AppendFixed(&b, r.compute_s, 9);
  AppendFixed(&b, r.communication_s, 9);
  AppendFixed(&b, r.host_s, 9);
  AppendFixed(&b, r.host_hidden_s, 9);
  AppendInt(&b, r.batch_size());
  AppendInt(&b, r.prefill_seqs);
  AppendInt(&b, r.prefill_tokens);
  AppendInt(&b, r.decode_seqs);
  AppendInt(&b, r.padding_seqs);
  AppendInt(&b, r.kv_blocks_used);
  AppendFixed(&b, kv_fraction, 6);
  AppendInt(&b, r.waiting);
  AppendInt(&b, r.running);
  AppendInt(&b, r.swapped);
  AppendInt(&b, r.preempted);
  AppendInt(&b, r.swap_out_blocks);
  AppendInt(&b, r.swap_in_blocks);
  AppendField(&b, ResourceName(r.binding));
  AppendFixed(&b, r.hbm_fraction, 6);
  if (!speculative_) {
    AppendFixed(&b, r.compute_fraction, 6, '\n');
  } else {
    AppendFixed(&b, r.compute_fraction, 6);
    AppendFixed(&b, r.draft_s, 9);
    AppendInt(&b, r.speculative_seqs);
    AppendInt(&b, r.draft_tokens);
    AppendInt(&b, r.accepted_tokens);
    AppendInt(&b, r.emitted_tokens, '\n');
  }
  file_.FlushIfFull();
}

absl::Status IterationsCsv::Close() { return file_.Close(); }

}  // namespace infergrid
