// `infergrid plan`: the cheapest deployment that serves a workload within an SLO.
//   infergrid plan --slo=ttft_p99<=2s,tpot_p99<=100ms [workload: simulate flags]
//                  [--gpus=h100-sxm,h200-sxm] [--tp-sizes=1,2,4] [--replica-counts=1,2]
//                  [--weight-dtypes=...] [--kv-cache-dtypes=auto,fp8] [--engines=...]
//                  [--schedulers=...] [--max-num-seqs-list=...]
//                  [--target-rate=R [--max-replicas=64]] [--min-rate] [--max-rate] [--tolerance]
//                  [--verify-seeds=3] [--price=h100-sxm=2.5,...] [--jobs=N] [--format=json] [--out=DIR]
// Every candidate (the product of the listed axes, on top of the workload flags) is checked
// before anything runs. Without --target-rate, each gets the largest arrival rate it sustains
// within the SLO; with it, the fewest replicas that meet it. A point passes when every SLO term
// holds, no request is rejected, and the run is stable: an overloaded queue that has not yet
// blown up within the run is caught by running the first half of the requests too, because a
// stable system's queueing delay does not depend on how long it runs while an overloaded one's
// grows with it. Candidates are searched --jobs at a time (default: the usable CPUs), each in a
// child process whose simulations run in children of their own (one SimGrid engine per process).
// The result names what its numbers rest on: the workload every candidate was searched with, and
// each candidate's GPU profile, measured or extrapolated from another GPU (plan_assumed.h).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/decimal_number.h"
#include "base/student_t.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/simulate_flags.h"
#include "sim/app/cli/simulate_options.h"
#include "sim/app/run/child_process.h"
#include "sim/app/commands/command.h"
#include "sim/app/run/plan_assumed.h"
#include "sim/app/run/plan_search.h"
#include "sim/app/run/resolved_simulation.h"
#include "sim/app/run/simulation_run.h"
#include "sim/app/format/json_output.h"
#include "sim/app/format/text_table.h"
#include "sim/app/format/units.h"
#include "sim/app/output/output_dir.h"
#include "sim/app/plan/candidates.h"
#include "sim/app/plan/capacity_search.h"
#include "sim/app/plan/plan_assumptions.h"
#include "sim/app/plan/plan_ranking.h"
#include "sim/app/plan/slo.h"

