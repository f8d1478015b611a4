// `bench throughput --engine=trtllm@...` as trtllm-bench runs it: with neither --max_batch_size
// nor --max_num_tokens, the limits trtllm-bench chooses from the dataset and the memory
// (sim/core/memory_plan/trtllm_bench_tuning.h) become the engine's, so the memory plan and the
// scheduler run with them; a limit the user gives is kept and only the other is chosen. The
// report then reads as trtllm-bench's: its log lines of the choice, and its runtime section.
#ifndef INFERGRID_SIM_APP_RUN_TRTLLM_BENCH_SETTINGS_H_
#define INFERGRID_SIM_APP_RUN_TRTLLM_BENCH_SETTINGS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/app/bench/bench_dataset.h"
#include "sim/app/cli/bench_options.h"
#include "sim/core/memory_plan/trtllm_bench_tuning.h"

namespace infergrid {

// Chooses and applies the limits to options->engine. nullopt where nothing is chosen: an engine
// without trtllm-bench's tuning, or both limits given.
absl::StatusOr<std::optional<TrtllmBenchChoice>> ApplyTrtllmBenchTuning(
    const std::vector<bench::BenchRequest>& requests, cli::BenchOptions* options);

// trtllm-bench's "WORLD + RUNTIME INFORMATION" block for the limits the engine ran with.
std::string TrtllmRuntimeInfoText(int tensor_parallel, int pipeline_parallel, int64_t max_batch_size,
                                  int64_t max_num_tokens);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_RUN_TRTLLM_BENCH_SETTINGS_H_
