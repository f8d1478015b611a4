#include "sim/output/iterations_csv.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

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
  absl::StrAppendFormat(&buffer_, "%d,%d,%.9f,%.9f,%.9f,%.9f,%d,%d,%d,%d,%d,%d,%.6f,%d,%d,%d,%d,%d,%d,%s,%.6f,%.6f\n",
                        r.replica, r.index, r.start_s, r.end_s, r.compute_s, r.communication_s,
                        r.batch_size(), r.prefill_seqs, r.prefill_tokens, r.decode_seqs,
                        r.padding_seqs, r.kv_blocks_used, kv_fraction, r.waiting, r.running,
                        r.swapped, r.preempted, r.swap_out_blocks, r.swap_in_blocks,
                        ResourceName(r.binding), r.hbm_fraction, r.compute_fraction);
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
