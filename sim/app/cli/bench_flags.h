// The flags of `infergrid bench latency|throughput|serve|one-batch`, named and defaulted as
// vLLM's `vllm bench` names them (vllm/benchmarks/{latency,throughput,serve}.py and datasets)
// and SGLang's bench_one_batch its own, plus the SGLang / TensorRT-LLM spellings of the same
// settings (--concurrency, --max_batch_size, --max_num_tokens, --tp-size, --disable-cuda-graph) and InferGrid's own (--compare, --result-date). The engine,
// model and GPU flags are simulate's (accounting_setup.h, simulate_flags.h).
#ifndef INFERGRID_SIM_APP_CLI_BENCH_FLAGS_H_
#define INFERGRID_SIM_APP_CLI_BENCH_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/strings/string_view.h"

ABSL_DECLARE_FLAG(std::string, dataset_name);
ABSL_DECLARE_FLAG(std::string, dataset_path);
ABSL_DECLARE_FLAG(int64_t, num_prompts);
ABSL_DECLARE_FLAG(int64_t, input_len);
ABSL_DECLARE_FLAG(int64_t, output_len);
ABSL_DECLARE_FLAG(int64_t, random_input_len);
ABSL_DECLARE_FLAG(int64_t, random_output_len);
ABSL_DECLARE_FLAG(double, random_range_ratio);
ABSL_DECLARE_FLAG(int64_t, random_prefix_len);
ABSL_DECLARE_FLAG(int64_t, prefix_len);
ABSL_DECLARE_FLAG(int64_t, sharegpt_output_len);
ABSL_DECLARE_FLAG(int64_t, sonnet_input_len);
ABSL_DECLARE_FLAG(int64_t, sonnet_output_len);
ABSL_DECLARE_FLAG(int64_t, sonnet_prefix_len);
ABSL_DECLARE_FLAG(int64_t, custom_output_len);
ABSL_DECLARE_FLAG(bool, skip_chat_template);
ABSL_DECLARE_FLAG(bool, no_oversample);
ABSL_DECLARE_FLAG(bool, self_timed);
ABSL_DECLARE_FLAG(int64_t, batch_size);
ABSL_DECLARE_FLAG(int64_t, n);
ABSL_DECLARE_FLAG(int64_t, num_iters_warmup);
ABSL_DECLARE_FLAG(int64_t, num_iters);
ABSL_DECLARE_FLAG(std::string, output_json);
ABSL_DECLARE_FLAG(std::string, run_name);
ABSL_DECLARE_FLAG(bool, disable_cuda_graph);
ABSL_DECLARE_FLAG(std::string, request_rate);
ABSL_DECLARE_FLAG(double, burstiness);
ABSL_DECLARE_FLAG(int64_t, concurrency);
ABSL_DECLARE_FLAG(bool, ignore_eos);
ABSL_DECLARE_FLAG(std::string, goodput);
ABSL_DECLARE_FLAG(std::string, percentile_metrics);
ABSL_DECLARE_FLAG(std::string, metric_percentiles);
ABSL_DECLARE_FLAG(bool, save_result);
ABSL_DECLARE_FLAG(bool, save_detailed);
ABSL_DECLARE_FLAG(bool, append_result);
ABSL_DECLARE_FLAG(std::string, result_dir);
ABSL_DECLARE_FLAG(std::string, result_filename);
ABSL_DECLARE_FLAG(std::string, label);
ABSL_DECLARE_FLAG(std::string, metadata);
ABSL_DECLARE_FLAG(std::string, backend);
ABSL_DECLARE_FLAG(std::string, client);
ABSL_DECLARE_FLAG(double, measurement_interval);
ABSL_DECLARE_FLAG(double, stability_percentage);
ABSL_DECLARE_FLAG(int32_t, max_trials);
ABSL_DECLARE_FLAG(int64_t, warmup_request_count);
ABSL_DECLARE_FLAG(int64_t, request_count);
ABSL_DECLARE_FLAG(std::string, request_distribution);
ABSL_DECLARE_FLAG(std::string, profile_export_file);
ABSL_DECLARE_FLAG(std::string, tokenizer);
ABSL_DECLARE_FLAG(int64_t, num_warmups);
ABSL_DECLARE_FLAG(bool, enable_chunked_prefill);
ABSL_DECLARE_FLAG(bool, disable_detokenize);
ABSL_DECLARE_FLAG(std::string, load_format);
ABSL_DECLARE_FLAG(int64_t, max_batch_size);
ABSL_DECLARE_FLAG(int64_t, max_num_tokens);
ABSL_DECLARE_FLAG(int32_t, tp_size);
ABSL_DECLARE_FLAG(int32_t, tp);
ABSL_DECLARE_FLAG(std::string, dataset);
ABSL_DECLARE_FLAG(std::string, model_path);
ABSL_DECLARE_FLAG(int32_t, pp);
ABSL_DECLARE_FLAG(std::string, compare);
ABSL_DECLARE_FLAG(std::string, result_date);

namespace infergrid::cli {

// Every flag `bench MODE` accepts: its own, the engine's and the model's.
std::vector<absl::string_view> BenchFlagNames(absl::string_view mode);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_BENCH_FLAGS_H_
