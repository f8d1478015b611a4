// The bundled host calibrations (calibration/host_profiles/*.textproto, compiled in; written
// by `infergrid calibrate host`) and the time of a host phase for a batch.
#ifndef INFERGRID_CALIBRATION_HOST_PROFILE_H_
#define INFERGRID_CALIBRATION_HOST_PROFILE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "calibration/host_calibration.pb.h"

namespace infergrid {

// Names of the bundled host calibrations, sorted.
std::vector<std::string> BundledHostCalibrationNames();

// The bundled calibration `name`; NotFound naming the bundled ones otherwise.
absl::StatusOr<HostCalibration> ResolveHostCalibration(absl::string_view name);

// The phase named `name`, or null.
const HostPhase* FindHostPhase(const HostCalibration& calibration, absl::string_view name);

// Seconds of `phase` for a batch of `sequences` of a model with `vocab_size` entries on
// `tensor_parallel` GPUs, on the measured host.
inline double HostPhaseSeconds(const HostPhase& phase, double sequences, int tensor_parallel, double vocab_size) {
  return phase.base_s() + (phase.per_sequence_s() + phase.per_sequence_vocab_s() * vocab_size) * sequences +
         (tensor_parallel > 1 ? phase.tensor_parallel_s() : 0.0);
}

// The calibration as a textproto file (a header naming the message and the command that
// regenerates it), written atomically.
absl::Status WriteHostCalibrationFile(const std::string& path, const HostCalibration& calibration);

}  // namespace infergrid

#endif  // INFERGRID_CALIBRATION_HOST_PROFILE_H_
