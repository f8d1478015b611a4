#include "sim/app/run/one_batch_simulation.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/app/cli/command_line.h"
#include "sim/core/personality/personality_catalog.h"
#include "sim/core/serving/execution_policy.h"

namespace infergrid {

ExecutionModel OneBatchExecution(const ExecutionModel& engine) {
  ExecutionModel x = engine;
  x.clear_host();
  for (const HostPhaseUse& use : engine.host()) {
    HostPhaseUse kept = use;
    if (use.phase() == "prepare_inputs" || use.phase() == "launch") {
      kept.set_placement(BEFORE_GPU);
    } else if (use.phase() == "sample") {
      kept.set_placement(AFTER_GPU);
    } else {
      continue;  // schedule, process_outputs: the script has no scheduler and no output processing
    }
    kept.set_why("bench_one_batch: the script calls it between synchronized, timed steps");
    *x.add_host() = kept;
  }
  return x;
}

absl::StatusOr<ResolvedSimulation> OneBatchSimulation(ResolvedSimulation resolved, int64_t batch_size,
                                                      int64_t input_len) {
  if (resolved.setup.personality.engine() != "sglang") {
    return cli::UsageError(absl::StrCat("bench one-batch is SGLang's bench_one_batch: --engine=sglang[@VERSION], not ",
                                        PersonalityName(resolved.setup.personality)));
  }
  if (resolved.setup.cost_request.execution.has_value()) {
    resolved.setup.cost_request.execution = OneBatchExecution(*resolved.setup.cost_request.execution);
  }
  // One extend of the whole batch, then every sequence decodes together.
  resolved.setup.engine.limits.max_num_seqs = std::max(resolved.setup.engine.limits.max_num_seqs, batch_size);
  resolved.setup.engine.limits.max_num_batched_tokens =
      std::max(resolved.setup.engine.limits.max_num_batched_tokens, batch_size * input_len);
  resolved.setup.engine.limits.chunk_size = std::max(resolved.setup.engine.limits.chunk_size, batch_size * input_len);
  // cuda_graph_max_bs = the batch size: the capture list extends up to it.
  if (resolved.setup.engine.execution.has_value()) {
    std::vector<int64_t>& sizes = resolved.setup.engine.execution->graphs.sizes;
    if (!sizes.empty() && sizes.back() < batch_size) {
      std::vector<SizeRangeSpec> ranges;
      for (const SizeRange& r : resolved.setup.personality.execution().cuda_graphs().sizes()) {
        ranges.push_back({r.start(), r.end(), r.step()});
      }
      sizes = CaptureSizes(ranges, batch_size);
      if (sizes.empty() || sizes.back() < batch_size) sizes.push_back(batch_size);
    }
  }
  return resolved;
}

}  // namespace infergrid
