#include "sim/app/plan/slo.h"

#include <cmath>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/decimal_number.h"

namespace infergrid::plan {
namespace {

constexpr const char* kMetrics[] = {"ttft", "tpot", "itl", "e2e", "queueing"};
constexpr const char* kStatistics[] = {"mean", "p50", "p90", "p95", "p99", "p99_9", "max"};

absl::Status Bad(absl::string_view flag, absl::string_view term, absl::string_view why) {
  // The command maps InvalidArgument from a flag to a usage error (exit 2).
  return absl::InvalidArgumentError(absl::StrCat("--", flag, ": '", term, "': ", why));
}

const LatencySummary& Latency(const SimulationSummary& s, const std::string& metric) {
  if (metric == "ttft") return s.ttft();
  if (metric == "tpot") return s.tpot();
  if (metric == "itl") return s.itl();
  if (metric == "e2e") return s.e2e();
  return s.queueing();
}

// "2s", "100ms", "250us" -> seconds.
bool ParseDuration(absl::string_view text, double* seconds) {
  double scale = 0;
  if (absl::ConsumeSuffix(&text, "ms")) {
    scale = 1e-3;
  } else if (absl::ConsumeSuffix(&text, "us")) {
    scale = 1e-6;
  } else if (absl::ConsumeSuffix(&text, "s")) {
    scale = 1;
  } else {
    return false;
  }
  double value = 0;
  if (!ParseDecimal(text, &value) || value <= 0) return false;
  *seconds = value * scale;
  return true;
}

}  // namespace

absl::StatusOr<std::vector<SloTerm>> ParseSlo(absl::string_view text, absl::string_view flag) {
  std::vector<SloTerm> terms;
  if (absl::StripAsciiWhitespace(text).empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, " is required, e.g. ttft_p99<=2s,tpot_p99<=100ms"));
  }
  for (absl::string_view raw : absl::StrSplit(text, ',')) {
    const absl::string_view term = absl::StripAsciiWhitespace(raw);
    const size_t op = term.find('<');
    if (op == absl::string_view::npos) return Bad(flag, term, "expected METRIC_STAT<=LIMIT, e.g. ttft_p99<=2s");
    const absl::string_view name = absl::StripAsciiWhitespace(term.substr(0, op));
    absl::string_view limit = term.substr(op + 1);
    absl::ConsumePrefix(&limit, "=");
    limit = absl::StripAsciiWhitespace(limit);
    const size_t underscore = name.find('_');
    if (underscore == absl::string_view::npos) return Bad(flag, term, "expected METRIC_STAT, e.g. ttft_p99");
    SloTerm t;
    t.set_text(std::string(term));
    t.set_metric(std::string(name.substr(0, underscore)));
    t.set_statistic(std::string(name.substr(underscore + 1)));
    bool known_metric = false, known_statistic = false;
    for (const char* m : kMetrics) known_metric |= t.metric() == m;
    for (const char* s : kStatistics) known_statistic |= t.statistic() == s;
    if (!known_metric) return Bad(flag, term, "unknown metric (ttft, tpot, itl, e2e or queueing)");
    if (!known_statistic) return Bad(flag, term, "unknown statistic (mean, p50, p90, p95, p99, p99_9 or max)");
    double seconds = 0;
    if (!ParseDuration(limit, &seconds))
      return Bad(flag, term, "the limit needs a positive number and a unit: s, ms or us");
    t.set_limit_s(seconds);
    for (const SloTerm& earlier : terms) {
      if (earlier.metric() == t.metric() && earlier.statistic() == t.statistic()) {
        return Bad(flag, term, "given twice");
      }
    }
    terms.push_back(std::move(t));
  }
  return terms;
}

double SloValueIn(const SimulationSummary& summary, const SloTerm& term) {
  const LatencySummary& l = Latency(summary, term.metric());
  const std::string& s = term.statistic();
  if (s == "mean") return l.mean();
  if (s == "p50") return l.p50();
  if (s == "p90") return l.p90();
  if (s == "p95") return l.p95();
  if (s == "p99") return l.p99();
  if (s == "p99_9") return l.p99_9();
  return l.max();
}

bool MeetsSlo(const SimulationSummary& summary, const std::vector<SloTerm>& slo) {
  // A deployment that turns requests away (too long for its memory) does not serve the workload.
  if (summary.completed() == 0 || summary.rejected() > 0) return false;
  for (const SloTerm& term : slo) {
    if (!(SloValueIn(summary, term) <= term.limit_s())) return false;
  }
  return true;
}

}  // namespace infergrid::plan
