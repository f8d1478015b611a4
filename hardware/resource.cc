#include "hardware/resource.h"

namespace infergrid {

absl::string_view ResourceName(Resource resource) {
  switch (resource) {
    case Resource::kHbm: return "hbm";
    case Resource::kCompute: return "compute";
    case Resource::kL2: return "l2";
    case Resource::kOverhead: return "overhead";
    case Resource::kNetwork: return "network";
    case Resource::kHost: return "host";
  }
  return "unknown";
}

}  // namespace infergrid
