// The candidate deployments of a plan: the product of the axes the user lists (GPU kinds,
// tensor-parallel sizes, replica counts, weight and KV dtypes, engines, schedulers,
// max_num_seqs), each candidate a set of `simulate` flags on top of the shared workload flags.
// An axis left empty is not varied (the shared flags, or simulate's default, hold).
#ifndef INFERGRID_SIM_APP_PLAN_CANDIDATES_H_
#define INFERGRID_SIM_APP_PLAN_CANDIDATES_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace infergrid::plan {

struct CandidateAxes {
  std::vector<std::string> gpus;  // --gpu values
  std::vector<int32_t> tensor_parallel;  // --tensor-parallel-size values
  std::vector<int32_t> replicas;  // --num-replicas values
  std::vector<std::string> weight_dtypes;  // --weight-dtype values
  std::vector<std::string> kv_dtypes;  // --kv-cache-dtype values
  std::vector<std::string> engines;  // --engine values
  std::vector<std::string> schedulers;  // --scheduler values
  std::vector<int64_t> max_num_seqs;  // --max-num-seqs values
};

struct Candidate {
  std::string label;  // the varied values, e.g. "h100-sxm tp2 kv=fp8"
  std::vector<std::pair<std::string, std::string>> flags;  // simulate flag name -> value
  std::string gpu;  // "" when the GPU axis is not varied (then the shared --gpu)
  int32_t tensor_parallel = 0;  // 0 when not varied
  int32_t replicas = 0;  // 0 when not varied
};

// Comma-separated values of a list flag; empty text is an empty list. Errors name the flag.
absl::StatusOr<std::vector<std::string>> ParseList(absl::string_view text, absl::string_view flag);
absl::StatusOr<std::vector<int32_t>> ParsePositiveInts(absl::string_view text, absl::string_view flag);

// The product of the axes in the order listed (GPU slowest), at most `limit` candidates.
absl::StatusOr<std::vector<Candidate>> ExpandCandidates(const CandidateAxes& axes, size_t limit);

}  // namespace infergrid::plan

#endif  // INFERGRID_SIM_APP_PLAN_CANDIDATES_H_
