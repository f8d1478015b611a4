#include "sim/app/cli/bench_options.h"

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <limits>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/decimal_number.h"
#include "sim/app/bench/serve_result.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/aiperf_options.h"
#include "sim/app/cli/bench_flags.h"
#include "sim/app/cli/number_flags.h"
#include "sim/app/cli/simulate_flags.h"
#include "sim/app/cli/trace_flags.h"

namespace infergrid::cli {
namespace {

// The value of a flag that takes one outside bench one-batch (--batch-size, --input-len,
// --output-len are declared as lists, as SGLang's script takes them).
absl::StatusOr<int64_t> OneValue(absl::string_view flag, const std::vector<int64_t>& values) {
  if (values.size() == 1) return values[0];
  return UsageError(absl::StrCat(DashedFlag(flag), " takes one value (got '", values[1],
                                 "' after it); lists of --batch-size, --input-len and --output-len are "
                                 "bench one-batch's, as SGLang's script takes them"));
}

// --input-len and --output-len: 0 (not given) up to the longest prompt a dataset may give.
absl::Status CheckLengths(int64_t input_len, int64_t output_len) {
  if (absl::Status s = CheckRange("input_len", input_len, 0, bench::kMaxDatasetTokens); !s.ok()) return s;
  return CheckRange("output_len", output_len, 0, bench::kMaxDatasetTokens);
}

constexpr int64_t kMaxBatchSize = 1'000'000;  // --batch-size: bench latency's and one-batch's

// Items of a list flag: separated by commas or spaces, empty ones dropped.
// The items of a comma (or space) separated list flag. An empty item ("1,,2", "1,", ",1") is a
// usage error naming the flag: a dropped value would run something other than was asked.
absl::StatusOr<std::vector<std::string>> ListItems(absl::string_view flag, absl::string_view text) {
  std::vector<std::string> items;
  if (absl::StripAsciiWhitespace(text).empty()) return items;
  for (absl::string_view piece : absl::StrSplit(text, ',')) {
    if (absl::StripAsciiWhitespace(piece).empty()) {
      return UsageError(absl::StrCat("--", flag, "=", text, ": an empty item in the list"));
    }
    for (absl::string_view item : absl::StrSplit(piece, ' ', absl::SkipWhitespace())) items.emplace_back(item);
  }
  return items;
}

absl::StatusOr<std::vector<double>> ReadRequestRates(absl::string_view text) {
  std::vector<double> rates;
  absl::StatusOr<std::vector<std::string>> items = ListItems("request-rate", text);
  if (!items.ok()) return items.status();
  for (const std::string& item : *items) {
    double rate = 0;
    if (absl::AsciiStrToLower(item) == "inf") {
      rate = std::numeric_limits<double>::infinity();
    } else if (!ParseDecimal(item, &rate) || !(rate > 0)) {
      return UsageError(absl::StrCat("--request-rate: '", item, "' is not a positive number or inf"));
    }
    rates.push_back(rate);
  }
  if (rates.empty()) return UsageError("--request-rate: give a rate, inf, or a list of them");
  return rates;
}

absl::StatusOr<bench::GoodputSlo> ReadGoodput(absl::string_view text) {
  bench::GoodputSlo slo;
  absl::StatusOr<std::vector<std::string>> items = ListItems("goodput", text);
  if (!items.ok()) return items.status();
  for (const std::string& item : *items) {
    const std::vector<std::string> parts = absl::StrSplit(item, ':');
    double value = 0;
    if (parts.size() != 2 || !ParseDecimal(parts[1], &value)) {
      return UsageError(
          absl::StrCat("--goodput: '", item, "' is not KEY:VALUE (a metric name and a number in milliseconds)"));
    }
    if (value < 0) return UsageError(absl::StrCat("--goodput: ", item, ": the SLO must be non-negative"));
    if (parts[0] == "ttft") {
      slo.ttft_ms = value;
    } else if (parts[0] == "tpot") {
      slo.tpot_ms = value;
    } else if (parts[0] == "e2el") {
      slo.e2el_ms = value;
    } else {
      return UsageError(absl::StrCat("--goodput: unknown metric '", parts[0], "' (ttft, tpot or e2el)"));
    }
  }
  return slo;
}

// perf_analyzer's measurement as genai-perf sets it up; one rate or a concurrency per run.
absl::Status ReadGenaiPerf(const FlagValues& flags, BenchOptions& o) {
  const BenchFlags bench_flags = BenchFlagGroup().Read(flags);
  bench::PerfWindowOptions& p = o.perf;
  p.interval_s = bench_flags.measurement_interval / 1000;
  if (absl::Status s = CheckDoubleRange("measurement-interval", p.interval_s * 1000, 1, 3.6e6); !s.ok()) return s;
  p.stability_percent = bench_flags.stability_percentage;
  if (absl::Status s = CheckDoubleRange("stability-percentage", p.stability_percent, 0, 1e6); !s.ok()) return s;
  p.max_trials = bench_flags.max_trials;
  if (absl::Status s = CheckRange("max_trials", p.max_trials, 3, 1000); !s.ok()) return s;
  p.warmup_requests = bench_flags.warmup_request_count;
  if (absl::Status s = CheckRange("warmup_request_count", p.warmup_requests, 0, bench::kMaxGenaiPerfWarmup); !s.ok()) {
    return s;
  }
  p.request_count = bench_flags.request_count;
  if (absl::Status s = CheckRange("request_count", p.request_count, 0, bench::kMaxGenaiPerfRequests); !s.ok()) return s;
  if (p.warmup_requests + p.request_count > bench::kMaxGenaiPerfRequests) {
    return UsageError(absl::StrCat("--warmup-request-count=", p.warmup_requests,
                                   " and --request-count=", p.request_count, " make ",
                                   p.warmup_requests + p.request_count, " requests, more than the ",
                                   bench::kMaxGenaiPerfRequests, " one genai-perf run may simulate"));
  }
  const std::string distribution = bench_flags.request_distribution;
  if (distribution != "constant" && distribution != "poisson") {
    return UsageError(absl::StrCat("--request-distribution: expected constant or poisson, got '", distribution, "'"));
  }
  o.poisson = distribution == "poisson";
  o.profile_export_file = bench_flags.profile_export_file;
  if (o.request_rates.size() != 1) return UsageError("--request-rate: genai-perf runs one rate at a time");
  if (!std::isinf(o.request_rates[0]) && o.max_concurrency) {
    return UsageError("--concurrency and --request-rate: genai-perf runs one load mode at a time");
  }
  // genai-perf's default load: concurrency 1.
  if (std::isinf(o.request_rates[0]) && !o.max_concurrency) {
    o.max_concurrency = 1;
    o.engine.max_concurrency = 1;
  }
  // Its time windows are measured over 40 requests per concurrent request (bench_command.cc).
  const int64_t slots = o.max_concurrency.value_or(0);
  if (p.request_count == 0 && slots * bench::kGenaiPerfRequestsPerSlot > bench::kMaxGenaiPerfRequests) {
    return UsageError(
        absl::StrCat(DashedFlag(flags.Spelling("max_concurrency")), "=", slots,
                     ": genai-perf's windows would simulate ", slots * bench::kGenaiPerfRequestsPerSlot, " requests (",
                     bench::kGenaiPerfRequestsPerSlot, " per concurrent request), more than the ",
                     bench::kMaxGenaiPerfRequests, " one run may simulate; give at most ",
                     bench::kMaxGenaiPerfRequests / bench::kGenaiPerfRequestsPerSlot, ", or --request-count"));
  }
  if (o.dataset.name != "random")
    return UsageError("--client=genai-perf: synthetic prompts only (--dataset-name=random)");
  return absl::OkStatus();
}

absl::Status ReadServeResultOptions(const FlagValues& flags, BenchOptions& o) {
  const BenchFlags bench_flags = BenchFlagGroup().Read(flags);
  const std::string metrics = bench_flags.percentile_metrics;
  absl::StatusOr<std::vector<std::string>> names =
      ListItems("percentile-metrics", metrics.empty() ? "ttft,tpot,itl" : metrics);
  if (!names.ok()) return names.status();
  o.percentile_metrics = *std::move(names);
  for (const std::string& name : o.percentile_metrics) {
    const std::vector<std::string>& known = bench::PercentileMetricNames();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      return UsageError(
          absl::StrCat("--percentile-metrics: unknown metric '", name, "' (", absl::StrJoin(known, ", "), ")"));
    }
  }
  absl::StatusOr<std::vector<std::string>> percentiles =
      ListItems("metric-percentiles", bench_flags.metric_percentiles);
  if (!percentiles.ok()) return percentiles.status();
  for (const std::string& item : *percentiles) {
    double p = 0;
    if (!ParseDecimal(item, &p) || !(p >= 0 && p <= 100)) {
      return UsageError(absl::StrCat("--metric-percentiles: '", item, "' is not a percentile in [0, 100]"));
    }
    o.percentiles.push_back(p);
  }
  absl::StatusOr<bench::GoodputSlo> goodput = ReadGoodput(bench_flags.goodput);
  if (!goodput.ok()) return goodput.status();
  o.goodput = *goodput;
  o.save_result = bench_flags.save_result;
  o.save_detailed = bench_flags.save_detailed;
  o.append_result = bench_flags.append_result;
  o.result_dir = bench_flags.result_dir;
  if (std::error_code error; !o.result_dir.empty() && std::filesystem::exists(o.result_dir, error) &&
                             !std::filesystem::is_directory(o.result_dir, error)) {
    return UsageError(absl::StrCat("--result-dir=", o.result_dir, ": is a file, not a folder"));
  }
  o.result_filename = bench_flags.result_filename;
  if (const std::string label = bench_flags.label; !label.empty()) o.label = label;
  absl::StatusOr<std::vector<std::string>> metadata = ListItems("metadata", bench_flags.metadata);
  if (!metadata.ok()) return metadata.status();
  for (const std::string& item : *metadata) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return UsageError(absl::StrCat("--metadata: '", item, "' is not KEY=VALUE"));
    o.metadata.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  o.result_date = bench_flags.result_date;
  if (!o.result_date.empty()) {
    int64_t digits = 0;
    const std::vector<std::string> parts = absl::StrSplit(o.result_date, '-');
    if (parts.size() != 2 || parts[0].size() != 8 || parts[1].size() != 6 || !absl::SimpleAtoi(parts[0], &digits) ||
        !absl::SimpleAtoi(parts[1], &digits)) {
      return UsageError(absl::StrCat("--result-date=", o.result_date, " is not YYYYMMDD-HHMMSS"));
    }
  }
  return absl::OkStatus();
}

// SGLang's generated-shared-prefix dataset: its --gsp-* flags, refused with another dataset.
absl::Status ReadGeneratedSharedPrefix(const FlagValues& flags, bench::DatasetOptions& d) {
  const BenchFlags f = BenchFlagGroup().Read(flags);
  const bool gsp = d.name == "generated-shared-prefix";
  for (const auto& [name, value, target] :
       {std::tuple{"gsp_num_groups", f.gsp_num_groups, &d.gsp_num_groups},
        std::tuple{"gsp_prompts_per_group", f.gsp_prompts_per_group, &d.gsp_prompts_per_group},
        std::tuple{"gsp_system_prompt_len", f.gsp_system_prompt_len, &d.gsp_system_prompt_len},
        std::tuple{"gsp_question_len", f.gsp_question_len, &d.gsp_question_len},
        std::tuple{"gsp_output_len", f.gsp_output_len, &d.gsp_output_len}}) {
    if (flags.IsSet(name) && !gsp) {
      return UsageError(absl::StrCat(DashedFlag(name),
                                     " is the generated-shared-prefix dataset's "
                                     "(--dataset-name=generated-shared-prefix)"));
    }
    if (absl::Status s = CheckRange(name, value, 1, int64_t{1'000'000}); !s.ok()) return s;
    *target = value;
  }
  if (gsp) d.num_prompts = d.gsp_num_groups * d.gsp_prompts_per_group;
  return absl::OkStatus();
}

// vLLM's throughput: the random dataset's lengths from --input-len, else --random-input-len (both
// given is refused), and its prefix from --prefix-len.
absl::Status ReadThroughputLengths(const FlagValues& flags, int64_t input_len, int64_t output_len,
                                   bench::DatasetOptions& d) {
  if (input_len > 0 && flags.IsSet("random_input_len")) {
    return UsageError("--input-len and --random-input-len are the same setting here: give one");
  }
  if (output_len > 0 && flags.IsSet("random_output_len")) {
    return UsageError("--output-len and --random-output-len are the same setting here: give one");
  }
  if (d.name == "random" && input_len == 0 && !flags.IsSet("random_input_len")) {
    return UsageError("--input-len (or --random-input-len) must be given for the random dataset");
  }
  if (flags.IsSet("prefix_len")) d.random_prefix_len = BenchFlagGroup().Read(flags).prefix_len;
  return absl::OkStatus();
}

absl::Status ReadDataset(BenchMode mode, const FlagValues& flags, BenchOptions& o) {
  const BenchFlags bench_flags = BenchFlagGroup().Read(flags);
  const SimulateFlags simulate_flags = SimulateFlagGroup().Read(flags);
  const TraceFlags trace_flags = TraceFlagGroup().Read(flags);
  bench::DatasetOptions& d = o.dataset;
  d.name = bench_flags.dataset_name;
  d.path = bench_flags.dataset_path;
  const std::vector<std::string>& names = bench::DatasetNames();
  if (std::find(names.begin(), names.end(), d.name) == names.end()) {
    return UsageError(
        absl::StrCat("--dataset-name: unknown dataset '", d.name, "' (", absl::StrJoin(names, ", "), ")"));
  }
  const bool generated = d.name == "random" || d.name == "generated-shared-prefix";
  if (generated && !d.path.empty()) {
    return UsageError(absl::StrCat("--dataset-path: the ", d.name,
                                   " dataset reads no file (use --dataset-name=sharegpt, custom, ...)"));
  }
  if (absl::Status s = ReadGeneratedSharedPrefix(flags, d); !s.ok()) return s;
  if (!generated && d.path.empty()) {
    return UsageError(absl::StrCat("--dataset-name=", d.name, " needs --dataset-path"));
  }
  d.num_prompts = bench_flags.num_prompts;
  if (absl::Status s = CheckRange("num_prompts", d.num_prompts, 1, bench::kMaxBenchPrompts); !s.ok()) return s;
  const uint64_t seed = simulate_flags.seed;
  if (seed > 0xffffffffULL) return UsageError("--seed must be below 2^32 (NumPy's legacy seeding)");
  d.seed = static_cast<int64_t>(seed);
  d.random_input_len = bench_flags.random_input_len;
  d.random_output_len = bench_flags.random_output_len;
  d.random_range_ratio = bench_flags.random_range_ratio;
  // vLLM's ratio widens around the length (below 1); SGLang's is the shortest length's share. The
  // same words as the samplers' own checks (random_dataset.cc, sglang_serving.cc).
  const double ratio = d.random_range_ratio;
  if (d.sglang_client ? !(ratio >= 0 && ratio <= 1) : !(ratio >= 0 && ratio < 1)) {
    return UsageError(d.sglang_client ? "--random-range-ratio must be in [0, 1] (SGLang: the shortest length's share)"
                                      : "--random-range-ratio must be in [0, 1)");
  }
  if (d.sglang_client && !flags.IsSet("seed")) d.seed = 1;  // bench_serving's default
  d.random_prefix_len = bench_flags.random_prefix_len;
  d.sonnet_input_len = bench_flags.sonnet_input_len;
  d.sonnet_output_len = bench_flags.sonnet_output_len;
  d.sonnet_prefix_len = bench_flags.sonnet_prefix_len;
  d.custom_output_len = bench_flags.custom_output_len;
  d.skip_chat_template = bench_flags.skip_chat_template;
  d.no_oversample = bench_flags.no_oversample;
  d.trace_format = trace_flags.trace_format;
  if (const int64_t len = bench_flags.sharegpt_output_len; len > 0) d.sharegpt_output_len = len;
  for (const auto& [name, value] :
       {std::pair{"random_input_len", d.random_input_len}, std::pair{"random_output_len", d.random_output_len},
        std::pair{"random_prefix_len", d.random_prefix_len}, std::pair{"sonnet_input_len", d.sonnet_input_len},
        std::pair{"sonnet_output_len", d.sonnet_output_len}, std::pair{"sonnet_prefix_len", d.sonnet_prefix_len},
        std::pair{"custom_output_len", d.custom_output_len}}) {
    if (absl::Status s = CheckRange(name, value, 0, bench::kMaxDatasetTokens); !s.ok()) return s;
  }
  // The general lengths, mapped as each script maps them.
  absl::StatusOr<int64_t> input_len_value = OneValue("input_len", bench_flags.input_len);
  if (!input_len_value.ok()) return input_len_value.status();
  absl::StatusOr<int64_t> output_len_value = OneValue("output_len", bench_flags.output_len);
  if (!output_len_value.ok()) return output_len_value.status();
  const int64_t input_len = *input_len_value, output_len = *output_len_value;
  if (absl::Status s = CheckLengths(input_len, output_len); !s.ok()) return s;
  if (input_len > 0) {
    d.random_input_len = input_len;
    if (mode == BenchMode::kThroughput) d.sonnet_input_len = input_len;
  }
  if (output_len > 0) {
    d.random_output_len = output_len;
    d.sharegpt_output_len = output_len;
    d.custom_output_len = output_len;
    if (mode == BenchMode::kThroughput) d.sonnet_output_len = output_len;
  }
  if (mode == BenchMode::kThroughput) {
    if (absl::Status s = ReadThroughputLengths(flags, input_len, output_len, d); !s.ok()) return s;
  }
  o.self_timed = bench_flags.self_timed;
  if (o.self_timed && d.name != "trace") return UsageError("--self-timed needs --dataset-name=trace");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BenchMode> ParseBenchMode(absl::string_view mode) {
  if (mode == "latency") return BenchMode::kLatency;
  if (mode == "throughput") return BenchMode::kThroughput;
  if (mode == "serve") return BenchMode::kServe;
  if (mode == "one-batch") return BenchMode::kOneBatch;
  return UsageError(absl::StrCat("bench: unknown benchmark '", mode, "' (latency, throughput, serve or one-batch)"));
}

// --client: whose benchmark client serve mirrors; genai-perf's own flags only with it.
absl::Status ReadClient(BenchMode mode, const FlagValues& flags, BenchOptions& o) {
  const BenchFlags bench_flags = BenchFlagGroup().Read(flags);
  o.client = bench_flags.client;
  if (o.client != "vllm" && o.client != "sglang" && o.client != "genai-perf" && o.client != "aiperf") {
    return UsageError(absl::StrCat("--client: expected vllm, sglang, genai-perf or aiperf, got '", o.client, "'"));
  }
  if (o.client != "vllm" && mode != BenchMode::kServe) {
    return UsageError("--client: only bench serve mirrors another engine's client");
  }
  for (const char* flag :
       {"measurement_interval", "stability_percentage", "max_trials", "request_distribution", "profile_export_file"}) {
    if (flags.IsSet(flag) && o.client != "genai-perf") {
      return UsageError(absl::StrCat(DashedFlag(flag), " is a genai-perf flag (--client=genai-perf)"));
    }
  }
  for (const char* flag : {"warmup_request_count", "request_count"}) {
    if (flags.IsSet(flag) && o.client != "genai-perf" && o.client != "aiperf") {
      return UsageError(absl::StrCat(DashedFlag(flags.Spelling(flag)),
                                     " is a genai-perf and aiperf flag (--client=genai-perf or aiperf)"));
    }
  }
  for (absl::string_view flag : AiperfOnlyFlagNames()) {
    if (flags.IsSet(flag) && o.client != "aiperf") {
      return UsageError(absl::StrCat(DashedFlag(flags.Spelling(flag)), " is an aiperf flag (--client=aiperf)"));
    }
  }
  return absl::OkStatus();
}

// vLLM's ramp-up: checked as vllm/benchmarks/serve.py checks it, and its rates must be finite
// and positive at every request (the first is the start rate).
absl::Status ReadRampUp(const FlagValues& flags, BenchOptions& o) {
  const BenchFlags bench_flags = BenchFlagGroup().Read(flags);
  o.ramp_up_strategy = bench_flags.ramp_up_strategy;
  o.ramp_up_start_rps = bench_flags.ramp_up_start_rps;
  o.ramp_up_end_rps = bench_flags.ramp_up_end_rps;
  if (o.ramp_up_strategy.empty()) {
    if (flags.IsSet("ramp_up_start_rps") || flags.IsSet("ramp_up_end_rps")) {
      return UsageError("--ramp-up-start-rps and --ramp-up-end-rps need --ramp-up-strategy=linear|exponential");
    }
    return absl::OkStatus();
  }
  if (o.ramp_up_strategy != "linear" && o.ramp_up_strategy != "exponential") {
    return UsageError(
        absl::StrCat("--ramp-up-strategy: expected linear or exponential, got '", o.ramp_up_strategy, "'"));
  }
  if (o.client != "vllm") return UsageError("--ramp-up-strategy is vLLM's (--client=vllm)");
  if (flags.IsSet("request_rate")) {
    return UsageError("--ramp-up-strategy: the ramp-up rates set the load; remove --request-rate (vLLM's rule)");
  }
  if (!flags.IsSet("ramp_up_start_rps") || !flags.IsSet("ramp_up_end_rps")) {
    return UsageError("--ramp-up-strategy needs both --ramp-up-start-rps and --ramp-up-end-rps");
  }
  if (absl::Status s = CheckDoubleRange("ramp-up-end-rps", o.ramp_up_end_rps, 0, 1e9); !s.ok()) return s;
  if (absl::Status s = CheckDoubleRange("ramp-up-start-rps", o.ramp_up_start_rps, 0, o.ramp_up_end_rps); !s.ok()) {
    return UsageError(absl::StrCat(s.message(), ": the start rate must be at most the end rate"));
  }
  if (o.ramp_up_start_rps == 0) {
    return UsageError("--ramp-up-start-rps=0: the first request would be sent at rate 0 (vLLM refuses it)");
  }
  return absl::OkStatus();
}

// The clients' flags that cannot change a simulation, as given; SGLang's --output-file refused.
absl::Status ReadForeignFlags(const FlagValues& flags, BenchOptions& o) {
  if (flags.IsSet("output_file")) {
    return UsageError(
        "--output-file: SGLang's JSON-lines result is not written; --save-result --result-filename=F "
        "writes the run's result (vLLM's JSON), --compare reads SGLang's");
  }
  for (absl::string_view name : BenchInertFlagNames()) {
    if (flags.IsSet(name)) o.inert_flags.push_back(DashedFlag(flags.Spelling(name)));
  }
  return absl::OkStatus();
}

// serve's load (rates, burstiness), its reports and its client's own settings.
absl::Status ReadServe(const FlagValues& flags, BenchOptions& o) {
  if (absl::Status s = ReadRampUp(flags, o); !s.ok()) return s;
  if (absl::Status s = ReadForeignFlags(flags, o); !s.ok()) return s;
  const BenchFlags bench_flags = BenchFlagGroup().Read(flags);
  absl::StatusOr<std::vector<double>> rates = ReadRequestRates(bench_flags.request_rate);
  if (!rates.ok()) return rates.status();
  o.request_rates = *std::move(rates);
  if (o.self_timed && flags.IsSet("request_rate")) {
    return UsageError("--self-timed sends at the trace's times: --request-rate does not apply");
  }
  o.burstiness = bench_flags.burstiness;
  if (!(o.burstiness > 0)) return UsageError("--burstiness must be positive");
  if (o.client == "sglang" && flags.IsSet("burstiness")) {
    return UsageError("--burstiness: SGLang's bench_serving sends a Poisson process (np.random.exponential)");
  }
  if (absl::Status s = ReadServeResultOptions(flags, o); !s.ok()) return s;
  if (o.client == "genai-perf") {
    if (absl::Status s = ReadGenaiPerf(flags, o); !s.ok()) return s;
  }
  if (o.client == "aiperf") {
    if (absl::Status s = ReadAiperf(flags, o); !s.ok()) return s;
  }
  if (o.request_rates.size() > 1 && o.save_result && !o.result_filename.empty() && !o.append_result) {
    return UsageError(
        "--result-filename with several --request-rate values: add --append-result (one JSON line per rate)");
  }
  return absl::OkStatus();
}

namespace {

// vLLM's benchmark_latency.py: one batch of --batch-size prompts, --num-iters times.
absl::Status ReadLatency(const BenchFlags& bench_flags, BenchOptions& o) {
  absl::StatusOr<int64_t> batch_size = OneValue("batch_size", bench_flags.batch_size);
  absl::StatusOr<int64_t> input_len = OneValue("input_len", bench_flags.input_len);
  absl::StatusOr<int64_t> output_len = OneValue("output_len", bench_flags.output_len);
  for (const absl::StatusOr<int64_t>* value : {&batch_size, &input_len, &output_len}) {
    if (!value->ok()) return value->status();
  }
  o.batch_size = *batch_size;
  if (absl::Status s = CheckRange("batch_size", o.batch_size, 1, kMaxBatchSize); !s.ok()) return s;
  if (absl::Status s = CheckLengths(*input_len, *output_len); !s.ok()) return s;
  if (*input_len > 0) o.input_len = *input_len;
  if (*output_len > 0) o.output_len = *output_len;
  o.num_iters = bench_flags.num_iters;
  return CheckRange("num_iters", o.num_iters, 1, 100'000);
}

// SGLang's bench_one_batch: every combination of the three lists. Its BenchArgs defaults are one
// prompt of 1,024 tokens and 16 output tokens.
absl::Status ReadOneBatch(const FlagValues& flags, const BenchFlags& bench_flags, BenchOptions& o) {
  const std::pair<const char*, int64_t> kDefaults[] = {{"batch_size", 1}, {"input_len", 1024}, {"output_len", 16}};
  std::vector<int64_t>* lists[] = {&o.batch_sizes, &o.input_lens, &o.output_lens};
  const std::vector<int64_t>* given[] = {&bench_flags.batch_size, &bench_flags.input_len, &bench_flags.output_len};
  for (int i = 0; i < 3; ++i) {
    const auto& [flag, fallback] = kDefaults[i];
    *lists[i] = flags.IsSet(flag) ? *given[i] : std::vector<int64_t>{fallback};
    for (const int64_t value : *lists[i]) {
      const absl::Status s =
          i == 0 ? CheckRange(flag, value, 1, kMaxBatchSize) : CheckRange(flag, value, 0, bench::kMaxDatasetTokens);
      if (!s.ok()) return s;
      if (value == 0) return UsageError(absl::StrCat(DashedFlag(flag), "=0: bench one-batch needs at least one token"));
    }
  }
  o.batch_size = o.batch_sizes[0];
  o.input_len = o.input_lens[0];
  o.output_len = o.output_lens[0];
  o.run_name = bench_flags.run_name;
  o.result_filename = bench_flags.result_filename;
  return absl::OkStatus();
}

// The engine's options as bench runs it: the offline benchmarks have no front end and no noise.
absl::Status ReadBenchEngine(BenchMode mode, const FlagValues& flags, BenchOptions& o) {
  if (flags.IsSet("format") && flags.Text("format") != "table") {
    return UsageError(
        "--format=json: bench prints its engine's report; --output-json (latency, throughput) and "
        "--save-result (serve) write it as JSON");
  }
  // bench's --input-len/--output-len are the scripts' (lists, mapped to the dataset), not
  // simulate's synthetic length specs of the same names.
  absl::StatusOr<SimulateOptions> engine = ReadSimulateOptions(flags.Without({"input_len", "output_len"}));
  if (!engine.ok()) return engine.status();
  o.engine = *std::move(engine);
  // vLLM's latency and throughput benchmarks build the offline LLM class, whose batch defaults
  // are larger than the server's; serve talks to the server.
  o.engine.memory.offline = mode == BenchMode::kLatency || mode == BenchMode::kThroughput;
  // Only serve goes through the HTTP server; the offline LLM class and SGLang's one-batch
  // script drive the engine in-process.
  if (mode != BenchMode::kServe) {
    if (flags.IsSet("front_end") && o.engine.front_end) {
      return UsageError("--front-end: only bench serve talks to a server; the offline benchmarks have no front end");
    }
    o.engine.front_end = false;
  }
  // A served benchmark varies from run to run; the offline ones are timed as the engine alone
  // (unless a noise size is given: that turns the noise on, simulate_options.cc).
  if (!flags.IsSet("noise") && !o.engine.noise) o.engine.noise = mode == BenchMode::kServe;
  o.engine.progress = false;
  o.engine.record_wall_time = false;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BenchOptions> ReadBenchOptions(BenchMode mode, const FlagValues& given) {
  FlagValues flags = given;
  if (mode == BenchMode::kOneBatch && !flags.IsSet("engine")) {
    // bench_one_batch is SGLang's: its engine unless another is named (and refused later).
    flags.Set("engine", "sglang");
  }
  const BenchFlags bench_flags = BenchFlagGroup().Read(flags);
  BenchOptions o;
  o.mode = mode;
  if (absl::Status s = ReadClient(mode, flags, o); !s.ok()) return s;
  if (absl::Status s = ReadBenchEngine(mode, flags, o); !s.ok()) return s;
  o.model_id = flags.Text("model");
  o.backend = bench_flags.backend;
  if (o.backend.empty()) o.backend = mode == BenchMode::kServe ? "openai" : "vllm";
  o.compare_path = bench_flags.compare;
  o.output_json = bench_flags.output_json;
  o.n = bench_flags.n;
  if (absl::Status s = CheckRange("n", o.n, 1, 1024); !s.ok()) return s;
  if (flags.IsSet("enable_chunked_prefill")) {
    if (!bench_flags.enable_chunked_prefill) {
      return UsageError("--enable-chunked-prefill=false: prefill-first batching is --scheduler=vllm in simulate");
    }
    o.engine.scheduler = SchedulerKind::kSarathi;
    o.enable_chunked_prefill = true;
  }
  if (o.engine.max_concurrency > 0) o.max_concurrency = o.engine.max_concurrency;
  o.dataset.tokenizer = bench::TokenizerFamilyFor(o.engine.setup.model.name(), o.engine.setup.model.vocab_size());
  if (mode == BenchMode::kLatency) {
    if (absl::Status s = ReadLatency(bench_flags, o); !s.ok()) return s;
    return o;
  }
  if (mode == BenchMode::kOneBatch) {
    if (absl::Status s = ReadOneBatch(flags, bench_flags, o); !s.ok()) return s;
    return o;
  }
  o.dataset.sglang_client = o.client == "sglang";
  if (o.client == "sglang" && !flags.IsSet("backend")) o.backend = "sglang";
  if (absl::Status s = ReadDataset(mode, flags, o); !s.ok()) return s;
  if (mode == BenchMode::kThroughput) {
    o.request_rates = {std::numeric_limits<double>::infinity()};
    return o;
  }
  if (absl::Status s = ReadServe(flags, o); !s.ok()) return s;
  return o;
}

}  // namespace infergrid::cli
