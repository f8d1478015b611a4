// sim/app/plan/capacity_search.h: the capacity searches on boundaries known in advance: bracketing
// and bisection, every verification seed, what bounds the search, the fewest replicas for a target.
#include <cstdint>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/app/plan/capacity_search.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

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

}  // namespace
}  // namespace infergrid
