// Readers for the published per-op and collective profiling tables of microsoft/vidur
// (../shared/data/measurements/*/..._mlp_ops.csv, dgx_all_reduce.csv): plain comma-separated
// numbers with a header row. Times in those files are milliseconds; everything returned here is
// in seconds. Errors name the file and line ("file:12: ...").
#ifndef INFERGRID_CALIBRATION_VIDUR_CSV_H_
#define INFERGRID_CALIBRATION_VIDUR_CSV_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace infergrid {

// One row of the per-op table: a layer of the model described by the shape columns, with
// num_tokens rows through every op, on num_tensor_parallel_workers GPUs.
struct VidurOpsRow {
  int line = 0;
  int n_head = 0;
  int n_kv_head = 0;
  int64_t n_embd = 0;
  int64_t n_expanded_embd = 0;
  int64_t vocab_size = 0;
  bool use_gated_mlp = true;
  int64_t num_tokens = 0;
  int tensor_parallel = 1;
  // op name ("attn_pre_proj") -> median seconds, for every time_stats.<op>.median column.
  std::vector<std::pair<std::string, double>> median_s;
};

struct VidurOpsTable {
  std::string path;
  // The model the table profiles, named by its file ("codellama-34b" for
  // .../codellama-34b_mlp_ops.csv): held-out-by-model cross-validation groups rows by it.
  std::string model;
  std::vector<std::string> ops;  // in column order
  std::vector<VidurOpsRow> rows;
};

// "codellama-34b" for ".../h100/codellama-34b_mlp_ops.csv": the file name without its folder,
// its ".csv" and a trailing "_mlp_ops" or "_mlp".
std::string VidurModelLabel(absl::string_view path);

// True when the header looks like a vidur per-op table (has num_tokens and time_stats.*).
bool LooksLikeVidurOps(absl::string_view header);
// True when the header looks like a vidur collective table (has num_workers, size, collective).
bool LooksLikeVidurCollective(absl::string_view header);

absl::StatusOr<VidurOpsTable> ReadVidurOpsCsv(const std::string& path);
// The same from a file's contents already read; `path` names it in errors.
absl::StatusOr<VidurOpsTable> ParseVidurOpsCsv(absl::string_view contents, const std::string& path);

struct VidurCollectiveRow {
  int line = 0;
  std::string collective;  // "all_reduce", "send_recv"
  int num_workers = 0;
  int devices_per_node = 0;
  double size_bytes = 0;
  double median_s = 0;
};

absl::StatusOr<std::vector<VidurCollectiveRow>> ReadVidurCollectiveCsv(const std::string& path);
absl::StatusOr<std::vector<VidurCollectiveRow>> ParseVidurCollectiveCsv(absl::string_view contents,
                                                                        const std::string& path);

}  // namespace infergrid

#endif  // INFERGRID_CALIBRATION_VIDUR_CSV_H_
