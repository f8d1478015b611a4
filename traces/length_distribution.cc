#include "traces/length_distribution.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace infergrid {
namespace {

constexpr double kMaxLength = std::numeric_limits<int32_t>::max();

int32_t ToLength(double x) {
  if (!(x >= 1)) return 1;  // NaN too
  if (x >= kMaxLength) return std::numeric_limits<int32_t>::max();
  return static_cast<int32_t>(std::floor(x + 0.5));
}

class Fixed final : public LengthMarginal {
 public:
  explicit Fixed(int32_t n) : n_(n) {}
  int32_t Sample(RandomStream&) const override { return n_; }

 private:
  int32_t n_;
};

class Uniform final : public LengthMarginal {
 public:
  Uniform(int64_t lo, int64_t hi) : lo_(lo), hi_(hi) {}
  int32_t Sample(RandomStream& random) const override {
    const auto span = static_cast<double>(hi_ - lo_ + 1);
    const auto k = std::min<int64_t>(hi_ - lo_, static_cast<int64_t>(random.Uniform() * span));
    return static_cast<int32_t>(lo_ + k);
  }

 private:
  int64_t lo_, hi_;
};

class Lognormal final : public LengthMarginal {
 public:
  Lognormal(double mu, double sigma) : mu_(mu), sigma_(sigma) {}
  int32_t Sample(RandomStream& random) const override { return ToLength(std::exp(mu_ + sigma_ * random.Normal())); }

 private:
  double mu_, sigma_;
};

// Rejection-inversion sampling of a bounded Zipf distribution (Hoermann and Derflinger 1996,
// as in Apache Commons RNG's RejectionInversionZipfSampler).
class Zipf final : public LengthMarginal {
 public:
  Zipf(double exponent, int64_t n) : s_(exponent), n_(n) {
    h_integral_x1_ = HIntegral(1.5) - 1.0;
    h_integral_n_ = HIntegral(static_cast<double>(n_) + 0.5);
    squeeze_ = 2.0 - HIntegralInverse(HIntegral(2.5) - H(2.0));
  }
  int32_t Sample(RandomStream& random) const override {
    while (true) {
      const double u = h_integral_n_ + random.Uniform() * (h_integral_x1_ - h_integral_n_);
      const double x = HIntegralInverse(u);
      auto k = static_cast<int64_t>(x + 0.5);
      k = std::clamp<int64_t>(k, 1, n_);
      const auto kd = static_cast<double>(k);
      if (kd - x <= squeeze_ || u >= HIntegral(kd + 0.5) - H(kd)) return static_cast<int32_t>(k);
    }
  }

 private:
  static double Helper1(double x) {
    return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
  }
  static double Helper2(double x) {
    return std::abs(x) > 1e-8 ? std::expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x));
  }
  double H(double x) const { return std::exp(-s_ * std::log(x)); }
  double HIntegral(double x) const {
    const double log_x = std::log(x);
    return Helper2((1.0 - s_) * log_x) * log_x;
  }
  double HIntegralInverse(double x) const {
    double t = x * (1.0 - s_);
    if (t < -1.0) t = -1.0;
    return std::exp(Helper1(t) * x);
  }

  double s_;
  int64_t n_;
  double h_integral_x1_ = 0, h_integral_n_ = 0, squeeze_ = 0;
};

class Independent final : public LengthSampler {
 public:
  Independent(std::unique_ptr<LengthMarginal> input, std::unique_ptr<LengthMarginal> output)
      : input_(std::move(input)), output_(std::move(output)) {}
  void Sample(RandomStream& random, int32_t* input, int32_t* output) const override {
    *input = input_->Sample(random);
    *output = output_->Sample(random);
  }

 private:
  std::unique_ptr<LengthMarginal> input_, output_;
};

class PresetLengths final : public LengthSampler {
 public:
  PresetLengths(WorkloadPreset preset, std::unique_ptr<LengthMarginal> input, std::unique_ptr<LengthMarginal> output)
      : preset_(std::move(preset)), input_(std::move(input)), output_(std::move(output)) {}
  void Sample(RandomStream& random, int32_t* input, int32_t* output) const override {
    // Two correlated normals through the normal CDF: uniforms with the preset's copula.
    const double rho = preset_.copula_rho();
    const double z1 = random.Normal();
    const double z2 = rho * z1 + std::sqrt(std::max(0.0, 1.0 - rho * rho)) * random.Normal();
    *input = input_ ? input_->Sample(random) : ToLength(InterpolateQuantile(preset_.input(), NormalCdf(z1)));
    *output = output_ ? output_->Sample(random) : ToLength(InterpolateQuantile(preset_.output(), NormalCdf(z2)));
  }

 private:
  WorkloadPreset preset_;
  std::unique_ptr<LengthMarginal> input_, output_;
};

class Empirical final : public LengthSampler {
 public:
  explicit Empirical(std::vector<std::pair<int32_t, int32_t>> pairs) : pairs_(std::move(pairs)) {}
  void Sample(RandomStream& random, int32_t* input, int32_t* output) const override {
    const auto n = static_cast<double>(pairs_.size());
    const auto i = std::min(pairs_.size() - 1, static_cast<size_t>(random.Uniform() * n));
    *input = pairs_[i].first;
    *output = pairs_[i].second;
  }

