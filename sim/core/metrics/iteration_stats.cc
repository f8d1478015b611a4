#include "sim/core/metrics/iteration_stats.h"

#include <algorithm>

namespace infergrid {

void IterationStats::OnIteration(const IterationRecord& r) {
  ++iterations;
  const double duration = r.end_s - r.start_s;
  busy_s += duration;
  communication_s += r.communication_s;
  host_s += r.host_s;
  host_hidden_s += r.host_hidden_s;
  batch_size_sum += r.batch_size();
  prefill_tokens += static_cast<double>(r.prefill_tokens);
  decode_tokens += r.decode_seqs;
  if (r.prefill_seqs > 0) ++prefill_iterations;
  max_batch_size = std::max<int64_t>(max_batch_size, r.batch_size());
  peak_kv_blocks = std::max(peak_kv_blocks, r.kv_blocks_used);
  const double kv_fraction =
      r.kv_blocks_total > 0 ? static_cast<double>(r.kv_blocks_used) / static_cast<double>(r.kv_blocks_total) : 0;
  peak_kv_fraction = std::max(peak_kv_fraction, kv_fraction);
  max_waiting = std::max<int64_t>(max_waiting, r.waiting);
  preemptions += r.preempted;
  preemptions_swap += r.preempted_swap;
  swap_out_blocks += r.swap_out_blocks;
  swap_in_blocks += r.swap_in_blocks;
  draft_s += r.draft_s;
  speculative_steps += r.speculative_seqs;
  draft_tokens += r.draft_tokens;
  accepted_tokens += r.accepted_tokens;
  emitted_tokens += r.emitted_tokens;
  const size_t b = static_cast<size_t>(r.binding);
  ++binding_iterations[b];
  binding_time_s[b] += duration;
  if (!keep_per_replica_) return;
  const size_t i = static_cast<size_t>(r.replica);
  if (i >= per_replica.size()) per_replica.resize(i + 1);
  ReplicaIterationStats& replica = per_replica[i];
  ++replica.iterations;
  replica.busy_s += duration;
  replica.batch_size_sum += r.batch_size();
  replica.peak_kv_blocks = std::max(replica.peak_kv_blocks, r.kv_blocks_used);
  replica.peak_kv_fraction = std::max(replica.peak_kv_fraction, kv_fraction);
  replica.preemptions += r.preempted;
}

}  // namespace infergrid
