#include "sim/app/plan/capacity_search.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace infergrid::plan {
namespace {

// Counts probes and simulations, and runs a point with one seed or all verification seeds.
class Prober {
 public:
  Prober(const Probe& probe, SearchResult& result) : probe_(probe), result_(result) {}

  absl::StatusOr<ProbeResult> Once(double rate, int32_t replicas, int32_t seed_index) {
    absl::StatusOr<ProbeResult> r = probe_(rate, replicas, seed_index);
    if (!r.ok()) return r.status();
    ++result_.probes;
    result_.simulations += r->simulations;
    return r;
  }

  // True when the base seed passes.
  absl::StatusOr<bool> Passes(double rate, int32_t replicas) {
    absl::StatusOr<ProbeResult> r = Once(rate, replicas, 0);
    if (!r.ok()) return r.status();
    return r->passes();
  }

  // Every verification seed passes; `verified` then holds their results. Stops at the first
  // failure.
  absl::StatusOr<bool> AllSeedsPass(double rate, int32_t replicas, int32_t seeds, std::vector<ProbeResult>& verified) {
    verified.clear();
    for (int32_t s = 0; s < seeds; ++s) {
      absl::StatusOr<ProbeResult> r = Once(rate, replicas, s);
      if (!r.ok()) return r.status();
      if (!r->passes()) {
        result_.last_failure_too_short = !r->shows_rate;
        return false;
      }
      verified.push_back(*std::move(r));
    }
    return true;
  }

 private:
  const Probe& probe_;
  SearchResult& result_;
};

absl::Status CheckOptions(const SearchOptions& o) {
  if (!(o.min_rate > 0) || !(o.max_rate > o.min_rate) || !(o.tolerance > 0) || o.verify_seeds < 1 ||
      o.max_replicas < 1) {
    return absl::InvalidArgumentError("plan search: needs 0 < min_rate < max_rate, tolerance > 0, seeds >= 1");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SearchResult> MaxSustainableRate(const Probe& probe, int32_t replicas, const SearchOptions& options) {
  if (absl::Status s = CheckOptions(options); !s.ok()) return s;
  SearchResult result;
  result.replicas = replicas;
  Prober prober(probe, result);
  double rate = std::clamp(options.start_rate, options.min_rate, options.max_rate);
  double lo = 0, hi = 0;  // lo passes, hi fails (0: not found yet)
  absl::StatusOr<bool> passes = prober.Passes(rate, replicas);
  if (!passes.ok()) return passes.status();
  if (*passes) {
    lo = rate;
    while (hi == 0 && lo < options.max_rate) {
      rate = std::min(2 * lo, options.max_rate);
      passes = prober.Passes(rate, replicas);
      if (!passes.ok()) return passes.status();
      (*passes ? lo : hi) = rate;
    }
    if (hi == 0) result.note = absl::StrCat("sustains the largest rate tried, --max-rate=", options.max_rate);
  } else {
    hi = rate;
    while (lo == 0 && hi > options.min_rate) {
      rate = std::max(hi / 2, options.min_rate);
      passes = prober.Passes(rate, replicas);
      if (!passes.ok()) return passes.status();
      (*passes ? lo : hi) = rate;
    }
    if (lo == 0) {
      result.note = absl::StrCat("misses the SLO even at --min-rate=", options.min_rate, " req/s");
      return result;
    }
  }
  while (hi > 0 && hi / lo - 1 > options.tolerance) {
    const double mid = std::sqrt(lo * hi);
    passes = prober.Passes(mid, replicas);
    if (!passes.ok()) return passes.status();
    (*passes ? lo : hi) = mid;
  }
  // Every seed at the chosen rate; where one fails, one tolerance step lower.
  for (double r = lo; r >= options.min_rate; r /= 1 + options.tolerance) {
    absl::StatusOr<bool> all = prober.AllSeedsPass(r, replicas, options.verify_seeds, result.verified);
    if (!all.ok()) return all.status();
    if (*all) {
      result.feasible = true;
      result.rate = r;
      return result;
    }
  }
  result.verified.clear();
  result.note = absl::StrCat("no rate down to --min-rate=", options.min_rate, " passes with every seed");
  return result;
}

absl::StatusOr<SearchResult> FewestReplicas(const Probe& probe, double target_rate, double one_replica_rate,
                                            const SearchOptions& options) {
  if (absl::Status s = CheckOptions(options); !s.ok()) return s;
  if (!(target_rate > 0) || !(one_replica_rate > 0)) {
    return absl::InvalidArgumentError("plan search: the target and one replica's rate must be positive");
  }
  SearchResult result;
  result.rate = target_rate;
  Prober prober(probe, result);
  const double estimate = std::ceil(target_rate / one_replica_rate * (1 - 1e-9));
  int32_t n = static_cast<int32_t>(std::clamp(estimate, 1.0, static_cast<double>(options.max_replicas)));
  std::vector<ProbeResult> verified;
  absl::StatusOr<bool> all = prober.AllSeedsPass(target_rate, n, options.verify_seeds, verified);
  if (!all.ok()) return all.status();
  if (*all) {
    // Fewer may do (routing can beat the estimate): step down while the next passes.
    int32_t best = n;
    std::vector<ProbeResult> best_verified = verified;
    for (int32_t m = n - 1; m >= 1; --m) {
      all = prober.AllSeedsPass(target_rate, m, options.verify_seeds, verified);
      if (!all.ok()) return all.status();
      if (!*all) break;
      best = m;
      best_verified = verified;
    }
    result.feasible = true;
    result.replicas = best;
    result.verified = std::move(best_verified);
    return result;
  }
  for (int32_t m = n + 1; m <= options.max_replicas; ++m) {
    all = prober.AllSeedsPass(target_rate, m, options.verify_seeds, verified);
    if (!all.ok()) return all.status();
    if (*all) {
      result.feasible = true;
      result.replicas = m;
      result.verified = std::move(verified);
      return result;
    }
  }
  result.note =
      result.last_failure_too_short
          ? absl::StrCat("does not reach ", target_rate, " req/s even with --max-replicas=", options.max_replicas,
                         ": its runs at that rate end before they can show it (the arrivals must last ",
                         kWindowLatencies, " p99 end-to-end latencies within ", kMaxPlanRequests, " requests)")
          : absl::StrCat("misses the SLO at ", target_rate, " req/s even with --max-replicas=", options.max_replicas);
  return result;
}

}  // namespace infergrid::plan
