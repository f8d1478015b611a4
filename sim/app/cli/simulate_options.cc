#include "sim/app/cli/simulate_options.h"

#include <unistd.h>

#include <algorithm>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "sim/app/cli/number_flags.h"
#include "sim/app/cli/simulate_flags.h"
#include "sim/app/cli/slo_flags.h"
#include "sim/app/cli/trace_flags.h"

namespace infergrid::cli {
namespace {

// The enum named by a flag's value; a usage error listing the names otherwise.
template <typename Enum, size_t N>
absl::StatusOr<Enum> ParseFlagEnum(absl::string_view flag, const EnumName<Enum> (&names)[N], absl::string_view value) {
  std::optional<Enum> parsed = ParseEnumName(names, value);
  if (!parsed.has_value()) {
    return UsageError(absl::StrCat("--", flag, ": expected ", NameList(names), ", got '", value, "'"));
  }
  return *parsed;
}

// The flags that differ from their defaults, as a command line that reruns the simulation
// (the output-only flags left out: they do not change results).
std::string CommandLineEcho(const FlagValues& flags) {
  std::vector<std::string> parts = {"infergrid simulate"};
  for (const FlagSpec* spec : SimulationFlags().specs()) {
    const std::string& name = spec->name;
    if (name == "out" || name == "outputs" || name == "quiet" || name == "format") continue;
    const std::string* value = flags.Given(name);
    if (value == nullptr || *value == spec->default_text) continue;
    parts.push_back(absl::StrCat(DashedFlag(name), "=", *value));
  }
  return absl::StrJoin(parts, " ");
}

// "summary,requests,..." (any order, no repeats) into a selection.
absl::StatusOr<OutputSelection> ParseOutputs(absl::string_view list) {
  constexpr absl::string_view kExpected = "expected a comma list of summary, requests, iterations and timeline";
  OutputSelection selection{false, false, false, false};
  for (absl::string_view name : absl::StrSplit(list, ',')) {
    bool* wanted = name == "summary"      ? &selection.summary
                   : name == "requests"   ? &selection.requests
                   : name == "iterations" ? &selection.iterations
                   : name == "timeline"   ? &selection.timeline
                                          : nullptr;
    if (wanted == nullptr) {
      return UsageError(absl::StrCat("--outputs: unknown output '", name, "': ", kExpected));
    }
    if (*wanted) return UsageError(absl::StrCat("--outputs: '", name, "' is listed twice"));
    *wanted = true;
  }
  return selection;
}

// Scheduler, preemption, router, cost model and the engine's numeric settings.
// --pd=xPyD (x prefill-only, y decode-only replicas) and --decode-router.
absl::Status ReadDisaggregation(const FlagValues& flags, SimulateOptions& o) {
  const SimulateFlags simulate_flags = SimulateFlagGroup().Read(flags);
  const std::string pd = absl::AsciiStrToUpper(simulate_flags.pd);
  o.fabric_bytes_per_s = simulate_flags.fabric_bandwidth;
  if (absl::Status s = CheckDoubleRange("fabric-bandwidth", o.fabric_bytes_per_s, 1e6, 1e15); !s.ok()) return s;
  o.fabric_latency_s = simulate_flags.fabric_latency;
  if (absl::Status s = CheckDoubleRange("fabric-latency", o.fabric_latency_s, 0, 1); !s.ok()) return s;
  if (pd.empty()) {
    if (flags.IsSet("decode_router") || flags.IsSet("kv_transfer_latency")) {
      return UsageError("--decode-router and --kv-transfer-latency need --pd=xPyD");
    }
    return absl::OkStatus();
  }
  o.kv_transfer_latency_s = simulate_flags.kv_transfer_latency;
  if (absl::Status s = CheckDoubleRange("kv-transfer-latency", o.kv_transfer_latency_s, 0, 60); !s.ok()) return s;
  const size_t p = pd.find('P');
  int64_t prefill = 0, decode = 0;
  if (p == std::string::npos || pd.empty() || pd.back() != 'D' ||
      !absl::SimpleAtoi(absl::string_view(pd).substr(0, p), &prefill) ||
      !absl::SimpleAtoi(absl::string_view(pd).substr(p + 1, pd.size() - p - 2), &decode) || prefill < 1 || decode < 1) {
    return UsageError(absl::StrCat("--pd=", simulate_flags.pd,
                                   ": expected xPyD with x, y >= 1 prefill and decode replicas (e.g. 2P6D)"));
  }
  // The replicas' one range, --num-replicas's.
  if (prefill > kMaxSimulatedGpus || decode > kMaxSimulatedGpus || prefill + decode > kMaxSimulatedGpus) {
    const bool each = prefill > kMaxSimulatedGpus || decode > kMaxSimulatedGpus;  // their sum could overflow
    return UsageError(
        absl::StrCat("--pd=", simulate_flags.pd, " makes ",
                     each ? absl::StrCat("more than ", kMaxSimulatedGpus) : absl::StrCat(prefill + decode),
                     " replicas (the range of --num-replicas is 1..", kMaxSimulatedGpus, ")"));
  }
  if (flags.IsSet("num_replicas") && o.num_replicas != prefill + decode) {
    return UsageError(absl::StrCat("--num-replicas=", o.num_replicas, " disagrees with --pd=", simulate_flags.pd, " (",
                                   prefill + decode, " replicas); give one of them"));
  }
  absl::StatusOr<RouterKind> router = ParseFlagEnum("decode-router", kRouterNames, simulate_flags.decode_router);
  if (!router.ok()) return router.status();
  o.prefill_replicas = prefill;
  o.num_replicas = prefill + decode;
  o.decode_router = *router;
  return absl::OkStatus();
}

// Run-to-run variation: --noise and its sizes.
absl::Status ReadNoise(const FlagValues& flags, const SimulateFlags& simulate_flags, SimulateOptions& o) {
  // A noise size given without --noise turns the noise on: a flag either changes the run or is
  // refused, and --noise=false with a size is refused below.
  o.noise =
      simulate_flags.noise || (!flags.IsSet("noise") && (flags.IsSet("iteration_noise") || flags.IsSet("send_jitter")));
  o.iteration_noise = simulate_flags.iteration_noise;
  if (absl::Status s = CheckDoubleRange("iteration-noise", o.iteration_noise, 0, 1); !s.ok()) return s;
  o.send_jitter_s = simulate_flags.send_jitter;
  if (absl::Status s = CheckDoubleRange("send-jitter", o.send_jitter_s, 0, 60); !s.ok()) return s;
  for (const char* size : {"iteration-noise", "send-jitter"}) {
    if (flags.IsSet(absl::StrReplaceAll(size, {{"-", "_"}})) && flags.IsSet("noise") && !o.noise) {
      return UsageError(absl::StrCat("--", size, " with --noise=false: the size of a noise that is off"));
    }
  }
  return absl::OkStatus();
}

absl::Status ReadPolicies(const FlagValues& flags, SimulateOptions& o) {
  const SimulateFlags simulate_flags = SimulateFlagGroup().Read(flags);
  const EngineFlags engine_flags = EngineFlagGroup().Read(flags);
  const AccountingFlags accounting_flags = AccountingFlagGroup().Read(flags);
  if (const std::string name = simulate_flags.scheduler; !name.empty()) {
    absl::StatusOr<SchedulerKind> scheduler = ParseFlagEnum("scheduler", kSchedulerNames, name);
    if (!scheduler.ok()) return scheduler.status();
    o.scheduler = *scheduler;
  }
  absl::StatusOr<PreemptionMode> preemption =
      ParseFlagEnum("preemption-mode", kPreemptionModeNames, simulate_flags.preemption_mode);
  if (!preemption.ok()) return preemption.status();
  absl::StatusOr<RouterKind> router = ParseFlagEnum("router", kRouterNames, simulate_flags.router);
  if (!router.ok()) return router.status();
  absl::StatusOr<CostModelKind> cost_model = ParseFlagEnum("cost-model", kCostModelNames, simulate_flags.cost_model);
  if (!cost_model.ok()) return cost_model.status();
  o.preemption = *preemption;
  o.router = *router;
  o.cost_model = *cost_model;
  o.num_replicas = simulate_flags.num_replicas;
  if (absl::Status s = CheckRange("num_replicas", o.num_replicas, 1, kMaxSimulatedGpus); !s.ok()) return s;
  if (absl::Status s = ReadDisaggregation(flags, o); !s.ok()) return s;
  o.chunk_size = simulate_flags.chunk_size;
  if (absl::Status s = CheckRange("chunk_size", o.chunk_size, 0, int64_t{1} << 30); !s.ok()) return s;
  o.chunked_prefill_size = simulate_flags.chunked_prefill_size;
  if (absl::Status s = CheckRange("chunked_prefill_size", o.chunked_prefill_size, -1, int64_t{1} << 30); !s.ok())
    return s;
  if (const std::string policy = absl::AsciiStrToLower(simulate_flags.capacity_scheduler_policy); !policy.empty()) {
    if (policy != "guaranteed_no_evict" && policy != "max_utilization") {
      return UsageError(
          absl::StrCat("--capacity-scheduler-policy: expected guaranteed_no_evict or max_utilization, got '",
                       simulate_flags.capacity_scheduler_policy, "'"));
    }
    o.guaranteed_no_evict = policy == "guaranteed_no_evict";
  }
  o.num_scheduler_steps = simulate_flags.num_scheduler_steps;
  if (absl::Status s = CheckRange("num_scheduler_steps", o.num_scheduler_steps, 0, 1024); !s.ok()) return s;
  if (flags.IsSet("multi_step_stream_outputs")) o.multi_step_stream_outputs = simulate_flags.multi_step_stream_outputs;
  o.stream_interval = simulate_flags.stream_interval;
  if (flags.IsSet("stream_interval")) {
    if (absl::Status s = CheckRange("stream_interval", o.stream_interval, 1, 1 << 20); !s.ok()) return s;
  }
  const std::pair<absl::string_view, bool> overlap_flags[] = {
      {"disable_async_output_proc", simulate_flags.disable_async_output_proc},
      {"no_async_scheduling", simulate_flags.no_async_scheduling},
      {"disable_overlap_schedule", simulate_flags.disable_overlap_schedule},
      {"disable_overlap_scheduler", simulate_flags.disable_overlap_scheduler}};
  for (const auto& [name, given] : overlap_flags) {
    if (given) o.overlap_disabled_by.emplace_back(name);
  }
  o.custom_all_reduce = !simulate_flags.disable_custom_all_reduce;
  o.cpu_speed = simulate_flags.cpu_speed;
  if (absl::Status s = CheckDoubleRange("cpu-speed", o.cpu_speed, 0.01, 100); !s.ok()) return s;
  o.front_end = simulate_flags.front_end;
  o.front_end_file = simulate_flags.front_end_file;
  if (!o.front_end && !o.front_end_file.empty()) return UsageError("--front-end-file with --front-end=false: give one");
  o.api_server_count = simulate_flags.api_server_count;
  if (absl::Status s = ReadNoise(flags, simulate_flags, o); !s.ok()) return s;
  if (absl::Status s = CheckRange("api_server_count", o.api_server_count, 0, 1024); !s.ok()) return s;
  o.swap_space_gib = simulate_flags.swap_space;
  if (absl::Status s = CheckDoubleRange("swap-space", o.swap_space_gib, 0, 1e6); !s.ok()) return s;
  o.prefix_caching = simulate_flags.enable_prefix_caching;
  o.cuda_graphs = simulate_flags.enable_cuda_graphs && !engine_flags.enforce_eager;
  o.calibration_path = accounting_flags.calibration;
  o.coalesce = simulate_flags.coalesce;
  o.fleet_run_ahead = simulate_flags.fleet_run_ahead;
  o.cost_stride = simulate_flags.cost_stride;
  if (absl::Status s = CheckRange("cost_stride", o.cost_stride, 1, 4096); !s.ok()) return s;
  o.max_concurrency = simulate_flags.max_concurrency;
  return CheckRange("max_concurrency", o.max_concurrency, 0, int64_t{1} << 30);
}

// SLO limits and the timeline's length.
absl::Status ReadLimits(const FlagValues& flags, SimulateOptions& o) {
  const SloFlags slo_flags = SloFlagGroup().Read(flags);
  const SimulateFlags simulate_flags = SimulateFlagGroup().Read(flags);
  o.slo_ttft_s = slo_flags.slo_ttft;
  o.slo_tpot_s = slo_flags.slo_tpot;
  if (absl::Status s = CheckDoubleRange("slo-ttft", o.slo_ttft_s, 0, kMaxSloSeconds); !s.ok()) return s;
  if (absl::Status s = CheckDoubleRange("slo-tpot", o.slo_tpot_s, 0, kMaxSloSeconds); !s.ok()) return s;
  o.timeline_max_iterations = simulate_flags.timeline_max_iterations;
  return CheckRange("timeline_max_iterations", o.timeline_max_iterations, 0, int64_t{1} << 40);
}

// What is written where: --out, --outputs, progress, wall time.
absl::Status ReadOutputs(const FlagValues& flags, SimulateOptions& o) {
  const SimulateFlags simulate_flags = SimulateFlagGroup().Read(flags);
  o.out_dir = simulate_flags.out;
  absl::StatusOr<OutputSelection> outputs = ParseOutputs(simulate_flags.outputs);
  if (!outputs.ok()) return outputs.status();
  if (o.out_dir.empty() && simulate_flags.outputs != SimulateFlags{}.outputs) {
    return UsageError("--outputs needs --out=DIR (without it no file is written)");
  }
  for (const auto& [name, flag] :
       {std::pair{"timeline_format", "--timeline-format"}, std::pair{"compress", "--compress"},
        std::pair{"timeline_max_iterations", "--timeline-max-iterations"}}) {
    if (o.out_dir.empty() && flags.IsSet(name)) {
      return UsageError(absl::StrCat(flag, " needs --out=DIR (without it no file is written)"));
    }
  }
  // A flag about a file --outputs leaves out would change nothing: refused.
  const bool tables = outputs->requests || outputs->iterations;
  for (const auto& [name, flag, written] :
       {std::tuple{"timeline_format", "--timeline-format", outputs->timeline},
        std::tuple{"timeline_max_iterations", "--timeline-max-iterations", outputs->timeline},
        std::tuple{"compress", "--compress", tables}}) {
    if (flags.IsSet(name) && !written) {
      return UsageError(
          absl::StrCat(flag, " with --outputs=", simulate_flags.outputs, ": the file it applies to is not written"));
    }
  }
  o.outputs = *outputs;
  const std::string timeline_format = simulate_flags.timeline_format;
  if (timeline_format != "perfetto" && timeline_format != "json") {
    return UsageError(
        absl::StrCat("--timeline-format: unknown format '", timeline_format, "': expected perfetto or json"));
  }
  o.outputs.timeline_json = timeline_format == "json";
  const std::string compress = simulate_flags.compress;
  if (compress != "none" && compress != "zstd") {
    return UsageError(absl::StrCat("--compress: unknown compression '", compress, "': expected none or zstd"));
  }
  o.outputs.zstd = compress == "zstd";
  o.progress = !simulate_flags.quiet && isatty(STDERR_FILENO);
  o.report_path = simulate_flags.report;
  o.record_wall_time = simulate_flags.record_wall_time;
  return absl::OkStatus();
}

}  // namespace

std::string OutputSelection::FileList() const {
  std::vector<std::string> files;
  if (summary) files.push_back("summary.json");
  if (requests) files.push_back(RequestsFile());
  if (iterations) files.push_back(IterationsFile());
  if (timeline) files.push_back(TimelineFile());
  return absl::StrJoin(files, ", ");
}

// --enable-expert-parallel with its dispatch and imbalance; the latter two alone are refused.
absl::Status ReadExpertParallelism(const FlagValues& flags, int tensor_parallel, int data_parallel,
                                   ExpertParallelism* ep) {
  const EngineFlags engine_flags = EngineFlagGroup().Read(flags);
  const std::string dispatch = engine_flags.expert_dispatch;
  const double imbalance = engine_flags.expert_imbalance;
  if (!engine_flags.enable_expert_parallel) {
    if (flags.IsSet("expert_dispatch") || flags.IsSet("expert_imbalance")) {
      return UsageError("--expert-dispatch and --expert-imbalance need --enable-expert-parallel");
    }
    return absl::OkStatus();
  }
  // Attention-DP ranks hold different tokens: they reach the experts by all-gather (the engines'
  // default) or all-to-all (DeepEP); without ranks every GPU has every token already.
  const bool ranks = data_parallel > 1;
  if (dispatch != "all-reduce" && dispatch != "all-to-all" && dispatch != "all-gather") {
    return UsageError(
        absl::StrCat("--expert-dispatch: expected all-reduce, all-to-all or all-gather, got '", dispatch, "'"));
  }
  if (flags.IsSet("expert_dispatch") && (ranks ? dispatch == "all-reduce" : dispatch == "all-gather")) {
    return UsageError(ranks ? "--expert-dispatch=all-reduce: attention data-parallel ranks reach the experts by "
                              "all-gather or all-to-all"
                            : "--expert-dispatch=all-gather gathers attention data-parallel ranks' tokens: it "
                              "needs --data-parallel-size, --enable-attention-dp or --enable-dp-attention");
  }
  if (dispatch == "all-to-all") {
    ep->dispatch = ExpertParallelism::Dispatch::kAllToAll;
  } else {  // all-gather with ranks (given or by default), all-reduce without
    ep->dispatch = ranks ? ExpertParallelism::Dispatch::kAllGather : ExpertParallelism::Dispatch::kAllReduce;
  }
  const int gpus = tensor_parallel * data_parallel;
  if (!(imbalance >= 1) || imbalance > gpus) {
    return UsageError(absl::StrCat("--expert-imbalance=", imbalance, " is outside [1, ", gpus,
                                   "] (the busiest GPU's routed rows over the mean, at most all of them)"));
  }
  ep->imbalance = imbalance;
  return absl::OkStatus();
}

absl::StatusOr<SimulateOptions> ReadSimulateOptions(const FlagValues& flags) {
  SimulateOptions o;
  absl::StatusOr<bool> json = WantJson(flags);
  if (!json.ok()) return json.status();
  o.json = *json;
  if (absl::Status s = ReadPolicies(flags, o); !s.ok()) return s;
  if (absl::Status s = ReadLimits(flags, o); !s.ok()) return s;
  if (absl::Status s = ReadWorkloadOptions(flags, o.workload); !s.ok()) return s;
  absl::StatusOr<AccountingSetup> setup = ResolveAccountingSetup(flags);
  if (!setup.ok()) return setup.status();
  o.setup = *std::move(setup);
  absl::StatusOr<MemoryPlanRequest> memory = ResolveMemoryPlanRequest(flags, o.setup, "vllm-v1");
  if (!memory.ok()) return memory.status();
  o.memory = *std::move(memory);
  if (absl::Status s =
          ReadExpertParallelism(flags, o.memory.tensor_parallel, o.memory.attention_data_parallel, &o.expert_parallel);
      !s.ok())
    return s;
  const int64_t gpus_per_replica = int64_t{o.memory.tensor_parallel} * o.memory.attention_data_parallel;
  if (o.num_replicas * gpus_per_replica > kMaxSimulatedGpus) {
    const int dp = o.memory.attention_data_parallel;
    return UsageError(absl::StrCat("--num-replicas=", o.num_replicas,
                                   " x --tensor-parallel-size=", o.memory.tensor_parallel,
                                   dp > 1 ? absl::StrCat(" x ", dp, " attention data-parallel ranks") : "", " is ",
                                   o.num_replicas * gpus_per_replica, " GPUs, more than the ", kMaxSimulatedGpus,
                                   " one simulated deployment may have"));
  }
  absl::StatusOr<SpeculativeSettings> speculative = ReadSpeculativeOptions(flags, o.setup.model);
  if (!speculative.ok()) return speculative.status();
  o.speculative = *std::move(speculative);
  if (absl::Status s = ReadOutputs(flags, o); !s.ok()) return s;
  o.command_line = CommandLineEcho(flags);
  return o;
}

}  // namespace infergrid::cli
