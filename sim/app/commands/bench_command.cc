// `infergrid bench latency|throughput|serve|one-batch`: the engines' benchmark commands against
// the simulated engine, with their flags, their printed reports and their saved JSON (vLLM's
// `vllm bench`, formerly benchmarks/benchmark_{latency,throughput,serving}.py, and SGLang's
// bench_one_batch), so a predicted run and a real one read the same; --compare=REAL.json prints
// predicted vs measured.
//   latency     one batch of --batch-size prompts submitted together, timed to its last token
//   throughput  a dataset submitted at once (offline), requests and tokens per second
//   serve       a dataset sent at --request-rate (a list runs each), optionally under
//               --max-concurrency, with TTFT, TPOT, ITL and E2E latency statistics
//   one-batch   SGLang's static batch through the model runner: the prefill and every decode
//               step timed on their own (one_batch_simulation.h)
// The simulator is deterministic: latency's timed iterations all take the same time.
#include <algorithm>
#include <filesystem>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/interrupt_cleanup.h"
#include "sim/app/bench/aiperf_metrics.h"
#include "sim/app/bench/bench_dataset.h"
#include "sim/app/bench/compare_result.h"
#include "sim/app/bench/numpy_random.h"
#include "sim/app/bench/offline_results.h"
#include "sim/app/bench/perf_windows.h"
#include "sim/app/bench/one_batch_result.h"
#include "sim/app/bench/python_json.h"
#include "sim/app/bench/request_schedule.h"
#include "sim/app/bench/serve_metrics.h"
#include "sim/app/bench/serve_result.h"
#include "sim/app/bench/sglang_serving.h"
#include "sim/app/cli/bench_flags.h"
#include "sim/app/cli/bench_options.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/run/bench_run.h"
#include "sim/app/commands/command.h"
#include "sim/app/run/one_batch_simulation.h"
#include "sim/app/run/resolved_simulation.h"
#include "sim/app/run/trtllm_bench_settings.h"
#include "sim/app/report/staged_file.h"

namespace infergrid {
namespace {

using bench::PyJson;
using cli::BenchMode;
using cli::BenchOptions;

const char* ModeName(BenchMode mode) {
  switch (mode) {
    case BenchMode::kLatency: return "latency";
    case BenchMode::kThroughput: return "throughput";
    case BenchMode::kServe: return "serve";
    case BenchMode::kOneBatch: return "one-batch";
  }
  return "serve";
}

std::string NowDate() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm local{};
  localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof(text), "%Y%m%d-%H%M%S", &local);
  return text;
}

std::string Header(const ResolvedSimulation& resolved, BenchMode mode) {
  return absl::StrCat("InferGrid bench ", ModeName(mode), " (simulated): ", resolved.setup.title, ", engine ",
                      resolved.setup.personality.engine(), "@", resolved.setup.personality.version(),
                      resolved.setup.engine_note.empty() ? "" : absl::StrCat("; ", resolved.setup.engine_note), "\n");
}

