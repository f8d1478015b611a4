#include "sim/app/cli/bench_flags.h"

#include "absl/flags/flag.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/simulate_flags.h"
#include "sim/app/cli/speculative_options.h"

// Datasets (vllm/benchmarks/datasets).
ABSL_FLAG(std::string, dataset_name, "random",
          "bench: random, sharegpt, sonnet, burstgpt, custom, or trace (any trace InferGrid reads)");
ABSL_FLAG(std::string, dataset_path, "", "bench: the dataset file (every dataset but random)");
ABSL_FLAG(int64_t, num_prompts, 1000, "bench: number of prompts to process");
ABSL_FLAG(int64_t, input_len, 0,
          "bench: prompt tokens (latency: default 32; throughput: the random dataset's; serve: "
          "sets --random-input-len)");
ABSL_FLAG(int64_t, output_len, 0,
          "bench: output tokens (latency: default 128; throughput and serve: every dataset's output "
          "length)");
ABSL_FLAG(int64_t, random_input_len, 1024, "bench: random dataset's mean prompt tokens");
ABSL_FLAG(int64_t, random_output_len, 128, "bench: random dataset's mean output tokens");
ABSL_FLAG(double, random_range_ratio, 0,
          "bench: random lengths uniform on [L(1-r), L(1+r)], r in [0, 1)");
ABSL_FLAG(int64_t, random_prefix_len, 0, "bench: fixed prefix tokens before each random prompt");
ABSL_FLAG(int64_t, prefix_len, 0, "bench throughput: the random dataset's prefix tokens");
ABSL_FLAG(int64_t, sharegpt_output_len, 0, "bench: ShareGPT output tokens (0: the reply's length)");
ABSL_FLAG(int64_t, sonnet_input_len, 550, "bench: sonnet dataset's prompt tokens (at most)");
ABSL_FLAG(int64_t, sonnet_output_len, 150, "bench: sonnet dataset's output tokens");
ABSL_FLAG(int64_t, sonnet_prefix_len, 200, "bench: sonnet dataset's shared prefix tokens");
ABSL_FLAG(int64_t, custom_output_len, 256, "bench: custom dataset's output tokens");
ABSL_FLAG(bool, skip_chat_template, false, "bench: custom prompts without the chat template");
ABSL_FLAG(bool, no_oversample, false, "bench: do not top up a dataset with too few prompts");
ABSL_FLAG(bool, self_timed, false, "bench serve: send a trace dataset's requests at its own arrival times");
// bench latency
ABSL_FLAG(int64_t, batch_size, 8, "bench latency: prompts in the batch (one-batch: default 1)");
ABSL_FLAG(int64_t, n, 1, "bench: generated sequences per prompt");
ABSL_FLAG(int64_t, num_iters_warmup, 10, "bench latency: warm-up iterations (not timed)");
ABSL_FLAG(int64_t, num_iters, 30, "bench latency: timed iterations");
ABSL_FLAG(std::string, output_json, "", "bench latency/throughput: write the results as JSON here");
// bench one-batch (SGLang's bench_one_batch)
ABSL_FLAG(std::string, run_name, "default", "bench one-batch: the run_name of the result line");
ABSL_FLAG(bool, disable_cuda_graph, false, "bench: --enforce-eager as SGLang spells it");
// bench serve
ABSL_FLAG(std::string, request_rate, "inf",
          "bench serve: requests per second, or inf (all at once); a list (1,2,4,inf) runs each");
ABSL_FLAG(double, burstiness, 1.0, "bench serve: gamma shape of the request intervals (1: Poisson)");
ABSL_FLAG(int64_t, concurrency, 0, "bench: --max-concurrency as trtllm-bench spells it");
ABSL_FLAG(bool, ignore_eos, false, "bench serve: accepted; simulated requests always run to max_tokens");
ABSL_FLAG(std::string, goodput, "",
          "bench serve: SLOs as KEY:VALUE in ms (ttft, tpot, e2el), separated by spaces or commas");
ABSL_FLAG(std::string, percentile_metrics, "",
          "bench serve: metrics with percentiles (default ttft,tpot,itl; also e2el, client_queue_time, "
          "e2el_including_client_queue)");
ABSL_FLAG(std::string, metric_percentiles, "99", "bench serve: percentiles to report, e.g. 25,50,99");
ABSL_FLAG(bool, save_result, false, "bench serve: save the result JSON");
ABSL_FLAG(bool, save_detailed, false, "bench serve: with per-request lists (ttfts, itls, ...)");
ABSL_FLAG(bool, append_result, false, "bench serve: append the result as a JSON line");
ABSL_FLAG(std::string, result_dir, "", "bench serve: folder of the saved result");
ABSL_FLAG(std::string, result_filename, "",
          "bench serve: file name of the saved result (default {label}-{rate}qps[-concurrency{N}]-{model}-{date}.json); "
          "one-batch: the JSON-lines file its result line is appended to (default: none written)");
ABSL_FLAG(std::string, label, "", "bench serve: label of the result (default: --backend)");
ABSL_FLAG(std::string, metadata, "", "bench serve: KEY=VALUE pairs saved in the result");
ABSL_FLAG(std::string, client, "vllm",
          "bench serve: whose benchmark client to mirror: vllm (vllm bench serve) or sglang (python -m "
          "sglang.bench_serving: its random lengths, Poisson schedule, seed 1 and report)");
ABSL_FLAG(double, measurement_interval, 10000,
          "bench serve --client=genai-perf: the measurement window, ms (genai-perf's 10,000)");
ABSL_FLAG(double, stability_percentage, 999,
          "bench serve --client=genai-perf: three windows within this percent of one another are stable "
          "(genai-perf passes 999; perf_analyzer's own default is 10)");
