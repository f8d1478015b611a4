// A status that means "a setting the user chose is wrong" (a flag's value, a combination of
// flags): the command line exits 2 with it, where every other error (a file, its content, a
// model that does not fit) exits 1. Lives in base so the simulator core can refuse a setting in
// the same terms the command line does (sim/core/simulator resolves settings it did not parse).
#ifndef INFERGRID_BASE_USAGE_ERROR_H_
#define INFERGRID_BASE_USAGE_ERROR_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace infergrid {

// InvalidArgument carrying the usage mark.
absl::Status UsageError(absl::string_view message);

// Whether `status` carries the usage mark.
bool IsUsageError(const absl::Status& status);

}  // namespace infergrid

#endif  // INFERGRID_BASE_USAGE_ERROR_H_
