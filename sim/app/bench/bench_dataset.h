// The requests of a benchmark run, drawn as vLLM's `vllm bench` datasets draw them
// (vllm/benchmarks/datasets/): the same random streams with the same seed, the same filters
// and oversampling, so a dataset file and a seed give the requests the engine's own script
// sends. Lengths are in tokens as the client counts them (prompt_len) plus the tokens the
// server adds (special tokens on a text prompt), which the simulated engine processes.
//   random     uniform integer lengths around --random-input-len/--random-output-len
//              (NumPy default_rng(seed)), exact
//   sharegpt   a ShareGPT JSON file: the first two turns of each conversation with at least
//              two, shuffled with Python's random.seed(seed), filtered as vLLM filters them
//   sonnet     vLLM's sonnet.txt: the base prompt plus lines drawn with random.choices
//   burstgpt   a BurstGPT CSV: GPT-4 rows with a response, sampled as pandas.sample(seed)
//   custom     a JSONL file of {"prompt": ...} lines, shuffled, with --custom-output-len
//   generated-shared-prefix  SGLang's: groups of prompts, each a shared system prompt and a
//              question of its own (generated_shared_prefix_dataset.cc); --num-prompts unused
//   trace      any trace InferGrid reads (traces/trace_reader.h), in file order; its arrival
//              times are kept with --self-timed
// Text lengths are estimated (token_estimate.h) unless the file carries token counts.
#ifndef INFERGRID_SIM_APP_BENCH_BENCH_DATASET_H_
#define INFERGRID_SIM_APP_BENCH_BENCH_DATASET_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/app/bench/token_estimate.h"
#include "traces/request.h"
#include "traces/trace_reader.h"

namespace infergrid::bench {

// The most tokens a dataset's line may give a prompt or a turn ("prompt_len", "num_tokens"), as
// the length flags (--random-input-len, ...) allow: far above any context, far below int32.
inline constexpr int64_t kMaxDatasetTokens = 10'000'000;
// The most prompts one benchmark sends (--num-prompts): each keeps its outcome and its
// inter-token latencies until the report, about 1.5 kB, so the bound holds about 1.5 GB.
inline constexpr int64_t kMaxBenchPrompts = 1'000'000;

struct BenchRequest {
  int32_t prompt_len = 0;  // as the client counts it (vLLM's SampleRequest.prompt_len)
  int32_t server_extra = 0;  // tokens the server adds when it tokenizes the prompt text
  int32_t output_len = 0;  // max_tokens sent
  double timestamp_s = -1;  // the trace's arrival (self-timed runs); -1: none
  // The prompt's first tokens that every request of its prefix group shares (a random prefix,
  // sonnet's poem lines): the engine's prefix cache finds them (traces/shared_prefix.h).
  int32_t shared_prefix_len = 0;
  int32_t prefix_group = 0;
};

struct DatasetOptions {
  std::string name = "random";  // random | sharegpt | sonnet | burstgpt | custom | trace
  std::string path;  // --dataset-path (every name but random)
  int64_t num_prompts = 1000;
  int64_t seed = 0;
  TokenizerFamily tokenizer;
  // random
  int64_t random_input_len = 1024;
  int64_t random_output_len = 128;
  double random_range_ratio = 0;
  int64_t random_prefix_len = 0;
  // sharegpt: the reply's length unless set
  std::optional<int64_t> sharegpt_output_len;
  // sonnet
  int64_t sonnet_input_len = 550;
  int64_t sonnet_output_len = 150;
  int64_t sonnet_prefix_len = 200;
  // custom
  int64_t custom_output_len = 256;
  bool skip_chat_template = false;
  // trace
  std::string trace_format = "auto";
  bool no_oversample = false;
  // generated-shared-prefix (SGLang's): groups of prompts sharing a system prompt
  int64_t gsp_num_groups = 64;
  int64_t gsp_prompts_per_group = 16;
  int64_t gsp_system_prompt_len = 2048;
  int64_t gsp_question_len = 128;
  int64_t gsp_output_len = 256;
  // SGLang's bench_serving draws the random dataset (sglang_serving.h): --random-range-ratio is
  // the shortest length's share, lengths from NumPy's legacy stream.
  bool sglang_client = false;
};

// The dataset names, in the order --help lists them.
const std::vector<std::string>& DatasetNames();

// Draws options.num_prompts requests. Errors: an unknown name or a missing path is a usage
// error naming the flag; a file that cannot be read or parsed names the file (and line).
absl::StatusOr<std::vector<BenchRequest>> SampleDataset(const DatasetOptions& options);

// Per-dataset samplers (bench_dataset.cc dispatches).
absl::StatusOr<std::vector<BenchRequest>> SampleRandom(const DatasetOptions& options);
absl::StatusOr<std::vector<BenchRequest>> SampleShareGpt(const DatasetOptions& options);
absl::StatusOr<std::vector<BenchRequest>> SampleSonnet(const DatasetOptions& options);
absl::StatusOr<std::vector<BenchRequest>> SampleBurstGpt(const DatasetOptions& options);
absl::StatusOr<std::vector<BenchRequest>> SampleCustom(const DatasetOptions& options);
absl::StatusOr<std::vector<BenchRequest>> SampleTrace(const DatasetOptions& options);
absl::StatusOr<std::vector<BenchRequest>> SampleGeneratedSharedPrefix(const DatasetOptions& options);

// The first `limit` requests of a trace InferGrid reads (all with limit < 0).
absl::StatusOr<std::vector<Request>> ReadTraceRequests(const std::string& path, const TraceOptions& options,
                                                       int64_t limit = -1);

// vLLM's is_valid_sequence: prompt and output >= 4 tokens (output unchecked when its length is
// fixed), prompt <= 1024, prompt + output <= 2048.
bool IsValidSequence(int64_t prompt_len, int64_t output_len, bool skip_min_output_len_check);

// BenchmarkDataset.maybe_oversample_requests: too few requests are topped up with
// random.choice after random.seed(seed). An empty list stays empty.
void MaybeOversample(std::vector<BenchRequest>& requests, int64_t num_requests, int64_t seed, bool no_oversample);

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_BENCH_DATASET_H_
