// `infergrid plan`: SLO parsing, candidate expansion, the capacity searches on boundaries known
// in advance, the ranking, and the command against a brute-force scan of `simulate`.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "sim/app/plan/candidates.h"
#include "sim/app/plan/capacity_search.h"
#include "sim/app/plan/plan_assumptions.h"
#include "sim/app/plan/plan_ranking.h"
#include "sim/app/plan/slo.h"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;
using testing::CliErrorCase;
using testing::ExpectOneLineError;
using ::testing::HasSubstr;
using testing::RunInfergrid;

TEST(Slo, ParsesTermsWithUnits) {
  absl::StatusOr<std::vector<SloTerm>> slo =
      plan::ParseSlo("ttft_p99<=2s, tpot_p99<100ms,e2e_p90<=20s,itl_p99_9<=250us", "slo");
  ASSERT_TRUE(slo.ok()) << slo.status();
  ASSERT_EQ(slo->size(), 4u);
  EXPECT_EQ((*slo)[0].metric(), "ttft");
  EXPECT_EQ((*slo)[0].statistic(), "p99");
  EXPECT_DOUBLE_EQ((*slo)[0].limit_s(), 2);
  EXPECT_DOUBLE_EQ((*slo)[1].limit_s(), 0.1);
  EXPECT_EQ((*slo)[1].text(), "tpot_p99<100ms");
  EXPECT_EQ((*slo)[3].statistic(), "p99_9");
  EXPECT_DOUBLE_EQ((*slo)[3].limit_s(), 250e-6);

  SimulationSummary s;
  s.set_completed(10);
  s.mutable_ttft()->set_p99(1.5);
  s.mutable_tpot()->set_p99(0.1);
  s.mutable_e2e()->set_p90(20.5);
  EXPECT_DOUBLE_EQ(plan::SloValueIn(s, (*slo)[2]), 20.5);
  EXPECT_FALSE(plan::MeetsSlo(s, *slo));  // e2e p90 over, itl p99.9 0 <= 250 us
  s.mutable_e2e()->set_p90(19);
  EXPECT_TRUE(plan::MeetsSlo(s, *slo));  // the limit itself is within
  s.set_rejected(1);
  EXPECT_FALSE(plan::MeetsSlo(s, *slo));  // a request turned away
  s.set_rejected(0);
  s.set_completed(0);
  EXPECT_FALSE(plan::MeetsSlo(s, *slo));  // nothing served
}

TEST(Slo, ErrorsNameTheFlagAndTheTerm) {
  for (const auto& [text, message] :
       std::vector<std::pair<std::string, std::string>>{{"", "--slo is required"},
                                                        {"ttft_p99", "'ttft_p99': expected METRIC_STAT<=LIMIT"},
                                                        {"ttft<=2s", "'ttft<=2s': expected METRIC_STAT"},
                                                        {"latency_p99<=2s", "unknown metric"},
                                                        {"ttft_p98<=2s", "unknown statistic"},
                                                        {"ttft_p99<=2", "needs a positive number and a unit"},
                                                        {"ttft_p99<=-2s", "needs a positive number"},
                                                        {"ttft_p99<=2h", "needs a positive number and a unit"},
                                                        {"ttft_p99<=1s,ttft_p99<=2s", "given twice"}}) {
    absl::StatusOr<std::vector<SloTerm>> slo = plan::ParseSlo(text, "slo");
    ASSERT_FALSE(slo.ok()) << text;
    EXPECT_THAT(slo.status().message(), HasSubstr(message)) << text;
    EXPECT_THAT(slo.status().message(), HasSubstr("--slo")) << text;
  }
}

