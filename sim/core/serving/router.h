// Dispatches each arriving request to a replica: round-robin (in arrival order, ignoring
// load), least-outstanding (fewest waiting + running + swapped requests) or least-kv (lowest
// fraction of KV blocks in use). Loads are the replicas' published loads at the arrival time;
// ties go to the lower replica index, so routing is deterministic.
#ifndef INFERGRID_SIM_CORE_SERVING_ROUTER_H_
#define INFERGRID_SIM_CORE_SERVING_ROUTER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/string_view.h"
#include "base/enum_names.h"
#include "sim/core/serving/replica.h"

namespace infergrid {

class Router {
 public:
  virtual ~Router() = default;
  // Index into `replicas` (non-empty).
  virtual int Route(const std::vector<Replica*>& replicas) = 0;
};

enum class RouterKind { kRoundRobin, kLeastOutstanding, kLeastKv };
inline constexpr EnumName<RouterKind> kRouterNames[] = {{RouterKind::kRoundRobin, "round-robin"},
                                                        {RouterKind::kLeastOutstanding, "least-outstanding"},
                                                        {RouterKind::kLeastKv, "least-kv"}};

std::unique_ptr<Router> MakeRouter(RouterKind kind);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SERVING_ROUTER_H_
