#include "sim/core/serving/router.h"

namespace infergrid {
namespace {

class RoundRobinRouter final : public Router {
 public:
  int Route(const std::vector<Replica*>& replicas) override {
    const int chosen = static_cast<int>(next_ % replicas.size());
    ++next_;
    return chosen;
  }

 private:
  uint64_t next_ = 0;
};

class LeastOutstandingRouter final : public Router {
 public:
  int Route(const std::vector<Replica*>& replicas) override {
    int best = 0;
    for (int i = 1; i < static_cast<int>(replicas.size()); ++i) {
      if (replicas[i]->published_load().outstanding < replicas[best]->published_load().outstanding) best = i;
    }
    return best;
  }
};

class LeastKvRouter final : public Router {
 public:
  int Route(const std::vector<Replica*>& replicas) override {
    int best = 0;
    for (int i = 1; i < static_cast<int>(replicas.size()); ++i) {
      const ReplicaLoad& a = replicas[i]->published_load();
      const ReplicaLoad& b = replicas[best]->published_load();
      // Fewer outstanding requests break ties (an idle cluster has no KV in use anywhere).
      if (a.kv_fraction() < b.kv_fraction() || (a.kv_fraction() == b.kv_fraction() && a.outstanding < b.outstanding)) {
        best = i;
      }
    }
    return best;
  }
};

}  // namespace

std::unique_ptr<Router> MakeRouter(RouterKind kind) {
  switch (kind) {
    case RouterKind::kRoundRobin: return std::make_unique<RoundRobinRouter>();
    case RouterKind::kLeastOutstanding: return std::make_unique<LeastOutstandingRouter>();
    case RouterKind::kLeastKv: return std::make_unique<LeastKvRouter>();
  }
  return std::make_unique<RoundRobinRouter>();
}

}  // namespace infergrid