TEST(Candidates, AreTheProductOfTheListedAxes) {
  plan::CandidateAxes axes;
  axes.gpus = {"h100-sxm", "a100-80gb"};
  axes.tensor_parallel = {1, 2, 4};
  axes.kv_dtypes = {"auto", "fp8"};
  absl::StatusOr<std::vector<plan::Candidate>> c = plan::ExpandCandidates(axes, 100);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->size(), 12u);
  EXPECT_EQ((*c)[0].label, "h100-sxm tp1 kv=auto");
  EXPECT_EQ((*c)[1].label, "h100-sxm tp1 kv=fp8");
  EXPECT_EQ((*c)[11].label, "a100-80gb tp4 kv=fp8");
  EXPECT_EQ((*c)[11].gpu, "a100-80gb");
  EXPECT_EQ((*c)[11].tensor_parallel, 4);
  ASSERT_EQ((*c)[5].flags.size(), 3u);
  EXPECT_EQ((*c)[5].flags[1], (std::pair<std::string, std::string>("tensor_parallel_size", "4")));
  // Nothing varied: one candidate, the workload as given.
  absl::StatusOr<std::vector<plan::Candidate>> none = plan::ExpandCandidates({}, 100);
  ASSERT_TRUE(none.ok());
  ASSERT_EQ(none->size(), 1u);
  EXPECT_EQ((*none)[0].label, "as given");
  EXPECT_FALSE(plan::ExpandCandidates(axes, 11).ok());
  EXPECT_THAT(plan::ParseList("a,,b", "gpus").status().message(), HasSubstr("--gpus: empty value"));
  EXPECT_THAT(plan::ParseList("a,b,a", "gpus").status().message(), HasSubstr("'a' listed twice"));
  EXPECT_THAT(plan::ParsePositiveInts("1,0", "tp-sizes").status().message(),
              HasSubstr("'0' is not a positive integer"));
  // A positive number past int32 is out of range, not "not positive" (an int32 read refused it so).
  for (const char* big : {"3000000000", "99999999999999999999"}) {
    EXPECT_THAT(plan::ParsePositiveInts(absl::StrCat("1,", big), "tp-sizes").status().message(),
                HasSubstr(absl::StrCat("--tp-sizes: '", big, "' is out of range for a 32-bit integer")));
  }
  EXPECT_THAT(plan::ParsePositiveInts("-99999999999999999999", "tp-sizes").status().message(),
              HasSubstr("is not a positive integer"));
  EXPECT_THAT(plan::ParsePositiveInts("0x10", "tp-sizes").status().message(), HasSubstr("is not a positive integer"));
}

// A deployment whose every seed passes up to `boundary` req/s per replica (seed s passes up to
// boundary - s * seed_step), counting the probes.
struct KnownBoundary {
  double boundary = 7.3;
  double seed_step = 0;
  int calls = 0;
  plan::Probe probe() {
    return [this](double rate, int32_t replicas, int32_t seed) -> absl::StatusOr<plan::ProbeResult> {
      ++calls;
      plan::ProbeResult r;
      r.simulations = 2;
      r.meets_slo = rate / replicas <= boundary - seed * seed_step;
      r.stable = true;
      r.output_tokens_per_s = 100 * rate;
      r.slo_values = {rate / replicas / boundary};
      return r;
    };
  }
};

TEST(CapacitySearch, BracketsAndBisectsToTheBoundary) {
  for (double start : {0.2, 1.0, 50.0}) {
    KnownBoundary d;
    plan::SearchOptions o;
    o.start_rate = start;
    o.tolerance = 0.02;
    absl::StatusOr<plan::SearchResult> r = plan::MaxSustainableRate(d.probe(), 1, o);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->feasible);
    EXPECT_LE(r->rate, 7.3) << start;
    EXPECT_GE(r->rate, 7.3 / 1.02) << start;
    ASSERT_EQ(r->verified.size(), 3u);
    EXPECT_EQ(r->probes, d.calls);
    EXPECT_EQ(r->simulations, 2 * d.calls);
    EXPECT_LT(d.calls, 20) << start;  // doubling, then about log2(log(2)/log(1.02)) = 5 halvings
  }
}

