// Range checks for number flags: a value outside [minimum, maximum], NaN included, is a usage
// error that names the flag as typed ("--cost-stride=0 is out of range (1..4096)"). A flag
// declared with FlagGroup::Within is checked by the group (flag_group.h); these are for the
// checks written by hand.
#ifndef INFERGRID_SIM_APP_CLI_NUMBER_FLAGS_H_
#define INFERGRID_SIM_APP_CLI_NUMBER_FLAGS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace infergrid::cli {

absl::Status CheckRange(absl::string_view flag, int64_t value, int64_t minimum, int64_t maximum);
absl::Status CheckDoubleRange(absl::string_view flag, double value, double minimum, double maximum);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_NUMBER_FLAGS_H_
