#include "sim/output/iterations_csv.h"

#include "absl/strings/str_cat.h"
#include "sim/output/csv_append.h"

namespace infergrid {

absl::StatusOr<std::unique_ptr<IterationsCsv>> IterationsCsv::Open(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return absl::UnavailableError(absl::StrCat(path, ": cannot open for writing"));
  std::unique_ptr<IterationsCsv> csv(new IterationsCsv(file, path));
  csv->buffer_ =
      "replica,iteration,start_s,end_s,compute_s,communication_s,batch_size,prefill_seqs,"
      "prefill_tokens,decode_seqs,padding_seqs,kv_blocks_used,kv_fraction,waiting,running,swapped,"
      "preempted,swap_out_blocks,swap_in_blocks,binding,hbm_fraction,compute_fraction\n";
  return csv;
}

IterationsCsv::~IterationsCsv() {
  if (file_ != nullptr) std::fclose(file_);
}

void IterationsCsv::OnIteration(const IterationRecord& r) {
  const double kv_fraction = r.kv_blocks_total > 0 ? static_cast<double>(r.kv_blocks_used) /
                                                          static_cast<double>(r.kv_blocks_total) : 0;
  // Same text as printf("%d,%d,%.9f,%.9f,%.9f,%.9f,%d x 6,%.6f,%d x 6,%s,%.6f,%.6f\n").
  std::string& b = buffer_;
  AppendInt(&b, r.replica);
  AppendInt(&b, r.index);
  AppendFixed(&b, r.start_s, 9);
  AppendFixed(&b, r.end_s, 9);
  AppendFixed(&b, r.compute_s, 9);
  AppendFixed(&b, r.communication_s, 9);
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
  AppendFixed(&b, r.compute_fraction, 6, '\n');
  if (buffer_.size() > (1 << 20)) Flush();
}

void IterationsCsv::Flush() {
  if (file_ == nullptr) return;
  ok_ = ok_ && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) == buffer_.size();
  buffer_.clear();
}

absl::Status IterationsCsv::Close() {
  Flush();
  if (file_ != nullptr) {
    ok_ = (std::fclose(file_) == 0) && ok_;
    file_ = nullptr;
  }
  if (!ok_) return absl::UnavailableError(absl::StrCat(path_, ": write failed"));
  return absl::OkStatus();
}

}  // namespace infergrid
