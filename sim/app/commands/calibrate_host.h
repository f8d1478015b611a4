// `infergrid calibrate host --in=CPU_OVERHEADS.csv --out=FILE`: fits an engine's host time per
// iteration (calibration/host_fit.h) and writes it as a host calibration textproto, printing
// each phase's fit with its held-in and leave-one-model-out errors.
#ifndef INFERGRID_SIM_APP_COMMANDS_CALIBRATE_HOST_H_
#define INFERGRID_SIM_APP_COMMANDS_CALIBRATE_HOST_H_

#include <ostream>
#include <string>

#include "absl/status/status.h"

namespace infergrid {

// `in` and `path` are --in and --out (usage errors when empty).
absl::Status RunCalibrateHost(const std::string& in, const std::string& path, std::ostream& out);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_COMMANDS_CALIBRATE_HOST_H_
