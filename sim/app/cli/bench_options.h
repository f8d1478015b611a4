// Every setting of one `infergrid bench latency|throughput|serve|one-batch` run, read from its
// flags once and checked, as vLLM's scripts (and SGLang's bench_one_batch) read theirs: the
// client (dataset, request rates, concurrency, reports) and the engine it runs against (the
// simulate options the same engine, model and GPU flags give). Aliases (--concurrency,
// --max_batch_size, --max_num_tokens, --tp-size, --disable-cuda-graph, --input-len and
// --output-len for serve's datasets) resolve here; giving both spellings is a usage error.
#ifndef INFERGRID_SIM_APP_CLI_BENCH_OPTIONS_H_
#define INFERGRID_SIM_APP_CLI_BENCH_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/app/bench/aiperf_metrics.h"
#include "sim/app/bench/bench_dataset.h"
#include "sim/app/bench/perf_windows.h"
#include "sim/app/bench/serve_metrics.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/simulate_options.h"

namespace infergrid::cli {

enum class BenchMode { kLatency, kThroughput, kServe, kOneBatch };

struct BenchOptions {
  BenchMode mode = BenchMode::kServe;
  SimulateOptions engine;  // the engine, model, GPU and memory plan
  std::string model_id;  // --model as given (the result's model_id)
  bench::DatasetOptions dataset;
  int64_t n = 1;  // sequences per prompt
  bool enable_chunked_prefill = false;  // --enable-chunked-prefill given (trtllm-bench's max-ISL floor)
  // latency (vLLM's defaults; one-batch: SGLang's, 1, 1024 and 16)
  int64_t batch_size = 8;
  int64_t input_len = 32;
  int64_t output_len = 128;
  int64_t num_iters = 30;
  std::string output_json;  // latency and throughput
  std::string run_name = "default";  // one-batch: the run_name of its JSON line
  // one-batch: SGLang's lists (nargs="+", --batch-size 1 8 16), run as its script runs them:
  // every (batch size, input length, output length) in itertools.product order. The first of
  // each is batch_size, input_len and output_len.
  std::vector<int64_t> batch_sizes, input_lens, output_lens;
  // serve (and throughput's --concurrency)
  std::vector<double> request_rates;  // inf: all at once
  double burstiness = 1;
  // vLLM's --ramp-up-strategy (empty: none) and its rates, req/s.
  std::string ramp_up_strategy;
  double ramp_up_start_rps = 0;
  double ramp_up_end_rps = 0;
  // The flags given that cannot change a simulation ("--host", "--port"), for one note.
  std::vector<std::string> inert_flags;
  std::optional<int64_t> max_concurrency;
  bool self_timed = false;
  bench::GoodputSlo goodput;
  std::vector<std::string> percentile_metrics;
  std::vector<double> percentiles;
  bool save_result = false;
  bool save_detailed = false;
  bool append_result = false;
  std::string result_dir;
  std::string result_filename;  // serve's saved result; one-batch's JSON lines (appended)
  std::optional<std::string> label;
  std::string backend;
  std::string client = "vllm";  // --client: vllm, sglang, genai-perf or aiperf (serve)
  bench::PerfWindowOptions perf;  // genai-perf's measurement
  bool poisson = false;  // genai-perf --request-distribution=poisson
  std::string profile_export_file;
  bench::AiperfRunOptions aiperf;  // NVIDIA aiperf's run (--client=aiperf)
  std::vector<std::pair<std::string, std::string>> metadata;
  std::string result_date;  // empty: now
  std::string compare_path;
};

absl::StatusOr<BenchMode> ParseBenchMode(absl::string_view mode);

// The values given after a flag's first one, by flag name (ParsedCommandLine's
// positional_after_flag): one-batch's --batch-size, --input-len and --output-len take lists,
// as SGLang's script does; any other flag, or any list outside one-batch, is a usage error.
// Fills o's one-batch lists (a flag given once is a list of one).
absl::Status ReadBenchLists(const std::vector<std::pair<std::string, std::string>>& more_values, BenchOptions* o);

// Usage errors (exit 2) name the flag; a model or GPU file that does not parse is bad input.
absl::StatusOr<BenchOptions> ReadBenchOptions(BenchMode mode, const FlagValues& flags);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_BENCH_OPTIONS_H_
