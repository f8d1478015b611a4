#include "sim/app/cli/number_flags.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "sim/app/cli/command_line.h"

namespace infergrid::cli {

absl::Status CheckRange(absl::string_view flag, int64_t value, int64_t minimum, int64_t maximum) {
  if (value >= minimum && value <= maximum) return absl::OkStatus();
  return UsageError(absl::StrCat(DashedFlag(flag), "=", value, " is out of range (", minimum, "..", maximum, ")"));
}

absl::Status CheckDoubleRange(absl::string_view flag, double value, double minimum, double maximum) {
  if (value >= minimum && value <= maximum) return absl::OkStatus();  // false for NaN
  return UsageError(absl::StrCat(DashedFlag(flag), "=", value, " is out of range (", minimum, "..", maximum, ")"));
}

}  // namespace infergrid::cli
