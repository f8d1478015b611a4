#include "sim/app/run/plan_search.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/student_t.h"
#include "sim/app/plan/plan_ranking.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/simulate_flags.h"
#include "sim/app/cli/simulate_options.h"
#include "sim/app/run/plan_assumed.h"
#include "sim/app/run/resolved_simulation.h"
#include "sim/app/run/simulation_run.h"

namespace infergrid {
namespace {

absl::StatusOr<cli::FlagValues> ParseFlagList(const std::vector<std::string>& args, absl::string_view context) {
  absl::StatusOr<cli::ParsedCommandLine> parsed = cli::ParseCommandLine(args, cli::SimulationFlags());
  if (!parsed.ok()) return cli::UsageError(absl::StrCat(context, ": ", parsed.status().message()));
  return parsed->flags;
}

// The simulate flags of one run: the workload, the candidate, then the point.
absl::StatusOr<ResolvedSimulation> ResolvePoint(const cli::FlagValues& base, double rate, int32_t replicas,
                                                uint64_t seed, int64_t max_requests) {
  std::vector<std::string> args = {absl::StrCat("--rate=", rate), absl::StrCat("--num_replicas=", replicas),
                                   absl::StrCat("--seed=", seed), "--quiet"};
  if (max_requests > 0) args.push_back(absl::StrCat("--max_requests=", max_requests));
  absl::StatusOr<cli::FlagValues> point = ParseFlagList(args, "plan");
  if (!point.ok()) return point.status();
  absl::StatusOr<cli::SimulateOptions> options = cli::ReadSimulateOptions(base.With(*point));
  if (!options.ok()) return options.status();
  return ResolveSimulationOptions(*options);
}

// The full run at `rate`, with as many requests as it takes for its arrivals to last
// plan::kWindowLatencies p99 end-to-end latencies (growing from the workload's count). `shows_rate`
// false: plan::kMaxPlanRequests (or the whole trace) were not enough.
struct FullRun {
  SimulationSummary summary;
  std::string command_line;
  int32_t simulations = 0;
  bool shows_rate = false;
};

absl::StatusOr<FullRun> RunLongEnough(const cli::FlagValues& base, double rate, int32_t replicas, uint64_t seed) {
  FullRun run;
  int64_t requests = 0;  // the workload's own count first
  while (true) {
    absl::StatusOr<ResolvedSimulation> resolved = ResolvePoint(base, rate, replicas, seed, requests);
    if (!resolved.ok()) return resolved.status();
    absl::StatusOr<SimulationSummary> summary =
        ExecuteSimulationInChild(*resolved, resolved->options.workload.synthetic.seed);
    if (!summary.ok()) return summary.status();
    ++run.simulations;
    const int64_t arrived = summary->requests();
    run.summary = *std::move(summary);
    run.command_line = resolved->config.command_line();
    const double window = arrived > 1 ? static_cast<double>(arrived - 1) / rate : 0;
    run.shows_rate = window >= plan::kWindowLatencies * run.summary.e2e().p99();
    // The requests whose arrivals would last long enough at this latency (which only grows with
    // a longer run at a rate that is too high): beyond the cap the rate cannot be shown.
    const double needed = 1 + rate * plan::kWindowLatencies * run.summary.e2e().p99();
    if (run.shows_rate || needed > plan::kMaxPlanRequests || (requests > 0 && arrived < requests)) return run;
    requests = std::min<int64_t>(std::max<int64_t>(2 * arrived, static_cast<int64_t>(std::ceil(1.25 * needed))),
                                 plan::kMaxPlanRequests);
  }
}

// One point: the full run, and where it meets the SLO its first half for the stability rule.
absl::StatusOr<plan::ProbeResult> RunPoint(const cli::FlagValues& base, const std::vector<SloTerm>& slo, double rate,
                                           int32_t replicas, uint64_t seed) {
  absl::StatusOr<FullRun> run = RunLongEnough(base, rate, replicas, seed);
  if (!run.ok()) return run.status();
  const SimulationSummary* full = &run->summary;
  plan::ProbeResult r;
  r.simulations = run->simulations;
  r.command_line = run->command_line;
  r.shows_rate = run->shows_rate;
  // The output token rate the deployment serves at `rate` in steady state: the offered requests
  // times their mean output, not the run's tokens over its makespan (which counts the drain
  // after the last arrival and so moves with the run's length).
  r.output_tokens_per_s = full->completed() > 0 ? rate * full->output_tokens() / full->completed() : 0;
  for (const SloTerm& term : slo) r.slo_values.push_back(plan::SloValueIn(*full, term));
  r.meets_slo = plan::MeetsSlo(*full, slo);
  if (!r.meets_slo) return r;
  const int64_t half_requests = full->requests() / 2;
  if (half_requests < 1) {
    r.stable = true;
    return r;
  }
  absl::StatusOr<ResolvedSimulation> half_resolved = ResolvePoint(base, rate, replicas, seed, half_requests);
  if (!half_resolved.ok()) return half_resolved.status();
  absl::StatusOr<SimulationSummary> half =
      ExecuteSimulationInChild(*half_resolved, half_resolved->options.workload.synthetic.seed);
  if (!half.ok()) return half.status();
  ++r.simulations;
  r.stable = full->queueing().mean() <= kStableGrowth * half->queueing().mean() + kStableSlackS;
  return r;
}

void RecordChoice(const std::vector<SloTerm>& slo, const plan::SearchResult& found, PlanCandidate& c) {
  c.set_simulations(c.simulations() + found.simulations);
  if (!found.feasible) {
    c.set_status("infeasible");
    c.set_error(found.note);
    return;
  }
  c.set_status("ok");
  if (!found.note.empty()) c.set_error(found.note);
  c.set_rate(found.rate);
  c.set_replicas(found.replicas);
  c.set_gpus(found.replicas * c.tensor_parallel_size());
  std::vector<double> tokens;
  for (const plan::ProbeResult& r : found.verified) tokens.push_back(r.output_tokens_per_s);
  c.set_output_tokens_per_s(MeanWithInterval95(tokens).mean);
  for (size_t t = 0; t < slo.size(); ++t) {
    std::vector<double> values;
    for (const plan::ProbeResult& r : found.verified) values.push_back(r.slo_values[t]);
    const MeanInterval m = MeanWithInterval95(values);
    SloValue& v = *c.add_slo_values();
    v.set_term(slo[t].text());
    v.set_mean_s(m.mean);
    v.set_ci95_low_s(m.low);
    v.set_ci95_high_s(m.high);
    v.set_limit_s(slo[t].limit_s());
  }
  c.set_command_line(found.verified.front().command_line);
  plan::AddCosts(c);
}

}  // namespace

absl::StatusOr<cli::FlagValues> CandidateFlags(const PlanSettings& s, const plan::Candidate& c, PlanCandidate& out) {
  std::vector<std::string> args;
  for (const auto& [name, value] : c.flags) args.push_back(absl::StrCat("--", name, "=", value));
  absl::StatusOr<cli::FlagValues> own = ParseFlagList(args, c.label);
  if (!own.ok()) return own.status();
  const cli::FlagValues flags = s.workload.With(*own);
  const int32_t replicas = c.replicas > 0 ? c.replicas : 1;
  absl::StatusOr<ResolvedSimulation> resolved = ResolvePoint(flags, s.search.start_rate, replicas, 0, 0);
  out.set_label(c.label);
  for (const auto& [name, value] : c.flags) out.add_flags(absl::StrCat("--", name, "=", value));
  if (!resolved.ok()) {
    if (resolved.status().code() == absl::StatusCode::kFailedPrecondition) {
      out.set_status("infeasible");
      out.set_error(std::string(resolved.status().message()));
      return flags;
    }
    const std::string message = absl::StrCat(c.label, ": ", resolved.status().message());
    if (cli::ExitCodeFor(resolved.status()) == cli::kExitUsage) return cli::UsageError(message);
    return absl::Status(resolved.status().code(), message);
  }
  out.set_status("pending");
  out.set_gpu(resolved->setup.cost_request.gpu.name());
  out.set_tensor_parallel_size(resolved->setup.cost_request.tensor_parallel);
  out.set_replicas(replicas);
  SetAssumedProfile(resolved->setup.cost_request, out);
  auto price = s.prices.find(out.gpu());
  out.set_price_usd_per_gpu_hour(price != s.prices.end() ? price->second
                                                         : resolved->setup.cost_request.gpu.price_usd_per_gpu_hour());
  return flags;
}

absl::Status SearchCandidate(const PlanSettings& s, const cli::FlagValues& flags, PlanCandidate& c) {
  const cli::SimulateFlags simulate_flags = cli::SimulateFlagGroup().Read(s.workload);
  const uint64_t base_seed = simulate_flags.seed;
  const plan::Probe probe = [&](double rate, int32_t replicas, int32_t seed_index) {
    return RunPoint(flags, s.slo, rate, replicas, base_seed + static_cast<uint64_t>(seed_index));
  };
  if (s.target_rate <= 0) {
    absl::StatusOr<plan::SearchResult> found = plan::MaxSustainableRate(probe, c.replicas(), s.search);
    if (!found.ok()) return found.status();
    RecordChoice(s.slo, *found, c);
    return absl::OkStatus();
  }
  // One replica's capacity (base seed only) places the first guess of the replica count.
  plan::SearchOptions one = s.search;
  one.verify_seeds = 1;
  absl::StatusOr<plan::SearchResult> single = plan::MaxSustainableRate(probe, 1, one);
  if (!single.ok()) return single.status();
  c.set_simulations(single->simulations);
  if (!single->feasible) {
    RecordChoice(s.slo, *single, c);
    return absl::OkStatus();
  }
  // No more replicas than one simulated deployment may have GPUs for.
  plan::SearchOptions capped = s.search;
  capped.max_replicas = std::min(capped.max_replicas, kMaxSimulatedGpus / std::max(1, c.tensor_parallel_size()));
  absl::StatusOr<plan::SearchResult> found = plan::FewestReplicas(probe, s.target_rate, single->rate, capped);
  if (!found.ok()) return found.status();
  RecordChoice(s.slo, *found, c);
  return absl::OkStatus();
}
}  // namespace infergrid