namespace infergrid {
namespace {

// plan's own flags.
struct PlanFlags {
  std::string slo;
  std::string gpus;
  std::string tp_sizes;
  std::string replica_counts;
  std::string weight_dtypes;
  std::string kv_cache_dtypes;
  std::string engines;
  std::string schedulers;
  std::string max_num_seqs_list;
  double target_rate = 0;
  double min_rate = 0.01;
  double max_rate = 1000;
  double tolerance = 0.05;
  int32_t verify_seeds = 3;
  int32_t max_replicas = 64;
  std::string price;
  std::string out;
};

const cli::FlagGroup<PlanFlags>& PlanFlagGroup() {
  static const cli::FlagGroup<PlanFlags>* group =
      &(*new cli::FlagGroup<PlanFlags>())
           .Add("slo", &PlanFlags::slo, "the SLO, e.g. ttft_p99<=2s,tpot_p99<=100ms,e2e_p90<=20s")
           .Add("gpus", &PlanFlags::gpus, "candidate GPUs (catalog names), comma-separated")
           .Add("tp_sizes", &PlanFlags::tp_sizes, "candidate tensor-parallel sizes, e.g. 1,2,4,8")
           .Add("replica_counts", &PlanFlags::replica_counts, "candidate replica counts (not with --target-rate)")
           .Add("weight_dtypes", &PlanFlags::weight_dtypes, "candidate weight dtypes, e.g. bf16,fp8")
           .Add("kv_cache_dtypes", &PlanFlags::kv_cache_dtypes, "candidate KV-cache dtypes, e.g. auto,fp8")
           .Add("engines", &PlanFlags::engines, "candidate engine personalities, e.g. vllm-v1@0.19,sglang")
           .Add("schedulers", &PlanFlags::schedulers, "candidate schedulers, e.g. vllm,sarathi")
           .Add("max_num_seqs_list", &PlanFlags::max_num_seqs_list, "candidate max_num_seqs values, e.g. 128,256")
           .Add("target_rate", &PlanFlags::target_rate,
                "requests/s to serve; then the fewest replicas per candidate (0: the largest rate)")
           .Add("min_rate", &PlanFlags::min_rate, "lowest arrival rate tried, requests/s")
           .Add("max_rate", &PlanFlags::max_rate, "highest arrival rate tried, requests/s")
           .Add("tolerance", &PlanFlags::tolerance, "relative width of the final rate bracket")
           .Add("verify_seeds", &PlanFlags::verify_seeds,
                "seeds that must all pass at the chosen point (common random numbers)")
           .Add("max_replicas", &PlanFlags::max_replicas, "most replicas tried with --target-rate")
           .Add("price", &PlanFlags::price,
                "GPU-hour prices in USD overriding the catalog's, e.g. h100-sxm=2.5,a100-80gb=1.2")
           .Add("out", &PlanFlags::out, "also write plan.json into this folder");
  return *group;
}

absl::Status Usage(const absl::Status& s) {
  return s.code() == absl::StatusCode::kInvalidArgument ? cli::UsageError(s.message()) : s;
}

absl::StatusOr<std::map<std::string, double>> ParsePrices(absl::string_view text) {
  std::map<std::string, double> prices;
  absl::StatusOr<std::vector<std::string>> items = plan::ParseList(text, "price");
  if (!items.ok()) return Usage(items.status());
  for (const std::string& item : *items) {
    std::vector<std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    double usd = 0;
    if (kv.size() != 2 || kv[0].empty() || !ParseDecimal(kv[1], &usd) || !(usd >= 0)) {
      return cli::UsageError(absl::StrCat("--price: '", item, "': expected GPU=USD_PER_GPU_HOUR, e.g. h100-sxm=2.5"));
    }
    prices[kv[0]] = usd;
  }
  return prices;
}

// The candidate axes (--gpus, --tp-sizes, ...); a usage error for a bad list or an axis given
// beside the single-value flag it varies.
absl::Status ReadAxes(const PlanFlags& p, const cli::FlagValues& flags, plan::CandidateAxes& axes) {
  auto list = [&](const std::string& text, absl::string_view name, std::vector<std::string>& to) -> absl::Status {
    absl::StatusOr<std::vector<std::string>> v = plan::ParseList(text, name);
    if (!v.ok()) return Usage(v.status());
    to = *std::move(v);
    return absl::OkStatus();
  };
  auto ints = [&](const std::string& text, absl::string_view name, auto& to) -> absl::Status {
    absl::StatusOr<std::vector<int32_t>> v = plan::ParsePositiveInts(text, name);
    if (!v.ok()) return Usage(v.status());
    to.assign(v->begin(), v->end());
    return absl::OkStatus();
  };
  for (absl::Status st : {list(p.gpus, "gpus", axes.gpus), ints(p.tp_sizes, "tp-sizes", axes.tensor_parallel),
                          ints(p.replica_counts, "replica-counts", axes.replicas),
                          list(p.weight_dtypes, "weight-dtypes", axes.weight_dtypes),
                          list(p.kv_cache_dtypes, "kv-cache-dtypes", axes.kv_dtypes),
                          list(p.engines, "engines", axes.engines), list(p.schedulers, "schedulers", axes.schedulers),
                          ints(p.max_num_seqs_list, "max-num-seqs-list", axes.max_num_seqs)}) {
    if (!st.ok()) return st;
  }
  // A candidate axis and the single-value flag it varies would contradict each other.
  const std::pair<const char*, bool> overlaps[] = {{"gpu", !axes.gpus.empty()},
                                                   {"tensor_parallel_size", !axes.tensor_parallel.empty()},
                                                   {"weight_dtype", !axes.weight_dtypes.empty()},
                                                   {"kv_cache_dtype", !axes.kv_dtypes.empty()},
                                                   {"engine", !axes.engines.empty()},
                                                   {"scheduler", !axes.schedulers.empty()},
                                                   {"max_num_seqs", !axes.max_num_seqs.empty()}};
  for (const auto& [name, varied] : overlaps) {
    if (varied && flags.IsSet(name)) {
      return cli::UsageError(absl::StrCat("--", name, " is also a candidate axis: give one or the other"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PlanSettings> ReadSettings(const cli::FlagValues& flags) {
  const PlanFlags plan_flags = PlanFlagGroup().Read(flags);
  const cli::SimulateFlags simulate_flags = cli::SimulateFlagGroup().Read(flags);
  PlanSettings s;
  absl::StatusOr<std::vector<SloTerm>> slo = plan::ParseSlo(plan_flags.slo, "slo");
  if (!slo.ok()) return Usage(slo.status());
  s.slo = *std::move(slo);
  if (flags.IsSet("rate")) {
    return cli::UsageError("--rate: plan searches the arrival rate; give --target-rate, or --min-rate and --max-rate");
  }
  if (flags.IsSet("num_replicas")) {
    return cli::UsageError(
        "--num-replicas: plan chooses replicas; list them with --replica-counts, or give --target-rate");
  }
  plan::CandidateAxes axes;
  if (absl::Status st = ReadAxes(plan_flags, flags, axes); !st.ok()) return st;
  s.target_rate = plan_flags.target_rate;
  if (!(s.target_rate >= 0) || !std::isfinite(s.target_rate)) return cli::UsageError("--target-rate must be >= 0");
  if (s.target_rate > 0 && !axes.replicas.empty()) {
    return cli::UsageError("--replica-counts: with --target-rate, plan finds the fewest replicas itself");
  }
  absl::StatusOr<std::vector<plan::Candidate>> candidates = plan::ExpandCandidates(axes, 1000);
  if (!candidates.ok()) return Usage(candidates.status());
  s.candidates = *std::move(candidates);
  s.search.min_rate = plan_flags.min_rate;
  s.search.max_rate = plan_flags.max_rate;
  s.search.start_rate = 1;
  s.search.tolerance = plan_flags.tolerance;
  s.search.verify_seeds = plan_flags.verify_seeds;
  s.search.max_replicas = plan_flags.max_replicas;
  if (!(s.search.min_rate > 0) || !(s.search.max_rate > s.search.min_rate) || !std::isfinite(s.search.max_rate)) {
    return cli::UsageError("--min-rate and --max-rate: need 0 < min-rate < max-rate");
  }
  if (!(s.search.tolerance >= 0.001 && s.search.tolerance <= 1))
    return cli::UsageError("--tolerance must be in [0.001, 1]");
  if (absl::Status st = cli::CheckRange("verify_seeds", s.search.verify_seeds, 1, 100); !st.ok()) return st;
  if (absl::Status st = cli::CheckRange("max_replicas", s.search.max_replicas, 1, kMaxSimulatedGpus); !st.ok())
    return st;
  absl::StatusOr<std::map<std::string, double>> prices = ParsePrices(plan_flags.price);
  if (!prices.ok()) return prices.status();
  s.prices = *std::move(prices);
  s.workload = flags;
  absl::StatusOr<int> jobs = JobsFromFlags(flags);
  if (!jobs.ok()) return jobs.status();
  s.jobs = *jobs;
  s.quiet = simulate_flags.quiet;
  absl::StatusOr<bool> json = cli::WantJson(flags);
  if (!json.ok()) return json.status();
  s.json = *json;
  s.out = plan_flags.out;
  return s;
}

std::string Ms(double seconds) { return absl::StrFormat("%.1f", seconds * 1e3); }

std::string Render(const PlanResult& result) {
  std::vector<std::string> terms;
  for (const SloTerm& t : result.slo()) terms.push_back(t.text());
  std::string out = absl::StrCat("InferGrid plan: ", result.candidates_size(), " candidate",
                                 result.candidates_size() == 1 ? "" : "s", ", SLO ", absl::StrJoin(terms, ", "));
  absl::StrAppend(&out, result.target_rate() > 0
                            ? absl::StrCat(", target ", format::Fixed(result.target_rate(), 2), " req/s\n")
                            : ", the largest rate each sustains\n");
  absl::StrAppend(&out, "  workload: ", result.assumed_workload().text(), "\n");
  absl::StrAppend(&out, "  flags: ", result.workload().empty() ? "(simulate's defaults)" : result.workload(), "\n\n");
  std::vector<std::string> header = {"rank", "deployment", "GPUs", result.target_rate() > 0 ? "replicas" : "req/s",
                                     "output tok/s"};
  for (const SloTerm& t : result.slo()) header.push_back(absl::StrCat(t.metric(), " ", t.statistic(), " ms"));
  for (const char* h : {"$/h", "$/M tok", "profile", "note"}) header.emplace_back(h);
  format::TextTable table(header);
  std::vector<std::string> footnotes;  // long reasons under the table, not in a column
  for (const PlanCandidate& c : result.candidates()) {
    const bool ok = c.status() == "ok";
    std::vector<std::string> row = {ok ? absl::StrCat(c.rank()) : "-", c.label(), ok ? absl::StrCat(c.gpus()) : "-",
                                    !ok                        ? "-"
                                    : result.target_rate() > 0 ? absl::StrCat(c.replicas())
                                                               : format::Fixed(c.rate(), 2),
                                    ok ? format::Fixed(c.output_tokens_per_s(), 0) : "-"};
    for (int t = 0; t < result.slo_size(); ++t) row.push_back(ok ? Ms(c.slo_values(t).mean_s()) : "-");
    row.push_back(ok && c.usd_per_hour() > 0 ? format::Fixed(c.usd_per_hour(), 2) : "-");
    row.push_back(ok && c.usd_per_million_output_tokens() > 0 ? format::Fixed(c.usd_per_million_output_tokens(), 3)
                                                              : "-");
    row.push_back(plan::ProfileMark(c));
    if (c.error().empty()) {
      row.push_back(ok ? "" : c.status());
    } else {
      footnotes.push_back(absl::StrCat("[", footnotes.size() + 1, "] ", c.label(), ": ", c.error()));
      row.push_back(absl::StrCat(ok ? "" : absl::StrCat(c.status(), " "), "[", footnotes.size(), "]"));
    }
    table.AddRow(row);
  }
  absl::StrAppend(&out, table.Render());
  for (const std::string& note : footnotes) absl::StrAppend(&out, note, "\n");
  absl::StrAppend(&out, "SLO values are means over ", result.replications(), " seed",
                  result.replications() == 1 ? "" : "s", " at the chosen point (95% intervals in --format=json); ",
                  result.simulations(), " simulations\n");
  for (const std::string& note : result.notes()) absl::StrAppend(&out, "note: ", note, "\n");
  if (!result.best_command().empty()) absl::StrAppend(&out, "best: ", result.best_command(), " --out=plan-best\n");
  return out;
}

// The workload flags as the user gave them (without plan's own), for the result's header.
std::string WorkloadText(const cli::FlagValues& flags) {
  std::vector<std::string> parts;
  for (const std::string& name : flags.GivenNames()) {
    if (name == "out" || name == "format" || name == "quiet") continue;
    if (cli::SimulationFlags().Find(name) == nullptr) continue;
    std::string dashed = name;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    parts.push_back(absl::StrCat("--", dashed, "=", flags.Text(name)));
  }
  return absl::StrJoin(parts, " ");
}

// The note that states when a point passes (docs/plan.md#how-a-candidate-is-searched).
std::string PassRule(double tolerance) {
  return absl::StrCat("a point passes when its arrivals last at least ", plan::kWindowLatencies,
                      " p99 end-to-end latencies (the run grows to what that needs, up to ", plan::kMaxPlanRequests,
                      " requests), every SLO term holds, no request is rejected, and the mean queueing delay of the "
                      "whole run is at most ",
                      kStableGrowth, " x that of its first half + ", kStableSlackS * 1e3,
                      " ms (stability); rates bisected to ", format::Fixed(100 * tolerance, 1),
                      "%; output tokens/s is the rate times the mean output of the completed requests");
}

// The result's settings, before any candidate is searched.
PlanResult ResultHeader(const PlanSettings& s) {
  PlanResult result;
  for (const SloTerm& t : s.slo) *result.add_slo() = t;
  result.set_target_rate(s.target_rate);
  result.set_replications(s.search.verify_seeds);
  result.set_tolerance(s.search.tolerance);
  result.set_workload(WorkloadText(s.workload));
  result.add_notes(PassRule(s.search.tolerance));
  return result;
}

// Each candidate's flags resolved (CandidateFlags) and every --price naming a candidate's GPU.
absl::Status CheckCandidates(const PlanSettings& s, std::vector<PlanCandidate>& candidates,
                             std::vector<cli::FlagValues>& flags) {
  for (size_t i = 0; i < s.candidates.size(); ++i) {
    absl::StatusOr<cli::FlagValues> f = CandidateFlags(s, s.candidates[i], candidates[i]);
    if (!f.ok()) return f.status();
    flags.push_back(*std::move(f));
  }
  for (const auto& [gpu, usd] : s.prices) {
    bool used = false;
    for (const PlanCandidate& c : candidates) used |= c.gpu() == gpu;
    if (!used) return cli::UsageError(absl::StrCat("--price: no candidate runs on '", gpu, "'"));
  }
  return absl::OkStatus();
}

absl::Status RunPlan(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  if (!command_line.positional.empty()) {
    return cli::UsageError(absl::StrCat("plan takes flags only, got '", command_line.positional[0], "'"));
  }
  absl::StatusOr<PlanSettings> settings = ReadSettings(command_line.flags);
  if (!settings.ok()) return settings.status();
  const PlanSettings& s = *settings;
  // Every candidate checked before any simulation runs.
  std::vector<PlanCandidate> candidates(s.candidates.size());
  std::vector<cli::FlagValues> flags;
  if (absl::Status st = CheckCandidates(s, candidates, flags); !st.ok()) return st;
  absl::StatusOr<PlanWorkload> workload = AssumedWorkload(s.workload);
  if (!workload.ok()) return Usage(workload.status());
  std::optional<OutputDir> dir;
  if (!s.out.empty()) {
    absl::StatusOr<OutputDir> opened = OutputDir::Open(s.out);
    if (!opened.ok()) return opened.status();
    dir.emplace(*std::move(opened));
  }
  PlanResult result = ResultHeader(s);
  *result.mutable_assumed_workload() = *std::move(workload);
  // Candidates searched side by side, each in a child process of its own (which runs its
  // simulations in children of its own: one SimGrid engine per process).
  std::vector<size_t> pending;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].status() == "pending") pending.push_back(i);
  }
  size_t finished_count = candidates.size() - pending.size();
  ConcurrentRuns runs;
  runs.count = pending.size();
  runs.jobs = s.jobs;
  runs.body = [&](size_t k) -> absl::StatusOr<std::string> {
    PlanCandidate c = candidates[pending[k]];
    if (absl::Status st = SearchCandidate(s, flags[pending[k]], c); !st.ok()) {
      c.set_status("error");
      c.set_error(std::string(st.message()));
    }
    return c.SerializeAsString();
  };
  runs.finished = [&](size_t k, absl::StatusOr<std::string> bytes) -> absl::Status {
    PlanCandidate& c = candidates[pending[k]];
    if (!bytes.ok()) {
      c.set_status("error");
      c.set_error(std::string(bytes.status().message()));
    } else if (!c.ParseFromString(*bytes)) {
      return absl::InternalError("unreadable result from a plan process");
    }
    ++finished_count;
    if (!s.quiet) {
      std::cerr << "plan: " << finished_count << "/" << candidates.size() << " " << c.label() << ": "
                << (c.status() == "ok"
                        ? absl::StrCat(format::Fixed(c.rate(), 2), " req/s, ", c.replicas(), " replica(s)")
                        : c.status())
                << " (" << c.simulations() << " simulations)\n";
    }
    return absl::OkStatus();
  };
  if (absl::Status st = RunConcurrently(runs); !st.ok()) return st;
  for (const PlanCandidate& c : candidates) result.set_simulations(result.simulations() + c.simulations());
  plan::RankCandidates(candidates, s.target_rate > 0);
  for (PlanCandidate& c : candidates) *result.add_candidates() = std::move(c);
  if (const std::string note = plan::ProfileNote(result); !note.empty()) result.add_notes(note);
  if (result.candidates_size() > 0 && result.candidates(0).rank() == 1) {
    result.set_best_command(result.candidates(0).command_line());
  }
  if (dir) {
    if (absl::Status st = dir->WriteFile("plan.json", format::ToJson(result)); !st.ok()) return st;
    if (absl::Status st = dir->Commit(); !st.ok()) return st;
  }
  out << (s.json ? format::ToJson(result) : Render(result));
  return absl::OkStatus();
}

}  // namespace

const Command& PlanCommand() {
  static const Command* command = new Command{
      "plan", "the cheapest deployment that meets an SLO: capacity per candidate, ranked by cost",
      cli::CommandFlags()
          .TakeAll(cli::SimulationFlags(), cli::SimulationFileFlags())
          .Help("rate", "not taken: plan searches the arrival rate (--target-rate, or --min-rate and --max-rate)")
          .Help("num_replicas", "not taken: plan chooses replicas (--replica-counts, or --target-rate)")
          .Take(PlanFlagGroup())
          .Take(JobsFlagGroup()),
      &RunPlan};
  return *command;
}

}  // namespace infergrid
