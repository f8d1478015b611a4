// The resources of a GPU an iteration's time can be bound by: HBM bandwidth, tensor-core
// compute, L2 bandwidth, fixed overhead (launches, ramp-up and tails) and the network
// (collectives between GPUs). The resource model (resource_model.h) says which one binds each
// kernel; the cost models (sim/cost/) say which binds an iteration.
#ifndef INFERGRID_HARDWARE_RESOURCE_H_
#define INFERGRID_HARDWARE_RESOURCE_H_

#include "absl/strings/string_view.h"

namespace infergrid {

enum class Resource { kHbm, kCompute, kL2, kOverhead, kNetwork };
inline constexpr int kNumResources = 5;

// "hbm", "compute", "l2", "overhead", "network": the names the outputs use.
absl::string_view ResourceName(Resource resource);

}  // namespace infergrid

#endif  // INFERGRID_HARDWARE_RESOURCE_H_
