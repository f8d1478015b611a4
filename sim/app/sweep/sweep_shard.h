// Which slice of a sweep this process runs: shard I of N takes the sweep's distinct runs
// k = I, I + N, I + 2N, ... (round robin, so neighbouring points, often alike in cost, spread
// over the shards). Every shard of one spec expands the same runs in the same order, so the
// slices are disjoint and together complete without any coordination.
//
// The shard comes from --shard=I/N, else from the scheduler's environment: a Slurm job array
// (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT), or a Kubernetes
// indexed Job (JOB_COMPLETION_INDEX, which Kubernetes sets, of JOB_COMPLETIONS, which the Job's
// manifest must set to its `completions`: Kubernetes does not expose it to the pod), else 0/1.
#ifndef INFERGRID_SIM_APP_SWEEP_SWEEP_SHARD_H_
#define INFERGRID_SIM_APP_SWEEP_SWEEP_SHARD_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace infergrid::sweep {

struct Shard {
  int index = 0;
  int count = 1;
  std::string source;  // "--shard", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX" or "" (all)
  bool Owns(int64_t k) const { return k % count == index; }
};

// "I/N" with 0 <= I < N. Usage errors name --shard.
absl::StatusOr<Shard> ParseShard(absl::string_view text);

// The environment's shard; `getenv` returns nullptr for an unset variable. An inconsistent
// environment (an index without a count, an index out of range) is a usage error naming the
// variables.
absl::StatusOr<Shard> ShardFromEnvironment(const std::function<const char*(const char*)>& getenv);

}  // namespace infergrid::sweep

#endif  // INFERGRID_SIM_APP_SWEEP_SWEEP_SHARD_H_
