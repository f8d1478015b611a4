#include "base/usage_error.h"

#include "absl/strings/cord.h"

namespace infergrid {
namespace {

constexpr absl::string_view kUsagePayload = "infergrid/usage";

}  // namespace

absl::Status UsageError(absl::string_view message) {
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kUsagePayload, absl::Cord("1"));
  return status;
}

bool IsUsageError(const absl::Status& status) { return status.GetPayload(kUsagePayload).has_value(); }

}  // namespace infergrid
