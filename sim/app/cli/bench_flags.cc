#include "sim/app/cli/bench_flags.h"

#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/simulate_flags.h"
#include "sim/app/cli/speculative_options.h"
#include "sim/app/cli/trace_flags.h"

namespace infergrid::cli {

namespace {

// The datasets (vllm/benchmarks/datasets) and their lengths.
void AddDatasetFlags(FlagGroup<BenchFlags>& group) {
  group
      .Add("dataset_name", &BenchFlags::dataset_name,
           "random, sharegpt, sonnet, burstgpt, custom, trace (any trace InferGrid reads) or "
           "generated-shared-prefix (SGLang's)")
      .Add("dataset_path", &BenchFlags::dataset_path, "the dataset file (every dataset but random)")
      .Add("num_prompts", &BenchFlags::num_prompts, "number of prompts to process")
      .AddList("input_len", &BenchFlags::input_len,
               "prompt tokens (latency: default 32; throughput: the random dataset's; serve: "
               "sets --random-input-len)")
      .AddList("output_len", &BenchFlags::output_len,
               "output tokens (latency: default 128; throughput and serve: every dataset's output "
               "length)")
      .Add("random_input_len", &BenchFlags::random_input_len, "random dataset's mean prompt tokens")
      .Add("random_output_len", &BenchFlags::random_output_len, "random dataset's mean output tokens")
      .Add("random_range_ratio", &BenchFlags::random_range_ratio,
           "random lengths uniform on [L(1-r), L(1+r)], r in [0, 1)")
      .Add("random_prefix_len", &BenchFlags::random_prefix_len, "fixed prefix tokens before each random prompt")
      .Add("prefix_len", &BenchFlags::prefix_len, "bench throughput: the random dataset's prefix tokens")
      .Add("sharegpt_output_len", &BenchFlags::sharegpt_output_len, "ShareGPT output tokens (0: the reply's length)")
      .Add("sonnet_input_len", &BenchFlags::sonnet_input_len, "sonnet dataset's prompt tokens (at most)")
      .Add("sonnet_output_len", &BenchFlags::sonnet_output_len, "sonnet dataset's output tokens")
      .Add("sonnet_prefix_len", &BenchFlags::sonnet_prefix_len, "sonnet dataset's shared prefix tokens")
      .Add("custom_output_len", &BenchFlags::custom_output_len, "custom dataset's output tokens")
      .Add("skip_chat_template", &BenchFlags::skip_chat_template, "custom prompts without the chat template")
      .Add("no_oversample", &BenchFlags::no_oversample, "do not top up a dataset with too few prompts")
      .Add("gsp_num_groups", &BenchFlags::gsp_num_groups, "generated-shared-prefix: groups (one system prompt each)")
      .Add("gsp_prompts_per_group", &BenchFlags::gsp_prompts_per_group, "generated-shared-prefix: prompts per group")
      .Add("gsp_system_prompt_len", &BenchFlags::gsp_system_prompt_len,
           "generated-shared-prefix: the shared system prompt's tokens")
      .Add("gsp_question_len", &BenchFlags::gsp_question_len, "generated-shared-prefix: each question's tokens")
      .Add("gsp_output_len", &BenchFlags::gsp_output_len, "generated-shared-prefix: output tokens");
}

// bench latency, throughput and one-batch, and serve's own timing.
void AddOfflineFlags(FlagGroup<BenchFlags>& group) {
  group
      .Add("self_timed", &BenchFlags::self_timed,
           "bench serve: send a trace dataset's requests at its own arrival times")
      .AddList("batch_size", &BenchFlags::batch_size,
               "bench latency: prompts in the batch (one-batch: a list, default 1)")
      .Add("n", &BenchFlags::n, "generated sequences per prompt")
      .Add("num_iters_warmup", &BenchFlags::num_iters_warmup, "bench latency: warm-up iterations (not timed)")
      .Add("num_iters", &BenchFlags::num_iters, "bench latency: timed iterations")
      .Add("output_json", &BenchFlags::output_json, "bench latency/throughput: write the results as JSON here")
      .Add("run_name", &BenchFlags::run_name, "bench one-batch: the run_name of the result line");
}

// bench serve: the load, the metrics and the saved result.
void AddServeFlags(FlagGroup<BenchFlags>& group) {
  group
      .Add("request_rate", &BenchFlags::request_rate,
           "bench serve: requests per second, or inf (all at once); a list (1,2,4,inf) runs each")
      .Add("burstiness", &BenchFlags::burstiness, "bench serve: gamma shape of the request intervals (1: Poisson)")
      .Add("ignore_eos", &BenchFlags::ignore_eos, "bench serve: accepted; simulated requests always run to max_tokens")
      .Add("goodput", &BenchFlags::goodput,
           "bench serve: SLOs as KEY:VALUE in ms (ttft, tpot, e2el), separated by spaces or commas")
      .Add("percentile_metrics", &BenchFlags::percentile_metrics,
           "bench serve: metrics with percentiles (default ttft,tpot,itl; also e2el, client_queue_time, "
           "e2el_including_client_queue)")
      .Add("metric_percentiles", &BenchFlags::metric_percentiles, "bench serve: percentiles to report, e.g. 25,50,99")
      .Add("save_result", &BenchFlags::save_result, "bench serve: save the result JSON")
      .Add("save_detailed", &BenchFlags::save_detailed, "bench serve: with per-request lists (ttfts, itls, ...)")
      .Add("append_result", &BenchFlags::append_result, "bench serve: append the result as a JSON line")
      .Add("result_dir", &BenchFlags::result_dir, "bench serve: folder of the saved result")
      .Add("result_filename", &BenchFlags::result_filename,
           "bench serve: file name of the saved result (default "
           "{label}-{rate}qps[-concurrency{N}]-{model}-{date}.json); "
           "one-batch: the JSON-lines file its result line is appended to (default: none written)")
      .Add("label", &BenchFlags::label, "bench serve: label of the result (default: --backend)")
      .Add("metadata", &BenchFlags::metadata, "bench serve: KEY=VALUE pairs saved in the result");
}

// Whose client serve mirrors, and genai-perf's measurement.
void AddClientFlags(FlagGroup<BenchFlags>& group) {
  group
      .Add("client", &BenchFlags::client,
           "bench serve: whose benchmark client to mirror: vllm (vllm bench serve), sglang (python -m "
           "sglang.bench_serving: its random lengths, Poisson schedule, seed 1 and report), genai-perf "
           "(perf_analyzer's measurement windows) or aiperf (aiperf profile: its flags and exports)")
      .Add("measurement_interval", &BenchFlags::measurement_interval,
           "bench serve --client=genai-perf: the measurement window, ms (genai-perf's 10,000)")
      .Add("stability_percentage", &BenchFlags::stability_percentage,
           "bench serve --client=genai-perf: three windows within this percent of one another are stable "
           "(genai-perf passes 999; perf_analyzer's own default is 10)")
      .Add("max_trials", &BenchFlags::max_trials,
           "bench serve --client=genai-perf: windows tried for a stable measurement")
      .Add("warmup_request_count", &BenchFlags::warmup_request_count,
           "bench serve --client=genai-perf|aiperf: requests sent before measuring")
      .Add("request_count", &BenchFlags::request_count,
           "bench serve --client=genai-perf: measure exactly this many requests after the warm-up, one window "
           "(0: time windows); --client=aiperf: the measured requests (aiperf's default 10)")
      .Add("request_distribution", &BenchFlags::request_distribution,
           "bench serve --client=genai-perf with --request-rate: constant or poisson intervals")
      .Add("profile_export_file", &BenchFlags::profile_export_file,
           "bench serve --client=genai-perf: write genai-perf's profile_export_genai_perf.json metrics here")
      .Add("backend", &BenchFlags::backend, "the client backend named in the result (serve: openai)")
      .Add("tokenizer", &BenchFlags::tokenizer, "accepted; token counts follow the model's tokenizer family")
      .Add("num_warmups", &BenchFlags::num_warmups, "bench serve: accepted; warm-up requests are not timed");
}

// Flags of the engines' scripts and servers: accepted, and InferGrid's own.
void AddAcceptedFlags(FlagGroup<BenchFlags>& group) {
  group
      .Add("enable_chunked_prefill", &BenchFlags::enable_chunked_prefill,
           "chunked prefill (vLLM V0 engines; V1 always chunks)")
      .Add("disable_detokenize", &BenchFlags::disable_detokenize,
           "accepted (detokenization is host time in the engine)")
      .Add("load_format", &BenchFlags::load_format, "accepted (dummy weights time as real ones)")
      .Add("disable_log_stats", &BenchFlags::disable_log_stats,
           "the server's flag, accepted (logging is not simulated)")
      .Add("disable_log_requests", &BenchFlags::disable_log_requests,
           "the server's flag, accepted (logging is not simulated)")
      .Add("trust_remote_code", &BenchFlags::trust_remote_code, "accepted (no model code is loaded)")
      .Add("compare", &BenchFlags::compare,
           "a real run's saved result (vLLM JSON, SGLang JSONL) to print predicted vs measured")
      .Add("result_date", &BenchFlags::result_date,
           "bench serve: the date in the result (default: now, %Y%m%d-%H%M%S)");
}

// vLLM's ramp-up, the clients' flags without effect, and SGLang's --output-file.
void AddForeignFlags(FlagGroup<BenchFlags>& group) {
  group
      .Add("ramp_up_strategy", &BenchFlags::ramp_up_strategy,
           "bench serve: linear or exponential: the request rate grows from --ramp-up-start-rps to "
           "--ramp-up-end-rps over the requests (vLLM's; --request-rate stays inf)")
      .Add("ramp_up_start_rps", &BenchFlags::ramp_up_start_rps, "bench serve: the ramp-up's first rate, req/s (> 0)")
      .Add("ramp_up_end_rps", &BenchFlags::ramp_up_end_rps, "bench serve: the ramp-up's last rate, req/s")
      .Add("endpoint", &BenchFlags::endpoint, "bench serve: accepted without effect (the API path)")
      .Add("base_url", &BenchFlags::base_url, "bench serve: accepted without effect (the server's URL)")
      .Add("host", &BenchFlags::host, "bench serve: accepted without effect (the server's host)")
      .Add("port", &BenchFlags::port, "bench serve: accepted without effect (the server's port)")
      .Add("served_model_name", &BenchFlags::served_model_name,
           "bench serve: accepted without effect (the model's name in the API)")
      .Add("temperature", &BenchFlags::temperature,
           "bench serve: accepted without effect (requests run to max_tokens whatever is sampled)")
      .Add("top_p", &BenchFlags::top_p, "bench serve: accepted without effect (sampling)")
      .Add("top_k", &BenchFlags::top_k, "bench serve: accepted without effect (sampling)")
      .Add("endpoint_type", &BenchFlags::endpoint_type,
           "bench serve: accepted without effect (genai-perf's API kind: chat, completions)")
      .Add("streaming", &BenchFlags::streaming,
           "bench serve: accepted without effect (the simulated client always streams)")
      .Add("url", &BenchFlags::url, "bench serve: accepted without effect (genai-perf's server URL)")
      .Add("output_file", &BenchFlags::output_file,
           "bench serve --client=sglang: refused (SGLang's JSON-lines result is not written; "
           "--save-result writes vLLM's)");
}

// NVIDIA aiperf's `aiperf profile` flags, as its docs/cli_options.md names them
// (github.com/ai-dynamo/aiperf at db4f6397, 2025-10-10).
void AddAiperfFlags(FlagGroup<BenchFlags>& group) {
  group
      .Add("request_rate_mode", &BenchFlags::request_rate_mode,
           "bench serve --client=aiperf with --request-rate: constant or poisson intervals (aiperf's default poisson)")
      .Add("artifact_dir", &BenchFlags::artifact_dir,
           "bench serve --client=aiperf: the folder of profile_export_aiperf.json and .csv (aiperf's default "
           "artifacts/MODEL-openai-ENDPOINT_TYPE-concurrencyN)")
      .Add("extra_inputs", &BenchFlags::extra_inputs,
           "bench serve --client=aiperf: NAME:VALUE items, comma separated; max_tokens:N sets the output length, "
           "ignore_eos and the sampling settings are accepted without effect")
      .Add("synthetic_input_tokens_stddev", &BenchFlags::synthetic_input_tokens_stddev,
           "bench serve --client=aiperf: 0 only (prompts of exactly --synthetic-input-tokens-mean tokens)")
      .Add("output_tokens_stddev", &BenchFlags::output_tokens_stddev,
           "bench serve --client=aiperf: 0 only (outputs of exactly --output-tokens-mean tokens)")
      .Add("conversation_num", &BenchFlags::conversation_num,
           "bench serve --client=aiperf: distinct prompts, reused in turn when more requests are sent (aiperf's 100)")
      .Add("benchmark_duration", &BenchFlags::benchmark_duration,
           "bench serve --client=aiperf: refused (a duration-based run is not simulated; give --request-count)")
      .Add("request_cancellation_rate", &BenchFlags::request_cancellation_rate,
           "bench serve --client=aiperf: 0 only (cancelled requests are not simulated)")
      .Add("ui_type", &BenchFlags::ui_type, "bench serve: accepted without effect (aiperf's UI)")
      .Add("api_key", &BenchFlags::api_key, "bench serve: accepted without effect (aiperf's API key)")
      .Add("request_timeout_seconds", &BenchFlags::request_timeout_seconds,
           "bench serve: accepted without effect (aiperf's request timeout)")
      .Add("log_level", &BenchFlags::log_level, "bench serve: accepted without effect (aiperf's logging)")
      .Add("workers_max", &BenchFlags::workers_max, "bench serve: accepted without effect (aiperf's worker processes)")
      .Add("tokenizer_revision", &BenchFlags::tokenizer_revision,
           "bench serve: accepted without effect (token counts follow the model's tokenizer family)")
      .Add("tokenizer_trust_remote_code", &BenchFlags::tokenizer_trust_remote_code,
           "bench serve: accepted without effect");
}

}  // namespace

const std::vector<absl::string_view>& BenchInertFlagNames() {
  static const std::vector<absl::string_view>* names =
      new std::vector<absl::string_view>{"endpoint",
                                         "base_url",
                                         "host",
                                         "port",
                                         "served_model_name",
                                         "temperature",
                                         "top_p",
                                         "top_k",
                                         "endpoint_type",
                                         "streaming",
                                         "url",
                                         "ui_type",
                                         "api_key",
                                         "request_timeout_seconds",
                                         "log_level",
                                         "workers_max",
                                         "tokenizer_revision",
                                         "tokenizer_trust_remote_code"};
  return *names;
}

const FlagGroup<BenchFlags>& BenchFlagGroup() {
  static const FlagGroup<BenchFlags>* group = [] {
    auto* declared = new FlagGroup<BenchFlags>();
    AddDatasetFlags(*declared);
    AddOfflineFlags(*declared);
    AddServeFlags(*declared);
    AddClientFlags(*declared);
    AddAcceptedFlags(*declared);
    AddForeignFlags(*declared);
    AddAiperfFlags(*declared);
    return declared;
  }();
  return *group;
}

namespace {

template <typename Options>
void AppendNames(const FlagGroup<Options>& group, std::vector<absl::string_view>& names) {
  for (const FlagSpec& spec : group.specs()) names.push_back(spec.name);
}

// The spellings of the engines' own scripts for simulate's and bench's flags.
const std::vector<FlagAlias>& BenchAliases() {
  static const std::vector<FlagAlias>* aliases =
      new std::vector<FlagAlias>{{"concurrency", "max_concurrency"},  // trtllm-bench
                                 {"max_batch_size", "max_num_seqs"},  // TensorRT-LLM
                                 {"max_num_tokens", "max_num_batched_tokens"},  // TensorRT-LLM
                                 {"tp_size", "tensor_parallel_size"},  // SGLang, TensorRT-LLM
                                 {"tp", "tensor_parallel_size"},  // TensorRT-LLM's trtllm-bench
                                 {"model_path", "model"},  // SGLang
                                 {"pp", "pipeline_parallel_size"},  // TensorRT-LLM's trtllm-bench
                                 {"disable_cuda_graph", "enforce_eager"},  // SGLang
                                 // vLLM's older --dataset: the path of a ShareGPT file (benchmark_throughput.py and
                                 // benchmark_serving.py before --dataset-name and --dataset-path).
                                 {"dataset", "dataset_path", {{"dataset_name", "sharegpt"}}},
                                 {"m", "model"},  // genai-perf
                                 {"synthetic_input_tokens_mean", "random_input_len"},  // genai-perf
                                 {"output_tokens_mean", "random_output_len"},  // genai-perf, aiperf
                                 // aiperf's other spellings (docs/cli_options.md).
                                 {"u", "url"},
                                 {"isl", "random_input_len"},
                                 {"prompt_input_tokens_mean", "random_input_len"},
                                 {"osl", "random_output_len"},
                                 {"prompt_output_tokens_mean", "random_output_len"},
                                 {"isl_stddev", "synthetic_input_tokens_stddev"},
                                 {"prompt_input_tokens_stddev", "synthetic_input_tokens_stddev"},
                                 {"osl_stddev", "output_tokens_stddev"},
                                 {"prompt_output_tokens_stddev", "output_tokens_stddev"},
                                 {"num_requests", "request_count"},
                                 {"num_warmup_requests", "warmup_request_count"},
                                 {"random_seed", "seed"},
                                 {"output_artifact_dir", "artifact_dir"},
                                 {"num_dataset_entries", "conversation_num"},
                                 {"num_conversations", "conversation_num"},
                                 {"num_sessions", "conversation_num"},
                                 {"ui", "ui_type"},
                                 {"model_names", "model"}};
  return *aliases;
}

bool IsBenchAlias(absl::string_view name) {
  for (const FlagAlias& alias : BenchAliases()) {
    if (alias.alias == name) return true;
  }
  return false;
}

}  // namespace

// The simulate flags every bench mode takes beside the accounting, engine and speculative
// groups, and the other tools' spellings it accepts (docs/bench.md).
constexpr absl::string_view kSimulationFlagsOfBench[] = {"calibration",
                                                         "num_scheduler_steps",
                                                         "multi_step_stream_outputs",
                                                         "stream_interval",
                                                         "disable_async_output_proc",
                                                         "chunked_prefill_size",
                                                         "capacity_scheduler_policy",
                                                         "no_async_scheduling",
                                                         "disable_overlap_schedule",
                                                         "disable_overlap_scheduler",
                                                         "disable_custom_all_reduce",
                                                         "cpu_speed",
                                                         "front_end",
                                                         "front_end_file",
                                                         "api_server_count",
                                                         "noise",
                                                         "iteration_noise",
                                                         "send_jitter",
                                                         "preemption_mode",
                                                         "swap_space",
                                                         "enable_prefix_caching",
                                                         "num_replicas",
                                                         "cost_model",
                                                         "seed",
                                                         "n",
                                                         "compare",
                                                         "client",
                                                         "measurement_interval",
                                                         "stability_percentage",
                                                         "max_trials",
                                                         "warmup_request_count",
                                                         "request_count",
                                                         "request_distribution",
                                                         "profile_export_file",
                                                         "backend",
                                                         "tokenizer",
                                                         "enable_chunked_prefill",
                                                         "disable_detokenize",
                                                         "load_format",
                                                         "max_batch_size",
                                                         "max_num_tokens",
                                                         "tp_size",
                                                         "tp",
                                                         "pp",
                                                         "disable_cuda_graph",
                                                         "input_len",
                                                         "output_len",
                                                         "disable_log_stats",
                                                         "disable_log_requests",
                                                         "trust_remote_code",
                                                         "model_path"};

std::vector<absl::string_view> BenchFlagNames(absl::string_view mode) {
  std::vector<absl::string_view> names(AccountingFlagNames());
  AppendNames(EngineFlagGroup(), names);
  AppendNames(SpeculativeFlagGroup(), names);  // vLLM's engine arguments
  names.insert(names.end(), std::begin(kSimulationFlagsOfBench), std::end(kSimulationFlagsOfBench));
  const auto add = [&](const std::vector<absl::string_view>& list) {
    names.insert(names.end(), list.begin(), list.end());
  };
  const std::vector<absl::string_view> datasets = {
      "dataset",           "dataset_name",       "dataset_path",          "num_prompts",           "random_input_len",
      "random_output_len", "random_range_ratio", "random_prefix_len",     "sharegpt_output_len",   "sonnet_input_len",
      "sonnet_output_len", "sonnet_prefix_len",  "custom_output_len",     "skip_chat_template",    "no_oversample",
      "trace_format",      "gsp_num_groups",     "gsp_prompts_per_group", "gsp_system_prompt_len", "gsp_question_len",
      "gsp_output_len"};
  if (mode == "latency") {
    add({"batch_size", "num_iters_warmup", "num_iters", "output_json"});
  } else if (mode == "one-batch") {
    add({"batch_size", "run_name", "result_filename"});
  } else if (mode == "throughput") {
    add(datasets);
    add({"prefix_len", "output_json", "max_concurrency", "concurrency"});
  } else {
    add(datasets);
    add({"self_timed",
         "request_rate",
         "burstiness",
         "max_concurrency",
         "concurrency",
         "ignore_eos",
         "goodput",
         "percentile_metrics",
         "metric_percentiles",
         "save_result",
         "save_detailed",
         "append_result",
         "result_dir",
         "result_filename",
         "label",
         "metadata",
         "num_warmups",
         "result_date",
         "ramp_up_strategy",
         "ramp_up_start_rps",
         "ramp_up_end_rps",
         "output_file",
         "m",
         "synthetic_input_tokens_mean",
         "output_tokens_mean",
         "request_rate_mode",
         "artifact_dir",
         "extra_inputs",
         "synthetic_input_tokens_stddev",
         "output_tokens_stddev",
         "conversation_num",
         "benchmark_duration",
         "request_cancellation_rate",
         "u",
         "isl",
         "prompt_input_tokens_mean",
         "osl",
         "prompt_output_tokens_mean",
         "isl_stddev",
         "prompt_input_tokens_stddev",
         "osl_stddev",
         "prompt_output_tokens_stddev",
         "num_requests",
         "num_warmup_requests",
         "random_seed",
         "output_artifact_dir",
         "num_dataset_entries",
         "num_conversations",
         "num_sessions",
         "ui",
         "model_names"});
    add(BenchInertFlagNames());
  }
  return names;
}

const CommandFlags& BenchCommandFlags() {
  static const CommandFlags* flags = [] {
    auto* all = new CommandFlags();
    for (const char* mode : {"latency", "throughput", "serve", "one-batch"}) {
      for (absl::string_view name : BenchFlagNames(mode)) {
        if (IsBenchAlias(name) || all->Find(name) != nullptr) continue;
        // Bench's own first: its --input-len and --output-len (lists, as the scripts take
        // them) are not simulate's length specs of the same names.
        const FlagSpec* spec = BenchFlagGroup().Find(name);
        if (spec == nullptr) spec = AccountingFlagGroup().Find(name);
        if (spec == nullptr) spec = EngineFlagGroup().Find(name);
        if (spec == nullptr) spec = SpeculativeFlagGroup().Find(name);
        if (spec == nullptr) spec = SimulateFlagGroup().Find(name);
        if (spec == nullptr) spec = TraceFlagGroup().Find(name);
        all->Take(*spec);
      }
    }
    for (const FlagAlias& alias : BenchAliases()) all->Alias(alias);
    all->AllowAbbreviations();  // argparse's: --random-input is --random-input-len
    all->Appendable("extra_inputs");  // aiperf's: one NAME:VALUE per --extra-inputs
    return all;
  }();
  return *flags;
}

}  // namespace infergrid::cli
