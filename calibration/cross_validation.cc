#include "calibration/cross_validation.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "calibration/profile_catalog.h"

namespace infergrid {
namespace {

constexpr int64_t kBandUpper[] = {16, 64, 256, 1024, 4096, 16384, 65536};

int Band(int64_t tokens) {
  int band = 0;
  while (band < 6 && tokens > kBandUpper[band]) ++band;
  return band;
}

std::string BandName(int band) {
  const int64_t lower = band == 0 ? 1 : kBandUpper[band - 1] + 1;
  return absl::StrCat("tokens ", lower, "-", kBandUpper[band]);
}

// The GEMM rows of `calibrated` and `baseline` (the same rows, in the same order), overall
// and per TP degree.
std::vector<GemmComparison> CompareGemms(const std::vector<SampleError>& calibrated,
                                         const std::vector<SampleError>& baseline) {
  std::map<int, std::pair<std::vector<SampleError>, std::vector<SampleError>>> by_tp;
  std::pair<std::vector<SampleError>, std::vector<SampleError>> all;
  for (size_t i = 0; i < calibrated.size(); ++i) {
    if (calibrated[i].sample->kernel.kind != KernelKind::kGemm) continue;
    all.first.push_back(calibrated[i]);
    all.second.push_back(baseline[i]);
    auto& group = by_tp[calibrated[i].sample->tensor_parallel];
    group.first.push_back(calibrated[i]);
    group.second.push_back(baseline[i]);
  }
  std::vector<GemmComparison> out;
  auto add = [&](const std::string& name, const std::vector<SampleError>& c, const std::vector<SampleError>& b) {
    if (c.empty()) return;
    GemmComparison g;
    g.group = name;
    g.calibrated = SummarizeErrors(c).back();  // "all" over GEMM rows only
    g.baseline = SummarizeErrors(b).back();
    g.calibrated.op = g.baseline.op = name;
    out.push_back(std::move(g));
  };
  add("all", all.first, all.second);
  for (const auto& [tp, rows] : by_tp) add(absl::StrCat("tp ", tp), rows.first, rows.second);
  return out;
}

}  // namespace

std::string FoldName(const KernelSample& sample, Holdout holdout) {
  switch (holdout) {
    case Holdout::kTensorParallel: return absl::StrCat("tp ", sample.tensor_parallel);
    case Holdout::kTokenBands: return BandName(Band(sample.tokens));
    case Holdout::kModel: return sample.model.empty() ? "(unnamed)" : sample.model;
  }
  return "";
}

absl::StatusOr<CrossValidation> CrossValidate(const GpuSpec& gpu, const std::vector<KernelSample>& samples,
                                              Holdout holdout) {
  // Fold order: TP degree, token band, or the order models first appear in.
  std::map<std::pair<int64_t, std::string>, std::string> folds;  // sort key -> name
  std::map<std::string, int64_t> first_seen;
  auto key = [&](const KernelSample& s) -> std::pair<int64_t, std::string> {
    const std::string name = FoldName(s, holdout);
    switch (holdout) {
      case Holdout::kTensorParallel: return {s.tensor_parallel, name};
      case Holdout::kTokenBands: return {Band(s.tokens), name};
      case Holdout::kModel: {
        auto [it, inserted] = first_seen.emplace(name, static_cast<int64_t>(first_seen.size()));
        return {it->second, name};
      }
    }
    return {0, name};
  };
  std::vector<std::pair<int64_t, std::string>> keys;
  keys.reserve(samples.size());
  for (const KernelSample& s : samples) {
    keys.push_back(key(s));
    folds[keys.back()] = keys.back().second;
  }
  if (folds.size() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("cross-validation needs at least two folds in the rows (found ", folds.size(), ")"));
  }
  CrossValidation result;
  std::vector<SampleError> pooled, pooled_baseline;
  for (const auto& [fold, name] : folds) {
    std::vector<KernelSample> train;
    int test_rows = 0;
    for (size_t i = 0; i < samples.size(); ++i) {
      if (keys[i] == fold) {
        ++test_rows;
      } else {
        train.push_back(samples[i]);
      }
    }
    Calibration profile = PriorProfile(gpu);
    if (absl::Status s = FitKernelSamples(gpu, train, &profile); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("fold '", name, "': ", s.message()));
    }
    absl::StatusOr<SamplePredictor> model = SamplePredictor::Create(gpu, profile);
    if (!model.ok()) return model.status();
    absl::StatusOr<RooflineBaseline> baseline = FitRooflineBaseline(gpu, train);
    if (!baseline.ok())
      return absl::InvalidArgumentError(absl::StrCat("fold '", name, "': ", baseline.status().message()));
    // Predictions point into `samples`, which outlives them.
    std::vector<SampleError> errors, baseline_errors;
    for (size_t i = 0; i < samples.size(); ++i) {
      if (keys[i] != fold) continue;
      errors.push_back({&samples[i], model->Seconds(samples[i])});
      baseline_errors.push_back({&samples[i], baseline->Seconds(gpu, samples[i])});
    }
    FoldResult r;
    r.name = name;
    r.train_rows = static_cast<int>(train.size());
    r.test_rows = test_rows;
    r.errors = SummarizeErrors(errors);
    r.gemms = CompareGemms(errors, baseline_errors);
    r.baseline = *baseline;
    result.folds.push_back(std::move(r));
    pooled.insert(pooled.end(), errors.begin(), errors.end());
    pooled_baseline.insert(pooled_baseline.end(), baseline_errors.begin(), baseline_errors.end());
  }
  result.pooled = SummarizeErrors(pooled);
  result.pooled_gemms = CompareGemms(pooled, pooled_baseline);
  return result;
}

}  // namespace infergrid