TEST(CapacitySearch, EveryVerificationSeedMustPass) {
  KnownBoundary d;
  d.seed_step = 0.5;  // seed 2 passes only up to 6.3
  plan::SearchOptions o;
  o.tolerance = 0.02;
  absl::StatusOr<plan::SearchResult> r = plan::MaxSustainableRate(d.probe(), 1, o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->feasible);
  EXPECT_LE(r->rate, 6.3);
  EXPECT_GE(r->rate, 6.3 / 1.02 / 1.02);
}

TEST(CapacitySearch, ReportsWhatBoundsTheSearch) {
  KnownBoundary tiny;
  tiny.boundary = 0.001;
  absl::StatusOr<plan::SearchResult> none = plan::MaxSustainableRate(tiny.probe(), 1, {});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->feasible);
  EXPECT_THAT(none->note, HasSubstr("misses the SLO even at --min-rate=0.01"));
  KnownBoundary huge;
  huge.boundary = 1e9;
  plan::SearchOptions o;
  o.max_rate = 100;
  absl::StatusOr<plan::SearchResult> capped = plan::MaxSustainableRate(huge.probe(), 1, o);
  ASSERT_TRUE(capped.ok());
  EXPECT_TRUE(capped->feasible);
  EXPECT_DOUBLE_EQ(capped->rate, 100);
  EXPECT_THAT(capped->note, HasSubstr("--max-rate=100"));
  // A probe that fails ends the search with its error.
  const plan::Probe broken = [](double, int32_t, int32_t) -> absl::StatusOr<plan::ProbeResult> {
    return absl::InternalError("child died");
  };
  EXPECT_EQ(plan::MaxSustainableRate(broken, 1, {}).status().message(), "child died");
}

TEST(CapacitySearch, FewestReplicasForATarget) {
  KnownBoundary d;
  d.boundary = 3;  // each replica serves 3 req/s
  for (double estimate : {3.0, 1.0, 20.0}) {  // right, pessimistic, optimistic
    absl::StatusOr<plan::SearchResult> r = plan::FewestReplicas(d.probe(), 10, estimate, {});
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->feasible) << estimate;
    EXPECT_EQ(r->replicas, 4) << estimate;
    EXPECT_DOUBLE_EQ(r->rate, 10);
    EXPECT_EQ(r->verified.size(), 3u);
  }
  plan::SearchOptions few;
  few.max_replicas = 3;
  absl::StatusOr<plan::SearchResult> r = plan::FewestReplicas(d.probe(), 10, 3, few);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->feasible);
  EXPECT_THAT(r->note, HasSubstr("--max-replicas=3"));
}

PlanCandidate Ok(const std::string& label, int gpus, double price, double tokens) {
  PlanCandidate c;
  c.set_label(label);
  c.set_status("ok");
  c.set_gpus(gpus);
  c.set_price_usd_per_gpu_hour(price);
  c.set_output_tokens_per_s(tokens);
  plan::AddCosts(c);
  return c;
}

TEST(Ranking, CheapestPerTokenFirstThenUnpricedThenTheRest) {
  PlanCandidate failed;
  failed.set_label("failed");
  failed.set_status("error");
  PlanCandidate infeasible;
  infeasible.set_label("infeasible");
  infeasible.set_status("infeasible");
  // a: 4 $/h at 4,000 tok/s = 0.278 $/M; b: 2.5 $/h at 3,000 tok/s = 0.231 $/M.
  std::vector<PlanCandidate> c = {failed, Ok("unpriced", 1, 0, 5000), infeasible, Ok("a", 2, 2.0, 4000),
                                  Ok("b", 1, 2.5, 3000)};
  EXPECT_NEAR(c[3].usd_per_hour(), 4.0, 1e-12);
  EXPECT_NEAR(c[3].usd_per_million_output_tokens(), 4.0 / (4000 * 3600) * 1e6, 1e-12);
  std::vector<PlanCandidate> by_token = c;
  plan::RankCandidates(by_token, false);
  std::vector<std::string> order;
  for (const PlanCandidate& x : by_token) order.push_back(absl::StrCat(x.label(), ":", x.rank()));
  EXPECT_THAT(order, ::testing::ElementsAre("b:1", "a:2", "unpriced:3", "infeasible:0", "failed:0"));
  // For a target rate the cost per hour decides: a at 2 $/h but 0.556 $/M comes before b.
  c[3] = Ok("a", 1, 2.0, 1000);
  plan::RankCandidates(c, true);
  EXPECT_EQ(c[0].label(), "a");
  EXPECT_EQ(c[1].label(), "b");
}

