// The checks every calibration profile passes when it is loaded (a bundled profile, a
// --calibration=FILE, a profile given to `calibrate report`/`extrapolate`, another GPU's profile
// given to `calibrate fit`), as a GPU spec is checked on load (hardware/gpu_catalog.h), so that
// no profile reaches the event engine as infinite work and none prices a kernel faster than the
// GPU's datasheet allows. Three classes, each refused with one line naming `where` (the file)
// and the field's path ("kernel_classes[3].bandwidth_fraction"):
//  1. numbers: every number finite, not negative (zero_input_tensor_gain, a fitted signed gain
//     the simulator never applies, only above -1), at most 1e21; a `..._bytes_per_s` rate 0 or
//     at least 1e3 B/s (base/proto_numbers.h);
//  2. plausible ranges, field by field (the table in calibration_checks.cc): fractions of a
//     peak at least 1e-4 (below, a kernel would take 10,000x its datasheet time: a broken
//     profile, not a slow GPU), fixed costs and launch costs at most 1 s, K-element overheads
//     at most 1e6, tiles of 1 to 4096 per side, penalties and discounts in [0, 1] where the
//     resource model reads them as shares, collective times at most an hour;
//  3. the datasheet: the best GEMM tile's share of the tensor peak (peak_fraction and
//     fp8_peak_fraction times that tile's efficiency) and every kernel class's
//     compute_fraction at most 1; every point of the HBM curve, and every class's
//     bandwidth_fraction times the curve's highest point, at most the GPU's hbm_bytes_per_s
//     (plus 1% for fitted noise, see kHbmPeakMargin).
#ifndef INFERGRID_CALIBRATION_CALIBRATION_CHECKS_H_
#define INFERGRID_CALIBRATION_CALIBRATION_CHECKS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "calibration/calibration.pb.h"
#include "hardware/hardware_spec.pb.h"

namespace infergrid {

// OK, or InvalidArgument "<where>: <field path> = <value> ..." for the first check that fails:
// the numbers, then the profile's structure (ResourceModel::Create: every kernel class present,
// tables in order; "<where>: calibration '<gpu>': ..."), then ranges and the datasheet of `gpu`,
// the GPU the profile prices.
absl::Status ValidateCalibration(const Calibration& profile, const GpuSpec& gpu, absl::string_view where);

}  // namespace infergrid

#endif  // INFERGRID_CALIBRATION_CALIBRATION_CHECKS_H_
