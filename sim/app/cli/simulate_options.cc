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
  constexpr absl::string_view kExpected = "expected a comma list of summary, requests, iterations, timeline and fleet";
  OutputSelection selection{false, false, false, false};
  for (absl::string_view name : absl::StrSplit(list, ',')) {
    bool* wanted = name == "summary"      ? &selection.summary
                   : name == "requests"   ? &selection.requests
                   : name == "iterations" ? &selection.iterations
                   : name == "timeline"   ? &selection.timeline
                   : name == "fleet"      ? &selection.fleet
                                          : nullptr;
    if (wanted == nullptr) {
      return UsageError(absl::StrCat("--outputs: unknown output '", name, "': ", kExpected));
    }
    if (*wanted) return UsageError(absl::StrCat("--outputs: '", name, "' is listed twice"));
    *wanted = true;
  }
  return selection;
}

// --pd=xPyD (x prefill-only, y decode-only replicas) and what only applies with it.
absl::Status ReadDisaggregation(const FlagValues& flags, const SimulateFlags& simulate_flags, SimulateOptions& o) {
  const std::string pd = absl::AsciiStrToUpper(simulate_flags.pd);
  if (pd.empty()) {
    if (flags.IsSet("decode_router") || flags.IsSet("kv_transfer_latency")) {
      return UsageError("--decode-router and --kv-transfer-latency need --pd=xPyD");
    }
    return absl::OkStatus();
  }
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
  o.prefill_replicas = prefill;
  o.num_replicas = prefill + decode;
  return absl::OkStatus();
}

// Run-to-run variation: a noise size given without --noise turns the noise on: a flag either
// changes the run or is refused, and --noise=false with a size is refused.
absl::Status ReadNoise(const FlagValues& flags, SimulateOptions& o) {
  o.noise = o.noise || (!flags.IsSet("noise") && (flags.IsSet("iteration_noise") || flags.IsSet("send_jitter")));
  for (const char* size : {"iteration-noise", "send-jitter"}) {
    if (flags.IsSet(absl::StrReplaceAll(size, {{"-", "_"}})) && flags.IsSet("noise") && !o.noise) {
      return UsageError(absl::StrCat("--", size, " with --noise=false: the size of a noise that is off"));
    }
  }
  return absl::OkStatus();
}

// The settings whose flags are not bound to them one to one (simulate_flags.h): TensorRT-LLM's
// capacity policy, the overlap switches, the custom all-reduce, the front end, noise, CUDA
// graphs under --enforce-eager, disaggregation.
absl::Status ReadPolicies(const FlagValues& flags, const SimulateFlags& simulate_flags, SimulateOptions& o) {
  if (absl::Status s = ReadDisaggregation(flags, simulate_flags, o); !s.ok()) return s;
  if (const std::string policy = absl::AsciiStrToLower(simulate_flags.capacity_scheduler_policy); !policy.empty()) {
    if (policy != "guaranteed_no_evict" && policy != "max_utilization") {
      return UsageError(
          absl::StrCat("--capacity-scheduler-policy: expected guaranteed_no_evict or max_utilization, got '",
                       simulate_flags.capacity_scheduler_policy, "'"));
    }
    o.guaranteed_no_evict = policy == "guaranteed_no_evict";
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
  if (!o.front_end && !o.front_end_file.empty()) return UsageError("--front-end-file with --front-end=false: give one");
  if (absl::Status s = ReadNoise(flags, o); !s.ok()) return s;
  o.cuda_graphs = o.cuda_graphs && !EngineFlagGroup().Read(flags).enforce_eager;
  o.calibration_path = AccountingFlagGroup().Read(flags).calibration;
  return absl::OkStatus();
}

// The SLO limits.
absl::Status ReadLimits(const FlagValues& flags, SimulateOptions& o) {
  const SloFlags slo_flags = SloFlagGroup().Read(flags);
  o.slo_ttft_s = slo_flags.slo_ttft;
  o.slo_tpot_s = slo_flags.slo_tpot;
  if (absl::Status s = CheckDoubleRange("slo-ttft", o.slo_ttft_s, 0, kMaxSloSeconds); !s.ok()) return s;
  return CheckDoubleRange("slo-tpot", o.slo_tpot_s, 0, kMaxSloSeconds);
}

// What is written where: --outputs and the flags about its files, progress.
absl::Status ReadOutputs(const FlagValues& flags, const SimulateFlags& simulate_flags, SimulateOptions& o) {
  absl::StatusOr<OutputSelection> outputs = ParseOutputs(simulate_flags.output_list);
  if (!outputs.ok()) return outputs.status();
  if (o.out_dir.empty() && flags.IsSet("outputs") &&
      simulate_flags.output_list != SimulateFlagGroup().Find("outputs")->default_text) {
    return UsageError("--outputs needs --out=DIR (without it no file is written)");
  }
  for (const auto& [name, flag] :
       {std::pair{"timeline_format", "--timeline-format"}, std::pair{"compress", "--compress"},
        std::pair{"timeline_max_iterations", "--timeline-max-iterations"},
        std::pair{"fleet_window", "--fleet-window"}}) {
    if (o.out_dir.empty() && flags.IsSet(name)) {
      return UsageError(absl::StrCat(flag, " needs --out=DIR (without it no file is written)"));
    }
  }
  // A flag about a file --outputs leaves out would change nothing: refused.
  const bool tables = outputs->requests || outputs->iterations;
  for (const auto& [name, flag, written] :
       {std::tuple{"timeline_format", "--timeline-format", outputs->timeline},
        std::tuple{"timeline_max_iterations", "--timeline-max-iterations", outputs->timeline},
        std::tuple{"compress", "--compress", tables}, std::tuple{"fleet_window", "--fleet-window", outputs->fleet}}) {
    if (flags.IsSet(name) && !written) {
      return UsageError(absl::StrCat(flag, " with --outputs=", simulate_flags.output_list,
                                     ": the file it applies to is not written"));
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
  return absl::OkStatus();
}

}  // namespace

std::string OutputSelection::FileList() const {
  std::vector<std::string> files;
  if (summary) files.push_back("summary.json");
  if (requests) files.push_back(RequestsFile());
  if (iterations) files.push_back(IterationsFile());
  if (timeline) files.push_back(TimelineFile());
  if (fleet) files.push_back("fleet.csv");
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
  absl::StatusOr<bool> json = WantJson(flags);
  if (!json.ok()) return json.status();
  if (absl::Status s = SimulateFlagGroup().CheckGiven(flags); !s.ok()) return s;
  const SimulateFlags simulate_flags = SimulateFlagGroup().Read(flags);
  SimulateOptions o = simulate_flags;  // every setting its flag binds (simulate_flags.cc)
  o.json = *json;
  if (absl::Status s = ReadPolicies(flags, simulate_flags, o); !s.ok()) return s;
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
  if (absl::Status s = ReadOutputs(flags, simulate_flags, o); !s.ok()) return s;
  o.command_line = CommandLineEcho(flags);
  return o;
}

}  // namespace infergrid::cli
