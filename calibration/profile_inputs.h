// The inputs of a profile fit (`infergrid calibrate fit --in=...`), each file read once and
// recognised by what it holds: a vidur per-op or collective CSV and the micro-benchmark CSV by
// their header row; a .textproto as a calibration profile of another GPU when it parses as one,
// else as a kernels/ Measurements sweep. Reading converts each file to what the fit consumes
// and records its provenance; it fits nothing, so the first unreadable input fails the whole fit
// before any fitting starts.
#ifndef INFERGRID_CALIBRATION_PROFILE_INPUTS_H_
#define INFERGRID_CALIBRATION_PROFILE_INPUTS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "calibration/calibration.pb.h"
#include "calibration/measurements_fit.h"
#include "calibration/profile_fit.h"
#include "calibration/vidur_csv.h"
#include "hardware/hardware_spec.pb.h"

namespace infergrid {

// One row of the published micro-benchmark table (microbenchmarks.csv); `value` is the
// figure as printed ("3.538 ms (661 TFLOPS)").
struct Microbenchmark {
  std::string id, value, unit, hardware, conditions, source;
};

enum class ProfileInputKind {
  kVidurOps,  // samples
  kVidurCollective,  // collective_rows
  kMicrobenchmarks,  // microbenchmarks
  kMeasurements,  // samples and measurements
  kOtherGpuProfile,  // other_gpu_profile
};

// One input file: its kind, its provenance entry (path, kind, rows and, except for a vidur
// collective table, whose description depends on what earlier inputs measured, the
// description), and the contents named beside its kind.
struct ProfileInput {
  ProfileInputKind kind;
  CalibrationInput provenance;
  std::vector<KernelSample> samples;
  std::vector<VidurCollectiveRow> collective_rows;
  std::vector<Microbenchmark> microbenchmarks;
  std::optional<MeasurementsFit> measurements;  // its samples moved to `samples`
  std::optional<Calibration> other_gpu_profile;
};

// Reads `paths` in order for a profile of `gpu`. Errors name the file (and line where the
// format has lines); an input of no known kind is an error.
absl::StatusOr<std::vector<ProfileInput>> ReadProfileInputs(const GpuSpec& gpu, const std::vector<std::string>& paths);

}  // namespace infergrid

#endif  // INFERGRID_CALIBRATION_PROFILE_INPUTS_H_
