// A profile for a GPU nobody here measured, from a measured profile of the nearest
// architecture and the two datasheets ("datasheet ratios"): GEMM efficiency, tile and
// small-kernel parameters are kept (they are shares of the target's own peaks); the HBM curve
// keeps its shape and scales with the HBM peak; the per-SM streaming rate scales so that all
// SMs together reach the same share of the HBM peak; the L2 rate scales with SM count x clock;
// collective times scale with the interconnect bandwidth (NVLink, or PCIe where there is
// none); fixed GPU costs and a row-wise block's streaming rate follow the core clock. Launch
// costs (host side) are kept. The result is marked
// extrapolated, with its source and method, and every output that uses it says so.
#ifndef INFERGRID_CALIBRATION_EXTRAPOLATE_H_
#define INFERGRID_CALIBRATION_EXTRAPOLATE_H_

#include <string>

#include "absl/status/statusor.h"
#include "calibration/calibration.pb.h"
#include "hardware/hardware_spec.pb.h"

namespace infergrid {

absl::StatusOr<Calibration> ExtrapolateProfile(const Calibration& source, const GpuSpec& source_gpu,
                                               const GpuSpec& target, const std::string& command);

}  // namespace infergrid

#endif  // INFERGRID_CALIBRATION_EXTRAPOLATE_H_
