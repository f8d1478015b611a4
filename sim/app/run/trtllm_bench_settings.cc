#include "sim/app/run/trtllm_bench_settings.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "sim/core/personality/personality_catalog.h"

namespace infergrid {

absl::StatusOr<std::optional<TrtllmBenchChoice>> ApplyTrtllmBenchTuning(
    const std::vector<bench::BenchRequest>& requests, cli::BenchOptions* options) {
  MemoryPlanRequest& memory = options->engine.memory;
  absl::StatusOr<EnginePersonality> personality = ResolveEnginePersonality(memory.engine);
  if (!personality.ok()) return personality.status();
  if (!personality->has_bench_tuning() || requests.empty()) return std::nullopt;
  if (memory.max_num_seqs > 0 && memory.max_num_batched_tokens > 0) return std::nullopt;
  // The dataset as trtllm-bench's DatasetMetadata reads it: token ids, the means truncated.
  int64_t isl_sum = 0, osl_sum = 0, max_isl = 0;
  for (const bench::BenchRequest& r : requests) {
    const int64_t isl = int64_t{r.prompt_len} + r.server_extra;
    isl_sum += isl;
    osl_sum += r.output_len;
    max_isl = std::max(max_isl, isl);
  }
  const int64_t n = static_cast<int64_t>(requests.size());
  TrtllmBenchTuningRequest request;
  request.model = memory.model;
  request.gpu = memory.gpu;
  request.weights = memory.weights;
  request.kv_dtype = memory.kv_dtype;
  // trtllm-bench's --tp: every GPU of the replica, attention data-parallel or not (its tuning
  // sizes the model over them; the limits it picks apply to each rank).
  request.tensor_parallel = memory.tensor_parallel * memory.attention_data_parallel;
  request.pipeline_parallel = memory.pipeline_parallel;
  request.user_fraction = memory.free_gpu_memory_fraction;
  request.chunked_prefill = options->enable_chunked_prefill;
  request.dataset = {isl_sum / n, osl_sum / n, max_isl};
  const BatchDefaults& defaults = personality->batch_defaults(personality->batch_defaults_size() - 1);
  absl::StatusOr<TrtllmBenchChoice> choice = ChooseTrtllmBenchSettings(
      personality->bench_tuning(), request, defaults.max_num_seqs(), defaults.max_num_batched_tokens());
  if (!choice.ok()) return choice.status();
  // A limit the user gave stays; trtllm-bench itself tunes both unless both are given.
  if (memory.max_num_seqs > 0 || memory.max_num_batched_tokens > 0) {
    choice->log_lines.push_back(absl::StrCat(
        "InferGrid: ", memory.max_num_seqs > 0 ? "--max_batch_size" : "--max_num_tokens",
        " as given; trtllm-bench would have replaced it too (it keeps the user's limits only when both are given)"));
  }
  if (memory.max_num_seqs == 0) memory.max_num_seqs = choice->max_batch_size;
  if (memory.max_num_batched_tokens == 0) memory.max_num_batched_tokens = choice->max_num_tokens;
  return std::optional<TrtllmBenchChoice>(*std::move(choice));
}

std::string TrtllmRuntimeInfoText(int tensor_parallel, int pipeline_parallel, int64_t max_batch_size,
                                  int64_t max_num_tokens) {
  return absl::StrCat(
      "===========================================================\n"
      "= WORLD + RUNTIME INFORMATION \n"
      "===========================================================\n"
      "TP Size:                ",
      tensor_parallel, "\n", "PP Size:                ", pipeline_parallel, "\n",
      "Max Runtime Batch Size: ", max_batch_size, "\n", "Max Runtime Tokens:     ", max_num_tokens, "\n");
}

}  // namespace infergrid