// The files of the run, staged, committed once everything else succeeded.
struct Outputs {
  std::vector<report::StagedFile> files;
  absl::Status Stage(const std::string& path, const std::string& text, absl::string_view flag) {
    absl::StatusOr<report::StagedFile> staged = report::StagedFile::Stage(path, text, flag);
    if (!staged.ok()) return staged.status();
    files.push_back(*std::move(staged));
    return absl::OkStatus();
  }
  absl::Status Commit() {
    CommitSection committing;  // SIGINT/SIGTERM wait until every file is in place
    for (report::StagedFile& f : files) {
      if (absl::Status s = f.Commit(); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
};

// With prefix caching on, the share of the prompt tokens the cache held (stderr: the report
// stays the engine's own).
void NotePrefixCache(const ResolvedSimulation& resolved, const bench::ClientRun& run) {
  if (!resolved.options.prefix_caching || run.prompt_tokens() <= 0) return;
  std::cerr << "infergrid bench: note: prefix cache hits: " << static_cast<int64_t>(run.cached_prompt_tokens())
            << " of " << static_cast<int64_t>(run.prompt_tokens()) << " prompt tokens ("
            << absl::StrFormat("%.1f", 100 * run.cached_prompt_tokens() / run.prompt_tokens()) << "%)\n";
}

absl::Status AppendComparison(const BenchOptions& o, const std::vector<nlohmann::json>& real, const PyJson& predicted,
                              std::ostream& out) {
  if (o.compare_path.empty()) return absl::OkStatus();
  absl::StatusOr<bench::Comparison> comparison = bench::CompareResults(predicted, real, o.compare_path);
  if (!comparison.ok()) return comparison.status();
  out << "\n" << bench::ComparisonText(*comparison, o.compare_path);
  return absl::OkStatus();
}

// The text already in `path` (empty when there is no such file): what an appending script adds to.
std::string ExistingText(const std::string& path) {
  std::string text;
  if (!std::filesystem::is_regular_file(path)) return text;  // a FIFO would block; it is written through
  if (std::ifstream in(path); in) text.assign(std::istreambuf_iterator<char>(in), {});
  return text;
}

// One batch of --batch-size token-id prompts (no special tokens added) of --input-len tokens,
// --output-len tokens each, all submitted together; every request of it must be served.
absl::StatusOr<bench::ClientRun> SimulateFixedBatch(const BenchOptions& o, const ResolvedSimulation& resolved,
                                                    int64_t copies) {
  std::vector<bench::BenchRequest> batch(static_cast<size_t>(o.batch_size));
  for (bench::BenchRequest& r : batch) {
    r.prompt_len = static_cast<int32_t>(o.input_len);
    r.output_len = static_cast<int32_t>(o.output_len);
  }
  absl::StatusOr<bench::ClientRun> run =
      SimulateClientRun(resolved, batch, std::vector<double>(batch.size(), 0.0), copies);
  if (!run.ok()) return run.status();
  for (const bench::ClientRequestOutcome& r : run->requests()) {
    if (!r.success()) return absl::FailedPreconditionError(absl::StrCat("a request of the batch failed: ", r.error()));
  }
  return run;
}

absl::Status RunLatency(const BenchOptions& o, const ResolvedSimulation& resolved,
                        const std::vector<nlohmann::json>& real, Outputs& outputs, std::ostream& out) {
  if (o.input_len + o.output_len > resolved.setup.engine.max_model_len) {
    return cli::UsageError(absl::StrCat("--input-len + --output-len = ", o.input_len + o.output_len,
                                        " exceeds max_model_len ", resolved.setup.engine.max_model_len));
  }
  absl::StatusOr<bench::ClientRun> run = SimulateFixedBatch(o, resolved, o.n);
  if (!run.ok()) return run.status();
  bench::LatencyResult result;
  result.latencies.assign(static_cast<size_t>(o.num_iters), run->duration_s());
  out << Header(resolved, BenchMode::kLatency) << bench::LatencyResultText(result);
  const PyJson json = bench::LatencyResultJson(result);
  if (!o.output_json.empty()) {
    if (absl::Status s = outputs.Stage(o.output_json, bench::DumpPythonJson(json, 4), "--output-json"); !s.ok())
      return s;
  }
  return AppendComparison(o, real, json, out);
}

// SGLang's bench_one_batch: latency_test_run_once for every (batch size, input length, output
// length) of its lists, in itertools.product order. A point whose tokens do not fit the KV cache
// is skipped (one line), as the script skips it; every other prints its report, and its JSON
// line is appended to --result-filename when one is given. The engine is resolved once, for the
// largest batch (the script sets cuda_graph_max_bs to it).
absl::Status RunOneBatch(const BenchOptions& o, const ResolvedSimulation& engine_sim,
                         const std::vector<nlohmann::json>& real, Outputs& outputs, std::ostream& out) {
  const int64_t largest_batch = *std::max_element(o.batch_sizes.begin(), o.batch_sizes.end());
  const int64_t longest_input = *std::max_element(o.input_lens.begin(), o.input_lens.end());
  absl::StatusOr<ResolvedSimulation> resolved = OneBatchSimulation(engine_sim, largest_batch, longest_input);
  if (!resolved.ok()) return resolved.status();
  for (const int64_t input_len : o.input_lens) {
    for (const int64_t output_len : o.output_lens) {
      if (input_len + output_len > resolved->setup.engine.max_model_len) {
        return cli::UsageError(absl::StrCat("--input-len + --output-len = ", input_len + output_len,
                                            " exceeds the context length ", resolved->setup.engine.max_model_len));
      }
    }
  }
  const int64_t max_total_num_tokens = resolved->setup.memory_plan.kv_tokens;
  out << Header(*resolved, BenchMode::kOneBatch) << "max_total_num_tokens=" << max_total_num_tokens << "\n";
  out << "Benchmark ...\n";
  std::string lines = o.result_filename.empty() ? "" : ExistingText(o.result_filename);
  bool appended = false;
  for (const int64_t batch_size : o.batch_sizes) {
    for (const int64_t input_len : o.input_lens) {
      for (const int64_t output_len : o.output_lens) {
        if (batch_size > max_total_num_tokens / (input_len + output_len)) {
          out << "skipping (" << batch_size << ", " << input_len << ", " << output_len
              << ") due to max batch size limit\n";
          continue;
        }
        BenchOptions point = o;
        point.batch_size = batch_size;
        point.input_len = input_len;
        point.output_len = output_len;
        // The prefill samples the first token; output_len - 1 decode steps follow.
        absl::StatusOr<bench::ClientRun> run = SimulateFixedBatch(point, *resolved, 1);
        if (!run.ok()) return run.status();
        // The batch moves in lockstep: its first request's token times are every request's.
        const bench::ClientRequestOutcome& first = run->requests(0);
        bench::OneBatchResult result;
        result.run_name = o.run_name;
        result.batch_size = batch_size;
        result.input_len = input_len;
        result.output_len = output_len;
        result.prefill_latency = first.ttft();
        result.decode_latencies.assign(first.itl().begin(), first.itl().end());
        if (static_cast<int64_t>(result.decode_latencies.size()) != output_len - 1) {
          return absl::InternalError(absl::StrCat("bench one-batch: ", result.decode_latencies.size(),
                                                  " decode steps timed, expected ", output_len - 1));
        }
        out << bench::OneBatchResultText(result);
        const PyJson json = bench::OneBatchResultJson(result);
        // The script appends one json.dumps line per point.
        lines += bench::DumpPythonJson(json) + "\n";
        appended = true;
        if (absl::Status s = AppendComparison(o, real, json, out); !s.ok()) return s;
      }
    }
  }
  if (appended && !o.result_filename.empty()) {
    if (absl::Status s = outputs.Stage(o.result_filename, lines, "--result-filename"); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// trtllm-bench's limits, as its report shows them: the log lines of its choice (when it chose),
// and the runtime limits the engine ran with.
struct TrtllmBenchInfo {
  std::optional<TrtllmBenchChoice> choice;
  bool trtllm = false;
};

absl::Status RunThroughput(const BenchOptions& o, const ResolvedSimulation& resolved,
                           const std::vector<bench::BenchRequest>& requests, const std::vector<nlohmann::json>& real,
                           const TrtllmBenchInfo& trtllm, Outputs& outputs, std::ostream& out) {
  for (size_t i = 0; i < requests.size(); ++i) {
    const bench::BenchRequest& r = requests[i];
    if (int64_t{r.prompt_len} + r.server_extra + r.output_len > resolved.setup.engine.max_model_len) {
      return absl::InvalidArgumentError(
          absl::StrCat("request ", i, " of the dataset needs ", int64_t{r.prompt_len} + r.server_extra + r.output_len,
                       " tokens, more than max_model_len ", resolved.setup.engine.max_model_len));
    }
  }
  absl::StatusOr<bench::ClientRun> run =
      SimulateClientRun(resolved, requests, std::vector<double>(requests.size(), 0.0), o.n);
  if (!run.ok()) return run.status();
  NotePrefixCache(resolved, *run);
  bench::ThroughputResult result;
  result.elapsed_time = run->duration_s();
  result.num_requests = static_cast<int64_t>(requests.size());
  for (const bench::BenchRequest& r : requests) result.total_prompt_tokens += int64_t{r.prompt_len} + r.server_extra;
  for (const bench::ClientRequestOutcome& r : run->requests()) {
    if (!r.success()) return absl::FailedPreconditionError(absl::StrCat("a request failed: ", r.error()));
    result.total_output_tokens += r.output_tokens();
  }
  out << Header(resolved, BenchMode::kThroughput);
  if (trtllm.choice) {
    for (const std::string& line : trtllm.choice->log_lines) out << line << "\n";
  }
  out << bench::ThroughputResultText(result);
  PyJson json = bench::ThroughputResultJson(result);
  if (trtllm.trtllm) {
    const SchedulerLimits& limits = resolved.setup.engine.limits;
    out << "\n"
        << TrtllmRuntimeInfoText(
               resolved.options.memory.tensor_parallel * resolved.options.memory.attention_data_parallel,
               resolved.options.memory.pipeline_parallel, limits.max_num_seqs, limits.max_num_batched_tokens);
    // trtllm-bench's --report_json keeps them under world_info.
    PyJson world = PyJson::object();
    world["max_batch_size"] = limits.max_num_seqs;
    world["max_num_tokens"] = limits.max_num_batched_tokens;
    json["world_info"] = std::move(world);
  }
  if (!o.output_json.empty()) {
    if (absl::Status s = outputs.Stage(o.output_json, bench::DumpPythonJson(json, 4), "--output-json"); !s.ok())
      return s;
  }
  return AppendComparison(o, real, json, out);
}

std::string ResultPath(const BenchOptions& o, const bench::ServeRunInfo& info) {
  std::string name = o.result_filename;
  if (name.empty()) {
    const std::string base_model = o.model_id.substr(o.model_id.rfind('/') + 1);
    const std::string rate = std::isinf(info.request_rate) ? "inf" : bench::PythonFloatRepr(info.request_rate);
    const std::string concurrency = o.max_concurrency ? absl::StrCat("-concurrency", *o.max_concurrency) : "";
    name = absl::StrCat(o.label.value_or(o.backend), "-", rate, "qps", concurrency, "-", base_model, "-", info.date,
                        ".json");
  }
  return o.result_dir.empty() ? name : absl::StrCat(o.result_dir, "/", name);
}

std::vector<bench::RequestOutcome> Outcomes(const bench::ClientRun& run) {
  std::vector<bench::RequestOutcome> outcomes;
  for (const bench::ClientRequestOutcome& r : run.requests()) {
    bench::RequestOutcome outcome;
    outcome.success = r.success();
    outcome.prompt_len = r.prompt_len();
    outcome.output_tokens = r.output_tokens();
    outcome.start_time = r.start_time();
    outcome.queue_time = r.queue_time();
    outcome.ttft = r.ttft();
    outcome.latency = r.latency();
    outcome.itl.assign(r.itl().begin(), r.itl().end());
    outcome.error = r.error();
    outcomes.push_back(std::move(outcome));
  }
  return outcomes;
}

// genai-perf's run: as many requests as its measurement windows need (doubled until the load is
// still steady when the last window ends), measured as perf_analyzer measures
// (sim/app/bench/perf_windows.h).
absl::Status RunGenaiPerf(const BenchOptions& o, const ResolvedSimulation& resolved, Outputs& outputs,
                          std::ostream& out) {
  out << Header(resolved, BenchMode::kServe);
  const double rate = o.request_rates[0];
  const int64_t concurrency = o.max_concurrency.value_or(0);
  int64_t count = o.perf.request_count > 0 ? o.perf.warmup_requests + o.perf.request_count
                                           : std::max<int64_t>(200, bench::kGenaiPerfRequestsPerSlot * concurrency);
  for (int attempt = 0; attempt < 16 && count <= bench::kMaxGenaiPerfRequests; ++attempt, count *= 2) {
    bench::DatasetOptions dataset = o.dataset;
    dataset.num_prompts = count;
    absl::StatusOr<std::vector<bench::BenchRequest>> requests = bench::SampleDataset(dataset);
    if (!requests.ok()) return requests.status();
    std::vector<double> send_times(requests->size(), 0.0);
    if (!std::isinf(rate)) {
      bench::LegacyRandomState random(static_cast<uint32_t>(o.dataset.seed));
      for (size_t i = 1; i < send_times.size(); ++i) {
        send_times[i] = send_times[i - 1] + (o.poisson ? random.StandardExponential() : 1.0) / rate;
      }
    }
    absl::StatusOr<bench::ClientRun> run = SimulateClientRun(resolved, *requests, send_times, 1);
    if (!run.ok()) return run.status();
    const std::vector<bench::RequestOutcome> outcomes = Outcomes(*run);
    double last_send = 0;
    for (const bench::RequestOutcome& r : outcomes) last_send = std::max(last_send, r.start_time);
    absl::StatusOr<bench::PerfMeasurement> m = bench::MeasureWindows(outcomes, last_send, o.perf);
    if (absl::IsNotFound(m.status())) continue;
    if (!m.ok()) return m.status();
    NotePrefixCache(resolved, *run);
    const bench::GenaiPerfMetrics metrics = bench::ComputeGenaiPerfMetrics(outcomes, *m);
    out << (concurrency > 0 ? absl::StrCat("concurrency ", concurrency) : absl::StrCat("request rate ", rate)) << ", "
        << count << " requests simulated\n"
        << bench::GenaiPerfResultText(metrics, *m);
    if (!o.profile_export_file.empty()) {
      return outputs.Stage(o.profile_export_file, bench::DumpPythonJson(bench::GenaiPerfJson(metrics), 4),
                           "--profile-export-file");
    }
    return absl::OkStatus();
  }
  return absl::ResourceExhaustedError(absl::StrCat("genai-perf: the measurement windows need more than ", count / 2,
                                                   " requests (one run simulates at most ",
                                                   bench::kMaxGenaiPerfRequests, ")"));
}

// aiperf's requests: --num-dataset-entries prompts, each request one drawn at random (its
// dataset_manager.py's random choice); a prompt drawn again is the same text, so the engine's
// prefix cache finds it (the whole prompt shared within its entry's prefix group).
absl::StatusOr<std::vector<bench::BenchRequest>> AiperfRequests(const BenchOptions& o, int64_t count) {
  bench::DatasetOptions dataset = o.dataset;
  dataset.num_prompts = std::min(count, o.aiperf.dataset_entries);
  absl::StatusOr<std::vector<bench::BenchRequest>> entries = bench::SampleDataset(dataset);
  if (!entries.ok()) return entries.status();
  if (static_cast<int64_t>(entries->size()) >= count) return entries;  // every request its own prompt
  for (size_t e = 0; e < entries->size(); ++e) {
    (*entries)[e].prefix_group = static_cast<int32_t>(e + 1);
    (*entries)[e].shared_prefix_len = (*entries)[e].prompt_len;
  }
  std::vector<bench::BenchRequest> requests;
  bench::LegacyRandomState random(static_cast<uint32_t>(o.dataset.seed) ^ 0x5eedu);
  const auto n = static_cast<int64_t>(entries->size());
  for (int64_t i = 0; i < count; ++i) requests.push_back((*entries)[static_cast<size_t>(random.RandInt(n))]);
  return requests;
}

// One phase's send times from its start: all at once (the concurrency releases them) or at
// the rate, with Poisson or constant gaps.
void AppendAiperfSchedule(const BenchOptions& o, int64_t n, double start, bench::LegacyRandomState& random,
                          std::vector<double>& times) {
  const double rate = o.request_rates[0];
  double t = start;
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0 && !std::isinf(rate)) t += (o.aiperf.poisson ? random.StandardExponential() : 1.0) / rate;
    times.push_back(t);
  }
}

// aiperf's two phases: the warm-up requests, then, once every warm-up response is back
// (credit_issuing_strategy.py waits for a phase's credits before the next), the measured ones on
// a schedule of their own. The warm-up's end is found by simulating the warm-up alone.
absl::StatusOr<std::vector<double>> AiperfSendTimes(const BenchOptions& o, const ResolvedSimulation& resolved,
                                                    const std::vector<bench::BenchRequest>& requests) {
  bench::LegacyRandomState random(static_cast<uint32_t>(o.dataset.seed));
  std::vector<double> times;
  const int64_t warmup = o.aiperf.warmup_requests;
  AppendAiperfSchedule(o, warmup, 0, random, times);
  double profiling_start = 0;
  if (warmup > 0) {
    const std::vector<bench::BenchRequest> warmup_requests(requests.begin(), requests.begin() + warmup);
    absl::StatusOr<bench::ClientRun> run = SimulateClientRun(resolved, warmup_requests, times, 1);
    if (!run.ok()) return run.status();
    for (const bench::RequestOutcome& r : Outcomes(*run)) {
      profiling_start = std::max(profiling_start, r.start_time + r.latency);
    }
  }
  AppendAiperfSchedule(o, o.aiperf.request_count, profiling_start, random, times);
  return times;
}

// NVIDIA aiperf's run: --warmup-request-count requests, then --request-count measured ones, at
// the concurrency or the rate (constant or Poisson gaps); its metrics, console table and
// profile_export_aiperf.json / .csv in the artifact folder (sim/app/bench/aiperf_metrics.h).
absl::Status RunAiperf(const BenchOptions& o, const ResolvedSimulation& resolved, Outputs& outputs, std::ostream& out) {
  out << Header(resolved, BenchMode::kServe);
  const double rate = o.request_rates[0];
  const int64_t count = o.aiperf.warmup_requests + o.aiperf.request_count;
  absl::StatusOr<std::vector<bench::BenchRequest>> requests = AiperfRequests(o, count);
  if (!requests.ok()) return requests.status();
  absl::StatusOr<std::vector<double>> send_times = AiperfSendTimes(o, resolved, *requests);
  if (!send_times.ok()) return send_times.status();
  absl::StatusOr<bench::ClientRun> run = SimulateClientRun(resolved, *requests, *send_times, 1);
  if (!run.ok()) return run.status();
  NotePrefixCache(resolved, *run);
  const bench::AiperfMetrics metrics = bench::ComputeAiperfMetrics(Outcomes(*run), o.aiperf.warmup_requests);
  std::string load;
  if (o.max_concurrency) load = absl::StrCat("concurrency ", *o.max_concurrency);
  if (!std::isinf(rate)) {
    absl::StrAppend(&load, load.empty() ? "" : ", ", "request rate ", rate,
                    o.aiperf.poisson ? " (poisson)" : " (constant)");
  }
  out << load << ", " << o.aiperf.warmup_requests << " warm-up + " << o.aiperf.request_count << " requests simulated\n"
      << bench::AiperfResultText(metrics) << "export: " << o.aiperf.artifact_dir << "/profile_export_aiperf.json\n";
  const std::string dir = o.aiperf.artifact_dir;
  if (absl::Status s = outputs.Stage(absl::StrCat(dir, "/profile_export_aiperf.json"),
                                     bench::DumpPythonJson(bench::AiperfJson(metrics), 2), "--artifact-dir");
      !s.ok()) {
    return s;
  }
  return outputs.Stage(absl::StrCat(dir, "/profile_export_aiperf.csv"), bench::AiperfCsv(metrics), "--artifact-dir");
}

absl::Status RunServe(const BenchOptions& o, const ResolvedSimulation& resolved,
                      const std::vector<bench::BenchRequest>& requests, const std::vector<nlohmann::json>& real,
                      Outputs& outputs, std::ostream& out) {
  out << Header(resolved, BenchMode::kServe);
  const std::string date = o.result_date.empty() ? NowDate() : o.result_date;
  std::map<std::string, std::string> appended;  // result file -> its text so far (--append-result)
  for (size_t k = 0; k < o.request_rates.size(); ++k) {
    const double rate = o.request_rates[k];
    std::vector<double> send_times;
    if (o.self_timed) {
      for (const bench::BenchRequest& r : requests) send_times.push_back(r.timestamp_s);
    } else if (o.client == "sglang") {
      send_times = bench::SglangSendTimes(o.dataset, static_cast<int64_t>(requests.size()), rate);
    } else if (!o.ramp_up_strategy.empty()) {
      send_times = bench::RampUpSendTimes(static_cast<int64_t>(requests.size()), o.ramp_up_strategy == "exponential",
                                          o.ramp_up_start_rps, o.ramp_up_end_rps, o.burstiness,
                                          static_cast<uint32_t>(o.dataset.seed));
    } else {
      send_times = bench::RequestSendTimes(static_cast<int64_t>(requests.size()), rate, o.burstiness,
                                           static_cast<uint32_t>(o.dataset.seed));
    }
    absl::StatusOr<bench::ClientRun> run = SimulateClientRun(resolved, requests, send_times, 1);
    if (!run.ok()) return run.status();
    NotePrefixCache(resolved, *run);
    const std::vector<bench::RequestOutcome> outcomes = Outcomes(*run);
    bench::ServeRunInfo info;
    info.request_rate = o.self_timed ? std::numeric_limits<double>::infinity() : rate;
    info.burstiness = o.burstiness;
    info.max_concurrency = o.max_concurrency;
    info.duration_s = run->duration_s();
    info.percentile_metrics = o.percentile_metrics;
    info.percentiles = o.percentiles;
    info.goodput = o.goodput.any();
    info.date = date;
    info.backend = o.backend;
    info.label = o.label;
    info.model_id = o.model_id;
    info.tokenizer_id = o.model_id;
    info.num_prompts = o.dataset.num_prompts;
    info.metadata = o.metadata;
    const bench::ServeMetrics metrics =
        bench::CalculateServeMetrics(outcomes, info.duration_s, o.percentiles, o.goodput);
    if (k > 0) out << "\n";
    out << (o.client == "sglang" ? bench::SglangServeResultText(outcomes, metrics, info)
                                 : bench::ServeResultText(metrics, info));
    const PyJson result = bench::ServeResultJson(metrics, info, outcomes, o.save_detailed);
    if (o.save_result || o.append_result) {
      const std::string path = ResultPath(o, info);
      const std::string text = bench::DumpPythonJson(result);
      if (o.append_result) {
        auto it = appended.find(path);
        if (it == appended.end()) it = appended.emplace(path, ExistingText(path)).first;
        // vLLM's --append-result: a newline between documents, none after the last.
        if (!it->second.empty()) it->second += "\n";
        it->second += text;
      } else {
        if (absl::Status s = outputs.Stage(path, text, "--result-filename"); !s.ok()) return s;
      }
    }
    if (absl::Status s = AppendComparison(o, real, result, out); !s.ok()) return s;
  }
  for (const auto& [path, text] : appended) {
    if (absl::Status s = outputs.Stage(path, text, "--append-result"); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status RunBench(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  if (command_line.positional.size() != 1) {
    return cli::UsageError(absl::StrCat("bench takes one benchmark, got '", absl::StrJoin(command_line.positional, " "),
                                        "': infergrid bench latency|throughput|serve|one-batch [--flags]"));
  }
  absl::StatusOr<BenchMode> mode = cli::ParseBenchMode(command_line.positional[0]);
  if (!mode.ok()) return mode.status();
  const std::vector<absl::string_view> allowed = cli::BenchFlagNames(ModeName(*mode));
  for (const std::string& name : command_line.flags.GivenNames()) {
    const std::string spelling = command_line.flags.Spelling(name);
    if (std::find(allowed.begin(), allowed.end(), spelling) == allowed.end()) {
      return cli::UsageError(absl::StrCat(cli::DashedFlag(spelling), " is not a flag of bench ", ModeName(*mode)));
    }
  }
  absl::StatusOr<BenchOptions> options = cli::ReadBenchOptions(*mode, command_line.flags);
  if (!options.ok()) return options.status();
  const BenchOptions& o = *options;
  if (!o.inert_flags.empty()) {
    std::cerr << "infergrid bench: note: accepted without effect on the simulation: "
              << absl::StrJoin(o.inert_flags, ", ") << "\n";
  }
  // Read everything that can fail before simulating: the real result, then the dataset.
  std::vector<nlohmann::json> real;
  if (!o.compare_path.empty()) {
    absl::StatusOr<std::vector<nlohmann::json>> docs = bench::ReadSavedResults(o.compare_path);
    if (!docs.ok()) return docs.status();
    real = *std::move(docs);
  }
  Outputs outputs;
  absl::Status status;
  if (*mode == BenchMode::kThroughput) {
    // trtllm-bench chooses its limits from the dataset before it starts the engine.
    absl::StatusOr<std::vector<bench::BenchRequest>> requests = bench::SampleDataset(o.dataset);
    if (!requests.ok()) return requests.status();
    BenchOptions tuned = o;
    TrtllmBenchInfo trtllm;
    absl::StatusOr<std::optional<TrtllmBenchChoice>> choice = ApplyTrtllmBenchTuning(*requests, &tuned);
    if (!choice.ok()) return choice.status();
    trtllm.choice = *std::move(choice);
    absl::StatusOr<ResolvedSimulation> resolved = ResolveSimulationOptions(tuned.engine);
    if (!resolved.ok()) return resolved.status();
    trtllm.trtllm = resolved->setup.personality.engine() == "trtllm";
    status = RunThroughput(tuned, *resolved, *requests, real, trtllm, outputs, out);
    if (!status.ok()) return status;
    return outputs.Commit();
  }
  absl::StatusOr<ResolvedSimulation> resolved = ResolveSimulationOptions(o.engine);
  if (!resolved.ok()) return resolved.status();
  if (*mode == BenchMode::kLatency) {
    status = RunLatency(o, *resolved, real, outputs, out);
  } else if (*mode == BenchMode::kOneBatch) {
    status = RunOneBatch(o, *resolved, real, outputs, out);
  } else {
    absl::StatusOr<std::vector<bench::BenchRequest>> requests = bench::SampleDataset(o.dataset);
    if (!requests.ok()) return requests.status();
    if (o.client == "genai-perf") {
      status = RunGenaiPerf(o, *resolved, outputs, out);
    } else if (o.client == "aiperf") {
      status = RunAiperf(o, *resolved, outputs, out);
    } else {
      status = RunServe(o, *resolved, *requests, real, outputs, out);
    }
  }
  if (!status.ok()) return status;
  return outputs.Commit();
}

}  // namespace

const Command& BenchCommand() {
  static const Command* command = new Command{
      "bench",
      "the engines' benchmark commands, simulated: bench latency|throughput|serve (vLLM's flags and reports), "
      "bench one-batch (SGLang's bench_one_batch)",
      cli::BenchCommandFlags(), &RunBench};
  return *command;
}

}  // namespace infergrid