 private:
  std::vector<std::pair<int32_t, int32_t>> pairs_;
};

absl::Status CheckTable(const QuantileTable& t, absl::string_view which, absl::string_view preset) {
  const int n = t.probability_size();
  bool ok = n >= 2 && t.value_size() == n && t.probability(0) == 0 && t.probability(n - 1) == 1;
  for (int i = 1; ok && i < n; ++i) {
    ok = t.probability(i) > t.probability(i - 1) && t.value(i) >= t.value(i - 1);
  }
  if (!ok || t.value(0) < 1) {
    return absl::InvalidArgumentError(absl::StrCat("preset ", preset, ": ", which,
                                                   " quantile table must have >= 2 knots, probabilities "
                                                   "rising from 0 to 1, values >= 1 and never falling"));
  }
  return absl::OkStatus();
}

}  // namespace

double InterpolateQuantile(const QuantileTable& table, double u) {
  const auto& p = table.probability();
  const auto it = std::upper_bound(p.begin(), p.end(), u);
  if (it == p.begin()) return table.value(0);
  if (it == p.end()) return table.value(table.value_size() - 1);
  const int hi = static_cast<int>(it - p.begin());
  const int lo = hi - 1;
  const double w = (u - p[lo]) / (p[hi] - p[lo]);
  return table.value(lo) + w * (table.value(hi) - table.value(lo));
}

absl::StatusOr<std::unique_ptr<LengthMarginal>> ParseLengthMarginal(absl::string_view spec) {
  const std::vector<absl::string_view> parts = absl::StrSplit(spec, ':');
  const absl::string_view kind = parts[0];
  auto bad = [&](absl::string_view expected) {
    return absl::InvalidArgumentError(absl::StrCat("length distribution '", spec, "': expected ", expected));
  };
  std::vector<double> args;
  for (size_t i = 1; i < parts.size(); ++i) {
    double v = 0;
    if (!absl::SimpleAtod(parts[i], &v) || !std::isfinite(v)) return bad("numeric parameters");
    args.push_back(v);
  }
  auto is_length = [](double v) { return v >= 1 && v <= kMaxLength && v == std::floor(v); };
  if (kind == "fixed") {
    if (args.size() != 1 || !is_length(args[0])) return bad("fixed:N with N a length >= 1");
    return std::unique_ptr<LengthMarginal>(new Fixed(static_cast<int32_t>(args[0])));
  }
  if (kind == "uniform") {
    if (args.size() != 2 || !is_length(args[0]) || !is_length(args[1]) || args[1] < args[0]) {
      return bad("uniform:LO:HI with 1 <= LO <= HI");
    }
    return std::unique_ptr<LengthMarginal>(new Uniform(static_cast<int64_t>(args[0]), static_cast<int64_t>(args[1])));
  }
  if (kind == "lognormal") {
    if (args.size() != 2 || !(args[1] >= 0) || std::abs(args[0]) > 30) {
      return bad("lognormal:MU:SIGMA with SIGMA >= 0 (parameters of ln tokens)");
    }
    return std::unique_ptr<LengthMarginal>(new Lognormal(args[0], args[1]));
  }
  if (kind == "zipf") {
    if (args.size() != 2 || !(args[0] > 0) || args[0] > 20 || !is_length(args[1])) {
      return bad("zipf:S:MAX with 0 < S <= 20 and MAX a length >= 1");
    }
    return std::unique_ptr<LengthMarginal>(new Zipf(args[0], static_cast<int64_t>(args[1])));
  }
  return bad("fixed:N, uniform:LO:HI, lognormal:MU:SIGMA or zipf:S:MAX");
}

std::unique_ptr<LengthSampler> MakeIndependentLengths(std::unique_ptr<LengthMarginal> input,
                                                      std::unique_ptr<LengthMarginal> output) {
  return std::make_unique<Independent>(std::move(input), std::move(output));
}

absl::StatusOr<std::unique_ptr<LengthSampler>> MakePresetLengths(const WorkloadPreset& preset,
                                                                 std::unique_ptr<LengthMarginal> input_override,
                                                                 std::unique_ptr<LengthMarginal> output_override) {
  if (absl::Status s = CheckTable(preset.input(), "input", preset.name()); !s.ok()) return s;
  if (absl::Status s = CheckTable(preset.output(), "output", preset.name()); !s.ok()) return s;
  if (!(std::abs(preset.copula_rho()) <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat("preset ", preset.name(), ": copula_rho must be in [-1, 1]"));
  }
  return std::unique_ptr<LengthSampler>(
      new PresetLengths(preset, std::move(input_override), std::move(output_override)));
}

absl::StatusOr<std::unique_ptr<LengthSampler>> MakeEmpiricalLengths(const std::string& path,
                                                                    const TraceOptions& options) {
  absl::StatusOr<std::unique_ptr<RequestSource>> source = OpenTrace(path, options);
  if (!source.ok()) return source.status();
  std::vector<std::pair<int32_t, int32_t>> pairs;
  Request r;
  while (true) {
    absl::StatusOr<bool> more = (*source)->Next(&r);
    if (!more.ok()) return more.status();
    if (!*more) break;
    pairs.emplace_back(r.input_tokens, r.output_tokens);
  }
  return std::unique_ptr<LengthSampler>(new Empirical(std::move(pairs)));
}

}  // namespace infergrid