// --- What a plan assumes -------------------------------------------------------------------

TEST(PlanAssumptions, TheWorkloadLineNamesSourceLengthsArrivalsRequestsAndSeed) {
  PlanWorkload w;
  w.set_source("azure-code");
  w.set_arrival("poisson");
  w.set_max_requests(500);
  w.set_seed(3);
  EXPECT_EQ(plan::WorkloadLine(w),
            "synthetic preset azure-code (its fitted lengths), poisson arrivals at each rate "
            "searched, 500 requests a run at first, seed 3");
  w.set_source("lengths");
  w.set_arrival("gamma");
  w.set_cv(4);
  w.set_input_lengths("fixed:2000");
  w.set_output_lengths("uniform:100:200");
  EXPECT_EQ(plan::WorkloadLine(w),
            "synthetic (input fixed:2000, output uniform:100:200), gamma arrivals (cv 4) at "
            "each rate searched, 500 requests a run at first, seed 3");
  PlanWorkload trace;
  trace.set_source("trace");
  trace.set_trace("conv.csv");
  trace.set_arrival("trace");
  EXPECT_EQ(plan::WorkloadLine(trace),
            "trace conv.csv (its lengths), its arrival times rescaled to each rate "
            "searched, all its requests a run at first, seed 0");
}

TEST(PlanAssumptions, ProfileMarksAndTheNoteNameWhatIsExtrapolated) {
  PlanResult report;
  PlanCandidate& measured = *report.add_candidates();
  measured.set_gpu("h100-sxm");
  measured.set_cost_model("calibrated");
  PlanCandidate& extrapolated = *report.add_candidates();
  extrapolated.set_gpu("b200");
  extrapolated.set_cost_model("calibrated");
  extrapolated.set_profile_extrapolated(true);
  extrapolated.set_profile_extrapolated_from("h100-sxm");
  PlanCandidate& unstarted = *report.add_candidates();
  EXPECT_EQ(plan::ProfileMark(measured), "measured");
  EXPECT_EQ(plan::ProfileMark(extrapolated), "extrapolated");
  EXPECT_EQ(plan::ProfileMark(unstarted), "-");
  EXPECT_THAT(plan::ProfileNote(report),
              HasSubstr("the GPU profiles of b200 from h100-sxm are extrapolated by datasheet ratios, not measured"));
  report.mutable_candidates(1)->set_profile_extrapolated(false);
  EXPECT_EQ(plan::ProfileNote(report), "");
  report.mutable_candidates(1)->set_cost_model("roofline");
  EXPECT_EQ(plan::ProfileMark(report.candidates(1)), "roofline");
  EXPECT_THAT(plan::ProfileNote(report), HasSubstr("b200 ran on the roofline model"));
}

// --- The command ---------------------------------------------------------------------------

constexpr char kWorkload[] = "--cost-model=roofline --max-requests=60 --workload=azure-conv";
constexpr char kSlo[] = "'tpot_p99<=20ms,ttft_p99<=400ms'";  // quoted for the shell

