// The bundled calibration profiles (calibration/profiles/*.textproto, compiled into the
// binary) and resolution of the profile a command uses: --calibration=FILE when given, else the
// bundled profile of the GPU. Extrapolated profiles say so (Calibration.extrapolated, and
// CalibrationLabel names the source).
#ifndef INFERGRID_CALIBRATION_PROFILE_CATALOG_H_
#define INFERGRID_CALIBRATION_PROFILE_CATALOG_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "calibration/calibration.pb.h"
#include "hardware/hardware_spec.pb.h"
#include "hardware/resource_calibration.pb.h"

namespace infergrid {

// GPU names with a bundled profile, sorted.
std::vector<std::string> BundledProfileNames();

// `path` empty: the bundled profile for `gpu` (NotFound naming the bundled ones and how to
// extrapolate when there is none, or when `gpu` keeps a catalog name but differs from the
// catalog's spec: the profile measured the catalog GPU). Otherwise the file at `path` (errors: path:line:col for
// syntax, path: for content). The profile is checked against `gpu`: its name, then
// ValidateCalibration (calibration/calibration_checks.h: numbers, structure, ranges, datasheet).
absl::StatusOr<Calibration> ResolveCalibration(const GpuSpec& gpu, absl::string_view path);

// The profile as a textproto file with a header naming the message and the regenerating
// command, written to a temporary name and renamed (no partial file on failure).
std::string CalibrationToText(const Calibration& calibration);
absl::Status WriteCalibrationFile(const std::string& path, const Calibration& calibration);

// The rates the resource model reads (hardware/resource_model.h), copied out of a profile.
ResourceCalibration ResourcesOf(const Calibration& calibration);

// "h100-sxm (measured)" or "h200-sxm (extrapolated from h100-sxm by datasheet ratios)".
std::string CalibrationLabel(const Calibration& calibration);

}  // namespace infergrid

#endif  // INFERGRID_CALIBRATION_PROFILE_CATALOG_H_
