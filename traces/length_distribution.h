// Request lengths for synthetic workloads. A LengthSampler draws (input, output) pairs; the
// marginals (one length each) are:
//   fixed:N            always N
//   uniform:LO:HI      integers LO..HI, equally likely
//   lognormal:MU:SIGMA exp(MU + SIGMA * Z), rounded, at least 1 (MU, SIGMA of ln tokens)
//   zipf:S:MAX         k in 1..MAX with P(k) proportional to k^-S (rejection-inversion sampling,
//                      constant memory for any MAX)
// and the joint samplers are independent marginals, a preset (quantile tables joined by a
// Gaussian copula), or empirical pairs resampled from a trace. Every length is >= 1.
#ifndef INFERGRID_TRACES_LENGTH_DISTRIBUTION_H_
#define INFERGRID_TRACES_LENGTH_DISTRIBUTION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "traces/random_streams.h"
#include "traces/trace_reader.h"
#include "traces/workload_preset.pb.h"

namespace infergrid {

class LengthMarginal {
 public:
  virtual ~LengthMarginal() = default;
  virtual int32_t Sample(RandomStream& random) const = 0;
};

// Parses one of the marginal specs above.
absl::StatusOr<std::unique_ptr<LengthMarginal>> ParseLengthMarginal(absl::string_view spec);

class LengthSampler {
 public:
  virtual ~LengthSampler() = default;
  virtual void Sample(RandomStream& random, int32_t* input, int32_t* output) const = 0;
};

std::unique_ptr<LengthSampler> MakeIndependentLengths(std::unique_ptr<LengthMarginal> input,
                                                      std::unique_ptr<LengthMarginal> output);

// Draws from a preset's quantile tables with its copula correlation. `input_override` /
// `output_override`, when given, replace one marginal (then drawn independently).
absl::StatusOr<std::unique_ptr<LengthSampler>> MakePresetLengths(
    const WorkloadPreset& preset, std::unique_ptr<LengthMarginal> input_override = nullptr,
    std::unique_ptr<LengthMarginal> output_override = nullptr);

// Resamples (input, output) pairs of a trace uniformly (the pairs are held in memory: 8 bytes
// per request).
absl::StatusOr<std::unique_ptr<LengthSampler>> MakeEmpiricalLengths(const std::string& path,
                                                                    const TraceOptions& options);

// Linear interpolation in a quantile table at u in (0, 1).
double InterpolateQuantile(const QuantileTable& table, double u);

}  // namespace infergrid

#endif  // INFERGRID_TRACES_LENGTH_DISTRIBUTION_H_