nlohmann::json SimulateJson(const std::string& flags) {
  const testing::CommandResult r = RunInfergrid(absl::StrCat("simulate --quiet --format=json ", flags));
  EXPECT_EQ(r.exit_code, 0) << flags << "\n" << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

// The pass rule as docs/plan.md states it, computed from `simulate` alone.
bool PassesBySimulate(double rate) {
  constexpr char kWorkloadWithoutCount[] = "--cost-model=roofline --workload=azure-conv";
  const std::string flags = absl::StrFormat("%s --rate=%.6g", kWorkloadWithoutCount, rate);
  // A run long enough to show the rate: arrivals over 5 p99 end-to-end latencies, the requests
  // grown to what that needs (at least doubled), within 20,000.
  int requests = 60;
  nlohmann::json full;
  while (true) {
    full = SimulateJson(absl::StrCat(flags, " --max-requests=", requests));
    if (full.empty()) return false;
    const double p99 = full["e2e"]["p99"].get<double>();
    if ((full["requests"].get<int>() - 1) / rate >= 5 * p99) break;
    const double needed = 1 + rate * 5 * p99;
    if (needed > 20000) return false;
    requests = std::min(20000, std::max(2 * requests, static_cast<int>(std::ceil(1.25 * needed))));
  }
  const bool slo = full["tpot"]["p99"].get<double>() <= 0.020 && full["ttft"]["p99"].get<double>() <= 0.400 &&
                   full["rejected"].get<int>() == 0 && full["completed"].get<int>() > 0;
  if (!slo) return false;
  const nlohmann::json half = SimulateJson(absl::StrCat(flags, " --max-requests=", full["requests"].get<int>() / 2));
  return full["queueing"]["mean"].get<double>() <= 1.25 * half["queueing"]["mean"].get<double>() + 0.05;
}

TEST(PlanCli, FindsTheBoundaryABruteForceScanFinds) {
  const testing::CommandResult r = RunInfergrid(
      absl::StrCat("plan --quiet --format=json --verify-seeds=1 --tolerance=0.02 ", kWorkload, " --slo=", kSlo));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["candidates"].size(), 1u);
  const nlohmann::json& c = j["candidates"][0];
  ASSERT_EQ(c["status"], "ok") << c.dump();
  const double rate = c["rate"].get<double>();
  // The scan: rates 1.1^k from a third of plan's answer (where every rate passes, checked: the
  // scan must start with a pass); the boundary is the last rate of the first run of passes.
  ASSERT_TRUE(PassesBySimulate(rate / 3));
  double last_pass = 0;
  for (double x = rate / 3; x < 1000; x *= 1.1) {
    if (!PassesBySimulate(x)) break;
    last_pass = x;
  }
  ASSERT_GT(last_pass, 0);
  EXPECT_GE(rate, last_pass / 1.02) << "scan boundary " << last_pass;
  EXPECT_LE(rate, last_pass * 1.1 * 1.02) << "scan boundary " << last_pass;
  // The chosen point passes, and its command line reproduces it.
  EXPECT_TRUE(PassesBySimulate(rate));
  EXPECT_THAT(c["command_line"].get<std::string>(), HasSubstr("--cost-model=roofline"));
  EXPECT_EQ(j["best_command"], c["command_line"]);
  EXPECT_EQ(c["rank"], 1);
  EXPECT_GT(c["simulations"].get<int>(), 4);
  EXPECT_EQ(j["simulations"], c["simulations"]);
}