ABSL_FLAG(int32_t, max_trials, 10, "bench serve --client=genai-perf: windows tried for a stable measurement");
ABSL_FLAG(int64_t, warmup_request_count, 0, "bench serve --client=genai-perf: requests sent before measuring");
ABSL_FLAG(int64_t, request_count, 0,
          "bench serve --client=genai-perf: measure exactly this many requests after the warm-up, one window "
          "(0: time windows)");
ABSL_FLAG(std::string, request_distribution, "constant",
          "bench serve --client=genai-perf with --request-rate: constant or poisson intervals");
ABSL_FLAG(std::string, profile_export_file, "",
          "bench serve --client=genai-perf: write genai-perf's profile_export_genai_perf.json metrics here");
ABSL_FLAG(std::string, backend, "", "bench: the client backend named in the result (serve: openai)");
ABSL_FLAG(std::string, tokenizer, "", "bench: accepted; token counts follow the model's tokenizer family");
ABSL_FLAG(int64_t, num_warmups, 0, "bench serve: accepted; warm-up requests are not timed");
ABSL_FLAG(bool, enable_chunked_prefill, false,
          "bench: chunked prefill (vLLM V0 engines; V1 always chunks)");
ABSL_FLAG(bool, disable_detokenize, false, "bench: accepted (detokenization is host time in the engine)");
ABSL_FLAG(std::string, load_format, "auto", "bench: accepted (dummy weights time as real ones)");
ABSL_FLAG(int64_t, max_batch_size, 0, "bench: --max-num-seqs as TensorRT-LLM spells it");
ABSL_FLAG(int64_t, max_num_tokens, 0, "bench: --max-num-batched-tokens as TensorRT-LLM spells it");
ABSL_FLAG(int32_t, tp_size, 0, "bench: --tensor-parallel-size as SGLang spells it");
ABSL_FLAG(std::string, dataset, "",
          "bench throughput/serve: vLLM's older --dataset, a ShareGPT file: --dataset-name=sharegpt "
          "--dataset-path=FILE");
ABSL_FLAG(bool, disable_log_stats, false, "bench: the server's flag, accepted (logging is not simulated)");
ABSL_FLAG(bool, disable_log_requests, false, "bench: the server's flag, accepted (logging is not simulated)");
ABSL_FLAG(bool, trust_remote_code, false, "bench: accepted (no model code is loaded)");
ABSL_FLAG(std::string, model_path, "", "bench: --model as SGLang spells it (--model-path)");
ABSL_FLAG(int32_t, tp, 0, "bench: --tensor-parallel-size as vLLM (-tp), SGLang and trtllm-bench (--tp) abbreviate it");
ABSL_FLAG(int32_t, pp, 0, "bench: --pipeline-parallel-size as vLLM (-pp) and trtllm-bench (--pp) abbreviate it");
ABSL_FLAG(std::string, compare, "",
          "bench: a real run's saved result (vLLM JSON, SGLang JSONL) to print predicted vs measured");
ABSL_FLAG(std::string, result_date, "", "bench serve: the date in the result (default: now, %Y%m%d-%H%M%S)");

namespace infergrid::cli {

std::vector<absl::string_view> BenchFlagNames(absl::string_view mode) {
  std::vector<absl::string_view> names(AccountingFlagNames());
  for (absl::string_view name : EngineFlagNames()) names.push_back(name);
  for (absl::string_view name : SpeculativeFlagNames()) names.push_back(name);  // vLLM's engine arguments
  for (absl::string_view name :
       {"calibration", "num_scheduler_steps", "multi_step_stream_outputs", "disable_async_output_proc",
        "chunked_prefill_size", "capacity_scheduler_policy",
        "no_async_scheduling", "disable_overlap_schedule", "disable_overlap_scheduler", "disable_custom_all_reduce",
        "cpu_speed", "front_end", "front_end_file", "api_server_count", "noise", "iteration_noise", "send_jitter", "preemption_mode", "swap_space", "enable_prefix_caching", "num_replicas", "cost_model", "seed",
        "n", "compare", "client", "measurement_interval", "stability_percentage", "max_trials",
        "warmup_request_count", "request_count", "request_distribution", "profile_export_file", "backend", "tokenizer", "enable_chunked_prefill", "disable_detokenize", "load_format",
        "max_batch_size", "max_num_tokens", "tp_size", "tp", "pp", "disable_cuda_graph", "input_len", "output_len",
        "disable_log_stats", "disable_log_requests", "trust_remote_code", "model_path"}) {
    names.push_back(name);
  }
  const auto add = [&](const std::vector<absl::string_view>& list) { names.insert(names.end(), list.begin(), list.end()); };
  const std::vector<absl::string_view> datasets = {"dataset", "dataset_name", "dataset_path", "num_prompts", "random_input_len", "random_output_len",
                         "random_range_ratio", "random_prefix_len", "sharegpt_output_len", "sonnet_input_len",
                         "sonnet_output_len", "sonnet_prefix_len", "custom_output_len", "skip_chat_template",
                         "no_oversample", "trace_format"};
  if (mode == "latency") {
    add({"batch_size", "num_iters_warmup", "num_iters", "output_json"});
  } else if (mode == "one-batch") {
    add({"batch_size", "run_name", "result_filename"});
  } else if (mode == "throughput") {
    add(datasets);
    add({"prefix_len", "output_json", "max_concurrency", "concurrency"});
  } else {
    add(datasets);
    add({"self_timed", "request_rate", "burstiness", "max_concurrency", "concurrency", "ignore_eos", "goodput",
         "percentile_metrics", "metric_percentiles", "save_result", "save_detailed", "append_result", "result_dir",
         "result_filename", "label", "metadata", "num_warmups", "result_date"});
  }
  return names;
}

}  // namespace infergrid::cli
