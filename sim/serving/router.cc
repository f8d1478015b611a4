#include "sim/serving/router.h"

#include "absl/strings/str_cat.h"

namespace infergrid {
namespace {

class RoundRobinRouter final : public Router {
 public:
  absl::string_view name() const override { return "round-robin"; }
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
  absl::string_view name() const override { return "least-outstanding"; }
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
  absl::string_view name() const override { return "least-kv"; }
  int Route(const std::vector<Replica*>& replicas) override {
    int best = 0;
    for (int i = 1; i < static_cast<int>(replicas.size()); ++i) {
      const ReplicaLoad& a = replicas[i]->published_load();
      const ReplicaLoad& b = replicas[best]->published_load();
      // Fewer outstanding requests break ties (an idle cluster has no KV in use anywhere).
      if (a.kv_fraction() < b.kv_fraction() ||
          (a.kv_fraction() == b.kv_fraction() && a.outstanding < b.outstanding)) {
        best = i;
      }
    }
    return best;
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<Router>> MakeRouter(absl::string_view name) {
  if (name == "round-robin") return std::make_unique<RoundRobinRouter>();
  if (name == "least-outstanding") return std::make_unique<LeastOutstandingRouter>();
  if (name == "least-kv") return std::make_unique<LeastKvRouter>();
  return absl::InvalidArgumentError(absl::StrCat(
      "--router: expected round-robin, least-outstanding or least-kv, got '", name, "'"));
}

}  // namespace infergrid