TEST(PlanCli, RanksByCostWithCatalogOrGivenPrices) {
  const std::string base = absl::StrCat("plan --quiet --format=json --verify-seeds=1 --tolerance=0.1 ", kWorkload,
                                        " --slo=", kSlo, " --gpus=h100-sxm,a100-80gb");
  const testing::CommandResult r = RunInfergrid(base);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["candidates"].size(), 2u);
  for (const nlohmann::json& c : j["candidates"]) {
    ASSERT_EQ(c["status"], "ok") << c.dump();
    EXPECT_GT(c["price_usd_per_gpu_hour"].get<double>(), 0);
    EXPECT_NEAR(c["usd_per_million_output_tokens"].get<double>(),
                c["usd_per_hour"].get<double>() / (c["output_tokens_per_s"].get<double>() * 3600) * 1e6, 1e-9);
  }
  EXPECT_LE(j["candidates"][0]["usd_per_million_output_tokens"].get<double>(),
            j["candidates"][1]["usd_per_million_output_tokens"].get<double>());
  // Make the first one's GPU ten times dearer: the order flips, the capacities do not change.
  const std::string first = j["candidates"][0]["gpu"];
  const double first_price = j["candidates"][0]["price_usd_per_gpu_hour"];
  const testing::CommandResult flipped = RunInfergrid(absl::StrCat(base, " --price=", first, "=", 10 * first_price));
  ASSERT_EQ(flipped.exit_code, 0) << flipped.err;
  const nlohmann::json k = nlohmann::json::parse(flipped.out);
  EXPECT_NE(k["candidates"][0]["gpu"], first);
  EXPECT_EQ(k["candidates"][1]["rate"], j["candidates"][0]["rate"]);
}

// Capacity at steady state: a run of 100 requests and one of 1,000 state the same rate and a
// cost per token within a few percent (the short run grows until its arrivals last 5 p99
// latencies; tokens/s is the rate times the mean output, not tokens over a makespan with a drain).
TEST(PlanCli, TheCapacityDoesNotMoveWithTheRunLength) {
  std::vector<nlohmann::json> found;
  for (const int requests : {100, 1000}) {
    const testing::CommandResult r = RunInfergrid(absl::StrCat(
        "plan --quiet --format=json --verify-seeds=1 --tolerance=0.05 --cost-model=roofline --workload=azure-conv "
        "--max-requests=",
        requests, " --slo=", kSlo));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    found.push_back(nlohmann::json::parse(r.out)["candidates"][0]);
    ASSERT_EQ(found.back()["status"], "ok") << found.back().dump();
  }
  EXPECT_NEAR(found[0]["rate"].get<double>() / found[1]["rate"].get<double>(), 1, 0.06);
  EXPECT_NEAR(
      found[0]["usd_per_million_output_tokens"].get<double>() / found[1]["usd_per_million_output_tokens"].get<double>(),
      1, 0.08);
}

