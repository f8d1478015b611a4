// Range checks for floating-point flags (the integer ones use CheckRange in
// accounting_setup.h): a value outside [minimum, maximum], NaN included, is a usage error that
// names the flag.
#ifndef INFERGRID_SIM_APP_CLI_NUMBER_FLAGS_H_
#define INFERGRID_SIM_APP_CLI_NUMBER_FLAGS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace infergrid::cli {

absl::Status CheckDoubleRange(absl::string_view flag, double value, double minimum, double maximum);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_NUMBER_FLAGS_H_
