// The flags of `infergrid bench latency|throughput|serve|one-batch`, named and defaulted as
// vLLM's `vllm bench` names them (vllm/benchmarks/{latency,throughput,serve}.py and datasets)
// and SGLang's bench_one_batch its own, plus the SGLang / TensorRT-LLM spellings of the same
// settings as aliases (--concurrency, --max_batch_size, --max_num_tokens, --tp-size,
// --disable-cuda-graph) and InferGrid's own (--compare, --result-date). The engine, model and
// GPU flags are simulate's (accounting_setup.h, simulate_flags.h).
#ifndef INFERGRID_SIM_APP_CLI_BENCH_FLAGS_H_
#define INFERGRID_SIM_APP_CLI_BENCH_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sim/app/cli/flag_group.h"
#include "absl/strings/string_view.h"

namespace infergrid::cli {

// bench's own flags, spelled as the engines' benchmark scripts spell them.
struct BenchFlags {
  std::string dataset_name = "random";
  std::string dataset_path;
  int64_t num_prompts = 1000;
  std::vector<int64_t> input_len = {0};  // lists in one-batch only
  std::vector<int64_t> output_len = {0};
  int64_t random_input_len = 1024;
  int64_t random_output_len = 128;
  double random_range_ratio = 0;
  int64_t random_prefix_len = 0;
  int64_t prefix_len = 0;
  int64_t sharegpt_output_len = 0;
  int64_t sonnet_input_len = 550;
  int64_t sonnet_output_len = 150;
  int64_t sonnet_prefix_len = 200;
  int64_t custom_output_len = 256;
  bool skip_chat_template = false;
  bool no_oversample = false;
  int64_t gsp_num_groups = 64;
  int64_t gsp_prompts_per_group = 16;
  int64_t gsp_system_prompt_len = 2048;
  int64_t gsp_question_len = 128;
  int64_t gsp_output_len = 256;
  bool self_timed = false;
  std::vector<int64_t> batch_size = {8};
  int64_t n = 1;
  int64_t num_iters_warmup = 10;
  int64_t num_iters = 30;
  std::string output_json;
  std::string run_name = "default";
  std::string request_rate = "inf";
  double burstiness = 1.0;
  bool ignore_eos = false;
  std::string goodput;
  std::string percentile_metrics;
  std::string metric_percentiles = "99";
  bool save_result = false;
  bool save_detailed = false;
  bool append_result = false;
  std::string result_dir;
  std::string result_filename;
  std::string label;
  std::string metadata;
  std::string client = "vllm";
  double measurement_interval = 10000;
  double stability_percentage = 999;
  int32_t max_trials = 10;
  int64_t warmup_request_count = 0;
  int64_t request_count = 0;
  std::string request_distribution = "constant";
  std::string profile_export_file;
  std::string backend;
  std::string tokenizer;
  int64_t num_warmups = 0;
  bool enable_chunked_prefill = false;
  bool disable_detokenize = false;
  std::string load_format = "auto";
  bool disable_log_stats = false;
  bool disable_log_requests = false;
  bool trust_remote_code = false;
  std::string compare;
  std::string result_date;
  // vLLM's ramp-up: the rate grows from start to end over the run's requests.
  std::string ramp_up_strategy;
  double ramp_up_start_rps = 0;
  double ramp_up_end_rps = 0;
  // Flags of the clients that cannot change a simulation: accepted, named in one note.
  std::string endpoint;
  std::string base_url;
  std::string host;
  std::string port;
  std::string served_model_name;
  double temperature = 0;
  double top_p = 1;
  int64_t top_k = -1;
  std::string endpoint_type;
  bool streaming = false;
  std::string url;
  // SGLang's --output-file: refused with its reason.
  std::string output_file;
  // NVIDIA aiperf's `profile` flags (bench serve --client=aiperf).
  std::string request_rate_mode = "poisson";
  std::string artifact_dir;
  std::string extra_inputs;
  double synthetic_input_tokens_stddev = 0;
  double output_tokens_stddev = 0;
  int64_t conversation_num = 100;
  double benchmark_duration = 0;
  double request_cancellation_rate = 0;
  // aiperf's flags without effect on a simulation.
  std::string ui_type;
  std::string api_key;
  double request_timeout_seconds = 600;
  std::string log_level;
  int64_t workers_max = 0;
  std::string tokenizer_revision;
  bool tokenizer_trust_remote_code = false;
};

// The flags accepted without effect on the simulation (endpoints, hosts, names, sampling
// settings that leave lengths alone), as bench lists them in its note.
const std::vector<absl::string_view>& BenchInertFlagNames();
const FlagGroup<BenchFlags>& BenchFlagGroup();

// Every flag `bench MODE` accepts (its own, the engine's and the model's), and the aliases
// (--tp, --concurrency, ...) it accepts.
std::vector<absl::string_view> BenchFlagNames(absl::string_view mode);

// The flags of every mode together, and the SGLang / TensorRT-LLM / old vLLM spellings of
// simulate's flags as aliases; RunBench then refuses a flag its mode does not take.
const CommandFlags& BenchCommandFlags();

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_BENCH_FLAGS_H_