// A target no run can show (1e9 req/s: the burst is over before it starts) is not met.
TEST(PlanCli, ATargetTheRunsNeverReachIsNotMet) {
  const testing::CommandResult r = RunInfergrid(absl::StrCat("plan --quiet --format=json --verify-seeds=1 ", kWorkload,
                                                             " --slo=", kSlo, " --target-rate=1e9 --max-replicas=4"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json c = nlohmann::json::parse(r.out)["candidates"][0];
  EXPECT_EQ(c["status"], "infeasible") << c.dump();
  EXPECT_THAT(c["error"].get<std::string>(),
              HasSubstr("does not reach 1e+09 req/s even with --max-replicas=4: its runs "
                        "at that rate end before they can show it"));
}

TEST(PlanCli, TargetRateGivesTheFewestReplicasAndATableAndPlanJson) {
  const fs::path dir = testing::TestDir() / "plan-out";
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("plan --quiet --verify-seeds=1 --tolerance=0.1 ", kWorkload, " --slo=", kSlo,
                                " --target-rate=12 --out=", dir.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("InferGrid plan: 1 candidate, SLO tpot_p99<=20ms, ttft_p99<=400ms, target 12.00 req/s"));
  EXPECT_THAT(r.out, HasSubstr("best: infergrid simulate"));
  const nlohmann::json j = nlohmann::json::parse(testing::ReadAll(dir / "plan.json"));
  const nlohmann::json& c = j["candidates"][0];
  ASSERT_EQ(c["status"], "ok") << c.dump();
  const int replicas = c["replicas"];
  EXPECT_GE(replicas, 1);
  EXPECT_EQ(c["gpus"], replicas);
  EXPECT_DOUBLE_EQ(c["rate"].get<double>(), 12);
  EXPECT_THAT(c["command_line"].get<std::string>(), HasSubstr("--rate=12"));
  if (replicas > 1) {
    EXPECT_THAT(c["command_line"].get<std::string>(), HasSubstr(absl::StrCat("--num-replicas=", replicas)));
  }
}

TEST(PlanCli, AModelThatDoesNotFitIsInfeasibleNotAnError) {
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat("plan --quiet --format=json --verify-seeds=1 --tolerance=0.2 --model=llama-3-70b ",
                                kWorkload, " --slo=", kSlo, " --tp-sizes=1,4"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["candidates"].size(), 2u);
  EXPECT_EQ(j["candidates"][0]["label"], "tp4");
  EXPECT_EQ(j["candidates"][0]["rank"], 1);
  EXPECT_EQ(j["candidates"][1]["label"], "tp1");
  EXPECT_EQ(j["candidates"][1]["status"], "infeasible");
  EXPECT_EQ(j["candidates"][1]["rank"], 0);
  EXPECT_FALSE(j["candidates"][1]["error"].get<std::string>().empty());
}

// The same search on h100-sxm (a measured profile) and h200-sxm (extrapolated from it): the
// table's profile column and note, plan.json's per-candidate fields and the workload assumed;
// then `report` draws the folder. Capped at 4 req/s to keep the calibrated runs few.
TEST(PlanCli, MarksExtrapolatedProfilesAndNamesTheWorkload) {
  const fs::path root = testing::TestDir();
  const fs::path dir = root / "plan-profiles";
  const testing::CommandResult r = RunInfergrid(absl::StrCat(
      "plan --quiet --verify-seeds=1 --tolerance=0.25 --max-rate=4 --max-requests=40 --workload=azure-conv --seed=7 "
      "--slo='ttft_p99<=2s,tpot_p99<=100ms' --gpus=h100-sxm,h200-sxm --out=",
      dir.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  workload: synthetic preset azure-conv (its fitted lengths), poisson arrivals at "
                               "each rate searched, 40 requests a run at first, seed 7\n  flags: "));
  std::string header, h100_row, h200_row;
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    if (absl::StartsWith(line, "rank ")) header = std::string(line);
    if (line.empty() || !(absl::ascii_isdigit(line[0]) || line[0] == '-')) continue;  // a candidate's row
    if (absl::StrContains(line, " h100-sxm ")) h100_row = std::string(line);
    if (absl::StrContains(line, " h200-sxm ")) h200_row = std::string(line);
  }
  EXPECT_THAT(header, HasSubstr("profile")) << r.out;
  EXPECT_THAT(h100_row, HasSubstr(" measured")) << r.out;
  EXPECT_THAT(h200_row, HasSubstr(" extrapolated")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("note: the GPU profiles of h200-sxm from h100-sxm are extrapolated by datasheet "
                               "ratios, not measured on those GPUs"));
  const nlohmann::json j = nlohmann::json::parse(testing::ReadAll(dir / "plan.json"));
  ASSERT_EQ(j["candidates"].size(), 2u);
  for (const nlohmann::json& c : j["candidates"]) {
    ASSERT_EQ(c["status"], "ok") << c.dump();
    EXPECT_EQ(c["cost_model"], "calibrated") << c.dump();
    const bool h200 = c["gpu"] == "h200-sxm";
    EXPECT_EQ(c["profile_extrapolated"], h200) << c.dump();
    EXPECT_EQ(c["profile_extrapolated_from"], h200 ? "h100-sxm" : "") << c.dump();
    EXPECT_EQ(c["profile"], h200 ? "h200-sxm (extrapolated from h100-sxm by datasheet ratios)" : "h100-sxm (measured)");
  }
  const nlohmann::json& w = j["assumed_workload"];
  EXPECT_EQ(w["source"], "azure-conv");
  EXPECT_EQ(w["arrival"], "poisson");
  EXPECT_EQ(w["max_requests"], 40);
  EXPECT_EQ(w["seed"].is_string() ? w["seed"].get<std::string>() : w["seed"].dump(), "7");
  EXPECT_EQ(w["trace"], "");
  EXPECT_THAT(w["text"].get<std::string>(), HasSubstr("synthetic preset azure-conv"));

  // The folder as a report page: the candidates' capacities and costs in the charts' data.
  const fs::path page = root / "plan.html";
  const testing::CommandResult drawn = RunInfergrid(absl::StrCat("report ", dir.string(), " --out=", page.string()));
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  const std::string html = testing::ReadAll(page);
  const std::string open = "id=\"chart-specs\">";
  const size_t start = html.find(open) + open.size();
  const nlohmann::json specs = nlohmann::json::parse(html.substr(start, html.find("</script>", start) - start));
  ASSERT_EQ(specs.size(), 3u);
  for (size_t k = 0; k < 2; ++k) {
    const nlohmann::json& c = j["candidates"][k];
    const nlohmann::json& capacity = specs[0]["layer"][0]["data"]["values"][k];
    EXPECT_EQ(capacity["candidate"], c["label"]);
    EXPECT_EQ(capacity["profile"], c["gpu"] == "h200-sxm" ? "extrapolated" : "measured");
    EXPECT_NEAR(capacity["value"].get<double>(), c["rate"].get<double>(), 1e-3 * c["rate"].get<double>());
    const nlohmann::json& cost = specs[1]["layer"][0]["data"]["values"][k];
    EXPECT_NEAR(cost["value"].get<double>(), c["usd_per_million_output_tokens"].get<double>(),
                1e-3 * c["usd_per_million_output_tokens"].get<double>());
  }
}

TEST(PlanCli, BadInputIsOneLineAndNoFiles) {
  const fs::path dir = testing::TestDir() / "never";
  const std::string out = absl::StrCat(" --out=", dir.string());
  for (const CliErrorCase& c : std::vector<CliErrorCase>{
           {"plan" + out, 2, "--slo is required"},
           {"plan --slo='ttft_p99<=2' " + out, 2, "needs a positive number and a unit"},
           {"plan --slo=ttft_p99\\<=2s --rate=3" + out, 2, "--rate: plan searches the arrival rate"},
           {"plan --slo=ttft_p99\\<=2s --gpus=h100-sxm --gpu=a100-80gb" + out, 2, "--gpu is also a candidate axis"},
           {"plan --slo=ttft_p99\\<=2s --gpus=h100-sxm,b999" + out, 2, "b999: --gpu: unknown GPU 'b999'"},
           {"plan --slo=ttft_p99\\<=2s --price=l40s=1" + out, 2, "--price: no candidate runs on 'l40s'"},
           {"plan --slo=ttft_p99\\<=2s --price=h100-sxm" + out, 2, "expected GPU=USD_PER_GPU_HOUR"},
           // Numbers in decimal only, here too: hexadecimal and NaN are refused.
           {"plan --slo=ttft_p99\\<=0x10s" + out, 2, "needs a positive number and a unit"},
           {"plan --slo=ttft_p99\\<=2s --price=h100-sxm=0x10" + out, 2, "expected GPU=USD_PER_GPU_HOUR"},
           {"plan --slo=ttft_p99\\<=2s --price=h100-sxm=nan" + out, 2, "expected GPU=USD_PER_GPU_HOUR"},
           {"plan --slo=ttft_p99\\<=2s --target-rate=5 --replica-counts=1,2" + out, 2, "--replica-counts"},
           {"plan --slo=ttft_p99\\<=2s --min-rate=5 --max-rate=2" + out, 2, "--min-rate and --max-rate"},
           {"plan --slo=ttft_p99\\<=2s --tp-sizes=1,x" + out, 2, "'x' is not a positive integer"}}) {
    ExpectOneLineError(c);
  }
  EXPECT_FALSE(fs::exists(dir));
}

}  // namespace
}  // namespace infergrid
