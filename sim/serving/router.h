// Dispatches each arriving request to a replica: round-robin (in arrival order, ignoring
// load), least-outstanding (fewest waiting + running + swapped requests) or least-kv (lowest
// fraction of KV blocks in use). Loads are the replicas' published loads at the arrival time;
// ties go to the lower replica index, so routing is deterministic.
#ifndef INFERGRID_SIM_SERVING_ROUTER_H_
#define INFERGRID_SIM_SERVING_ROUTER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/serving/replica.h"

namespace infergrid {

class Router {
 public:
  virtual ~Router() = default;
  virtual absl::string_view name() const = 0;
  // Index into `replicas` (non-empty).
  virtual int Route(const std::vector<Replica*>& replicas) = 0;
};

// "round-robin", "least-outstanding" or "least-kv"; InvalidArgument naming --router otherwise.
absl::StatusOr<std::unique_ptr<Router>> MakeRouter(absl::string_view name);

}  // namespace infergrid

#endif  // INFERGRID_SIM_SERVING_ROUTER_H_
