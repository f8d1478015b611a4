// What SGLang's bench_one_batch runs, as a resolved simulation: the engine's ModelRunner driven
// directly by the script, with no scheduler process and no tokenizer or detokenizer. One static
// batch is prefilled in a single extend (whatever chunked_prefill_size says) and decoded step by
// step, each step synchronized and timed. Of the engine's host phases, the script runs input
// preparation (ScheduleBatch.prepare_for_decode, ForwardBatch.init_new) and the launch before
// the forward and sampling after it, all on the critical path; scheduling and output processing
// are not run. The decode batch replays a CUDA graph (the script raises cuda_graph_max_bs to the
// batch size) unless graphs are off.
#ifndef INFERGRID_SIM_APP_RUN_ONE_BATCH_SIMULATION_H_
#define INFERGRID_SIM_APP_RUN_ONE_BATCH_SIMULATION_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "sim/app/run/resolved_simulation.h"
#include "sim/core/personality/engine_personality.pb.h"

namespace infergrid {

// The engine's host phases as the script runs them (see above); relative costs are kept.
ExecutionModel OneBatchExecution(const ExecutionModel& engine);

// `resolved` (an SGLang personality's) adapted to one batch of `batch_size` prompts of
// `input_len` tokens. A usage error names --engine when the personality is not SGLang's.
absl::StatusOr<ResolvedSimulation> OneBatchSimulation(ResolvedSimulation resolved, int64_t batch_size,
                                                      int64_t input_len);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_RUN_ONE_BATCH_SIMULATION_H_
