#include "calibration/cross_validation.h"

#include <map>

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

}  // namespace

absl::StatusOr<CrossValidation> CrossValidate(const GpuSpec& gpu,
                                              const std::vector<KernelSample>& samples,
                                              Holdout holdout) {
  std::map<int, std::string> folds;
  auto key = [&](const KernelSample& s) {
    return holdout == Holdout::kTensorParallel ? s.tensor_parallel : Band(s.tokens);
  };
  for (const KernelSample& s : samples) {
    folds[key(s)] = holdout == Holdout::kTensorParallel ? absl::StrCat("tp ", s.tensor_parallel)
                                                        : BandName(Band(s.tokens));
  }
  if (folds.size() < 2) {
    return absl::InvalidArgumentError("cross-validation needs at least two folds in the rows");
  }
  CrossValidation result;
  std::vector<SampleError> pooled;
  for (const auto& [fold, name] : folds) {
    std::vector<KernelSample> train, test;
    for (const KernelSample& s : samples) (key(s) == fold ? test : train).push_back(s);
    Calibration profile = PriorProfile(gpu);
    if (absl::Status s = FitKernelSamples(gpu, train, &profile); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("fold '", name, "': ", s.message()));
    }
    absl::StatusOr<ResourceModel> model = ResourceModel::Create(gpu, ResourcesOf(profile));
    if (!model.ok()) return model.status();
    // Predictions point into `samples`, which outlives them.
    std::vector<SampleError> errors;
    for (const KernelSample& s : samples) {
      if (key(s) == fold) errors.push_back({&s, model->Time(s.kernel).seconds});
    }
    FoldResult r;
    r.name = name;
    r.train_rows = static_cast<int>(train.size());
    r.test_rows = static_cast<int>(test.size());
    r.errors = SummarizeErrors(errors);
    result.folds.push_back(std::move(r));
    pooled.insert(pooled.end(), errors.begin(), errors.end());
  }
  result.pooled = SummarizeErrors(pooled);
  return result;
}

}  // namespace infergrid
