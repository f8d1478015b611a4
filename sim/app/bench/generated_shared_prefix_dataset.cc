// SGLang's generated-shared-prefix dataset (sglang.bench_serving's sample_generated_shared_prefix_
// requests): --gsp-num-groups groups of --gsp-prompts-per-group prompts, each prompt its group's
// system prompt of --gsp-system-prompt-len random tokens followed by a question of its own of
// --gsp-question-len tokens, --gsp-output-len tokens out. SGLang draws the tokens with Python's
// random.choices after random.seed(--seed), one random() per token (system prompts first, then
// the questions), and shuffles the prompts with random.shuffle; the same draws are made here, so
// the order of the groups follows the same stream. Every request of a group shares its system
// prompt: the engine's prefix cache finds it (traces/shared_prefix.h).
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "sim/app/bench/bench_dataset.h"
#include "sim/app/bench/python_random.h"

namespace infergrid::bench {

absl::StatusOr<std::vector<BenchRequest>> SampleGeneratedSharedPrefix(const DatasetOptions& o) {
  if (o.gsp_num_groups < 1 || o.gsp_prompts_per_group < 1) {
    return absl::InvalidArgumentError("--gsp-num-groups and --gsp-prompts-per-group must be at least 1");
  }
  if (o.gsp_system_prompt_len < 0 || o.gsp_question_len < 1 || o.gsp_output_len < 1) {
    return absl::InvalidArgumentError(
        "--gsp-system-prompt-len must be at least 0, --gsp-question-len and --gsp-output-len at least 1");
  }
  PythonRandom random(o.seed);
  // gen_prompt's random.choices: one random() per token, the system prompts then the questions.
  const int64_t draws =
      o.gsp_num_groups * o.gsp_system_prompt_len + o.gsp_num_groups * o.gsp_prompts_per_group * o.gsp_question_len;
  for (int64_t i = 0; i < draws; ++i) random.Random();
  std::vector<BenchRequest> requests;
  requests.reserve(static_cast<size_t>(o.gsp_num_groups * o.gsp_prompts_per_group));
  for (int64_t group = 0; group < o.gsp_num_groups; ++group) {
    for (int64_t k = 0; k < o.gsp_prompts_per_group; ++k) {
      BenchRequest request;
      request.prompt_len = static_cast<int32_t>(o.gsp_system_prompt_len + o.gsp_question_len);
      request.server_extra = static_cast<int32_t>(o.tokenizer.special_tokens);
      request.output_len = static_cast<int32_t>(o.gsp_output_len);
      request.shared_prefix_len = static_cast<int32_t>(o.gsp_system_prompt_len);
      request.prefix_group = static_cast<int32_t>(group);
      requests.push_back(request);
    }
  }
  random.Shuffle(requests);
  return requests;
}

}  // namespace infergrid::bench
