// The resources an iteration's time can be bound by: the GPU's HBM bandwidth, tensor-core
// compute and L2 bandwidth, fixed overhead (launches, ramp-up and tails), the network
// (collectives between GPUs) and the host CPU (the engine's own work between forwards). The resource model (resource_model.h) says which one binds each
// kernel; the cost models (sim/core/cost/) say which binds an iteration.
#ifndef INFERGRID_HARDWARE_RESOURCE_H_
#define INFERGRID_HARDWARE_RESOURCE_H_

#include "absl/strings/string_view.h"

namespace infergrid {

enum class Resource { kHbm, kCompute, kL2, kOverhead, kNetwork, kHost };
inline constexpr int kNumResources = 6;

// "hbm", "compute", "l2", "overhead", "network", "host": the names the outputs use.
absl::string_view ResourceName(Resource resource);

}  // namespace infergrid

#endif  // INFERGRID_HARDWARE_RESOURCE_H_
