// Aggregates over every iteration of a run: counts, busy time, batch composition, the share of
// iterations and of busy time each resource bound, peak KV use, preemptions and swap traffic;
// and each replica's own iterations, busy time, batch sizes, peak KV use and preemptions.
#ifndef INFERGRID_SIM_CORE_METRICS_ITERATION_STATS_H_
#define INFERGRID_SIM_CORE_METRICS_ITERATION_STATS_H_

#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/metrics/iteration_record.h"

namespace infergrid {

// One replica's (one rank's) share of the aggregates.
struct ReplicaIterationStats {
  int64_t iterations = 0;
  double busy_s = 0;
  double batch_size_sum = 0;
  int64_t peak_kv_blocks = 0;
  double peak_kv_fraction = 0;
  int64_t preemptions = 0;
};

class IterationStats final : public IterationSink {
 public:
  // Opt-in before the first iteration: also keep each of `replicas` replicas' own share
  // (per_replica). A run of one replica leaves it off: its share is the whole, and the hot path
  // then does none of that work.
  void KeepPerReplica(int replicas) {
    keep_per_replica_ = true;
    per_replica.resize(static_cast<size_t>(replicas));
  }
  void OnIteration(const IterationRecord& r) override;

  int64_t iterations = 0;
  double busy_s = 0;  // summed over replicas
  double communication_s = 0;
  double host_s = 0;  // host time on the critical path, summed
  double host_hidden_s = 0;  // host time under the GPU's work, summed
  double batch_size_sum = 0;
  double prefill_tokens = 0;
  double decode_tokens = 0;
  int64_t prefill_iterations = 0;  // iterations holding at least one prefill chunk
  int64_t max_batch_size = 0;
  int64_t peak_kv_blocks = 0;  // the largest use on any replica
  double peak_kv_fraction = 0;
  int64_t max_waiting = 0;
  int64_t preemptions = 0;
  int64_t preemptions_swap = 0;
  int64_t swap_out_blocks = 0;
  int64_t swap_in_blocks = 0;
  // Speculative decoding: the proposer's time (summed), decode steps of a sequence that
  // verified drafts, draft tokens proposed and accepted in them, and the tokens they emitted.
  double draft_s = 0;
  int64_t speculative_steps = 0;
  int64_t draft_tokens = 0;
  int64_t accepted_tokens = 0;
  int64_t emitted_tokens = 0;
  std::array<int64_t, kNumResources> binding_iterations{};
  std::array<double, kNumResources> binding_time_s{};
  // With KeepPerReplica: indexed by IterationRecord::replica (at least the replicas given, or
  // up to the highest that ran an iteration); empty otherwise.
  std::vector<ReplicaIterationStats> per_replica;

 private:
  bool keep_per_replica_ = false;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_METRICS_ITERATION_STATS_H_
