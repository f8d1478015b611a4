#include "traces/preset_fit.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numbers>
#include <numeric>

#include "traces/trace_statistics.h"

namespace infergrid {
namespace {

std::vector<double> Ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> ranks(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double average = 0.5 * static_cast<double>(i + j) + 1.0;
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = average;
    i = j + 1;
  }
  return ranks;
}

double Pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const auto n = static_cast<double>(a.size());
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n;
  const double mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

QuantileTable Table(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  QuantileTable table;
  const double last = static_cast<double>(values.size() - 1);
  for (double p : PresetProbabilityGrid()) {
    const double h = last * p;
    const auto lo = static_cast<size_t>(std::floor(h));
    const size_t hi = std::min(values.size() - 1, lo + 1);
    const double v = values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
    table.add_probability(p);
    table.add_value(std::round(v * 1000) / 1000);  // knots to 1/1000 token: a readable file
  }
  return table;
}

}  // namespace

std::vector<double> PresetProbabilityGrid() {
  std::vector<double> grid;
  for (int i = 0; i < 200; ++i) grid.push_back(i / 200.0);  // exact decimals in the file
  for (double p : {0.999, 0.9999, 1.0}) grid.push_back(p);
  return grid;
}

double SpearmanCorrelation(const std::vector<double>& a, const std::vector<double>& b) {
  return Pearson(Ranks(a), Ranks(b));
}

LengthSummary SummarizeLengths(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  LengthSummary s;
  s.set_mean(std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size()));
  s.set_p50(NearestRankQuantile(values, 0.5));
  s.set_p90(NearestRankQuantile(values, 0.9));
  s.set_p99(NearestRankQuantile(values, 0.99));
  s.set_max(values.back());
  return s;
}

absl::StatusOr<WorkloadPreset> FitPreset(const std::string& path, const TraceOptions& options,
                                         const std::string& name) {
  TraceReadStats read;
  absl::StatusOr<std::unique_ptr<RequestSource>> source = OpenTrace(path, options, &read);
  if (!source.ok()) return source.status();
  std::vector<double> input, output;
  TraceStatsAccumulator arrivals;
  Request r;
  while (true) {
    absl::StatusOr<bool> more = (*source)->Next(&r);
    if (!more.ok()) return more.status();
    if (!*more) break;
    input.push_back(r.input_tokens);
    output.push_back(r.output_tokens);
    arrivals.Add(r);
  }
  const TraceStats stats = arrivals.Finish(read);
  WorkloadPreset preset;
  preset.set_name(name);
  preset.set_source(std::filesystem::path(path).filename().string());
  preset.set_source_rows(static_cast<int64_t>(input.size()));
  *preset.mutable_input() = Table(input);
  *preset.mutable_output() = Table(output);
  const double spearman = SpearmanCorrelation(input, output);
  preset.set_spearman(std::round(spearman * 1e4) / 1e4);
  preset.set_copula_rho(std::round(2 * std::sin(std::numbers::pi * spearman / 6) * 1e4) / 1e4);
  preset.set_rate_per_s(stats.mean_rate_per_s());
  preset.set_interarrival_cv(stats.interarrival_cv());
  *preset.mutable_source_input() = SummarizeLengths(input);
  *preset.mutable_source_output() = SummarizeLengths(output);
  return preset;
}

}  // namespace infergrid
