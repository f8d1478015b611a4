#include "sim/core/serving/speculation.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/decimal_number.h"

namespace infergrid {
namespace {

uint64_t SplitMix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double StandardNormal(uint64_t& state) {
  // Box-Muller on (0, 1] x [0, 1).
  const double u1 = 1.0 - SpeculationStream::Uniform(state);
  const double u2 = SpeculationStream::Uniform(state);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

// Gamma(shape, 1) by Marsaglia and Tsang (2000); shape < 1 through Gamma(shape + 1) x U^(1/shape).
double Gamma(double shape, uint64_t& state) {
  if (shape < 1) {
    const double u = 1.0 - SpeculationStream::Uniform(state);
    return Gamma(shape + 1, state) * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3, c = 1.0 / std::sqrt(9 * d);
  while (true) {
    double x = 0, v = 0;
    do {
      x = StandardNormal(state);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = 1.0 - SpeculationStream::Uniform(state);
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

absl::Status Bad(absl::string_view flag, absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", text, ": ", why));
}

}  // namespace

absl::StatusOr<AcceptanceModel> ParseAcceptanceModel(absl::string_view flag, absl::string_view text) {
  AcceptanceModel m;
  if (absl::ConsumePrefix(&text, "beta:")) {
    const std::vector<std::string> parts = absl::StrSplit(text, ',');
    if (parts.size() != 2 || !ParseDecimal(parts[0], &m.alpha) || !ParseDecimal(parts[1], &m.beta_b) ||
        !(m.alpha > 0) || !(m.beta_b > 0) || m.alpha > 1e6 || m.beta_b > 1e6) {
      return Bad(flag, absl::StrCat("beta:", text), "expected beta:ALPHA,BETA with both in (0, 1e6]");
    }
    m.beta = true;
    return m;
  }
  if (!ParseDecimal(text, &m.rate) || !(m.rate >= 0) || !(m.rate <= 1)) {
    return Bad(flag, text, "expected an acceptance rate in [0, 1] or beta:ALPHA,BETA");
  }
  return m;
}

uint64_t SpeculationStream::Seed(uint64_t seed, int64_t index) {
  uint64_t state = seed ^ 0x5eedc0ffee123457ULL;
  state = SplitMix(state) ^ static_cast<uint64_t>(index);
  SplitMix(state);
  return state;
}

double SpeculationStream::Uniform(uint64_t& state) { return static_cast<double>(SplitMix(state) >> 11) * 0x1.0p-53; }

double SpeculationStream::DrawRate(const AcceptanceModel& model, uint64_t& state) {
  if (!model.beta) return model.rate;
  const double x = Gamma(model.alpha, state);
  const double y = Gamma(model.beta_b, state);
  return x + y > 0 ? x / (x + y) : model.mean();
}

int SpeculationStream::AcceptedDrafts(double rate, int k, uint64_t& state) {
  int accepted = 0;
  while (accepted < k && Uniform(state) < rate) ++accepted;
  return accepted;
}

double ExpectedTokensPerStep(double rate, int k) {
  if (rate >= 1) return k + 1;
  return (1 - std::pow(rate, k + 1)) / (1 - rate);
}

}  // namespace infergrid
