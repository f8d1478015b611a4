#include "sim/engine/platform.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hardware/lower_bounds.h"
#include "simgrid/s4u.hpp"

namespace infergrid {

namespace sg = simgrid::s4u;

ReplicaDevices::ReplicaDevices(std::vector<sg::Host*> gpus, sg::Host* cpu, double gpu_speed,
                               double hbm_bytes_per_s, double ring_bytes_per_s, bool exclusive,
                               int nvlink_domain)
    : gpus_(std::move(gpus)),
      cpu_(cpu),
      gpu_speed_(gpu_speed),
      hbm_bytes_per_s_(hbm_bytes_per_s),
      ring_bytes_per_s_(ring_bytes_per_s),
      exclusive_(exclusive),
      nvlink_domain_(nvlink_domain) {}

void ReplicaDevices::Compute(double seconds, double hbm_bytes) {
  if (seconds <= 0) return;
  // The cost model's duration already accounts for HBM; the bytes only occupy the link (for
  // anything else crossing it) and must never stretch the duration.
  const double bytes = std::min(hbm_bytes, seconds * hbm_bytes_per_s_);
  const size_t k = gpus_.size();
  std::vector<sg::Host*> hosts = gpus_;
  if (k == 1) hosts.push_back(gpus_[0]);  // one listed host would drop the bytes
  const size_t n = hosts.size();
  std::vector<double> flops(n, seconds * gpu_speed_);
  std::vector<double> matrix(n * n, 0.0);
  if (k == 1) {
    flops[1] = 0;
    matrix[1] = bytes;
  } else {
    for (size_t i = 0; i < n; ++i) matrix[i * n + i] = bytes;
  }
  sg::this_actor::exec_init(hosts, flops, matrix)->wait();
  ++activities_;
}

void ReplicaDevices::AllReduce(double bytes) {
  const size_t k = gpus_.size();
  if (k < 2 || bytes <= 0) return;
  std::vector<double> matrix(k * k, 0.0);
  for (size_t i = 0; i < k; ++i) matrix[i * k + (i + 1) % k] = bytes;
  sg::this_actor::exec_init(gpus_, {}, matrix)->wait();
  ++activities_;
}

void ReplicaDevices::HostTransfer(double bytes_out, double bytes_in) {
  if (bytes_out <= 0 && bytes_in <= 0) return;
  std::vector<sg::Host*> hosts = gpus_;
  hosts.push_back(cpu_);
  const size_t n = hosts.size();
  std::vector<double> matrix(n * n, 0.0);
  for (size_t i = 0; i + 1 < n; ++i) {
    matrix[i * n + (n - 1)] = bytes_out;
    matrix[(n - 1) * n + i] = bytes_in;
  }
  sg::this_actor::exec_init(hosts, {}, matrix)->wait();
  ++activities_;
}

void ReplicaDevices::SendKv(ReplicaDevices& to, double bytes_per_gpu) {
  const size_t k = gpus_.size();
  if (bytes_per_gpu <= 0 || to.gpus_.size() != k) return;
  std::vector<sg::Host*> hosts = gpus_;
  hosts.insert(hosts.end(), to.gpus_.begin(), to.gpus_.end());
  const size_t n = hosts.size();
  std::vector<double> matrix(n * n, 0.0);
  for (size_t i = 0; i < k; ++i) matrix[i * n + k + i] = bytes_per_gpu;
  sg::this_actor::exec_init(hosts, {}, matrix)->wait();
  ++activities_;
}

namespace {

int DomainGpus(const PlatformLayout& layout) {
  return std::max(layout.gpus_per_node, layout.nvlink_domain_gpus);
}

}  // namespace

std::vector<int> GpusPerNode(const PlatformLayout& layout) {
  std::vector<int> nodes;
  if (layout.tensor_parallel <= layout.gpus_per_node) {
    const int per_node = std::max(1, layout.gpus_per_node / layout.tensor_parallel);
    for (int left = layout.num_replicas; left > 0; left -= per_node) {
      nodes.push_back(std::min(left, per_node) * layout.tensor_parallel);
    }
    return nodes;
  }
  const int nodes_per_replica = layout.tensor_parallel / layout.gpus_per_node;
  const int nodes_per_domain = DomainGpus(layout) / layout.gpus_per_node;
  const int per_domain = std::max(1, nodes_per_domain / nodes_per_replica);
  for (int r = 0; r < layout.num_replicas; ++r) {
    if (r > 0 && r % per_domain == 0) {  // the rest of the domain stays empty
      while (nodes.size() % static_cast<size_t>(nodes_per_domain) != 0) nodes.push_back(0);
    }
    for (int i = 0; i < nodes_per_replica; ++i) nodes.push_back(layout.gpus_per_node);
  }
  return nodes;
}

namespace {

// A link direction: (edge index, up?).
using LinkUse = std::pair<size_t, bool>;

}  // namespace

absl::StatusOr<std::vector<ReplicaDevices>> BuildPlatform(const GpuSpec& gpu, const PlatformLayout& layout) {
  const int tp = layout.tensor_parallel;
  if (tp < 1 || tp > DomainGpus(layout) || (tp > layout.gpus_per_node && tp % layout.gpus_per_node != 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--tensor-parallel-size=", tp, " does not fit an NVLink domain of ", DomainGpus(layout),
        " GPUs in nodes of ", layout.gpus_per_node,
        " (tensor parallelism stays inside a node, or spans whole nodes of one NVLink domain)"));
  }
  const ClusterTopology topology =
      BuildClusterTopology(gpu, GpusPerNode(layout), layout.gpus_per_node, layout.fabric_bytes_per_s);
  const TopologyGraph& g = topology.graph;

  sg::NetZone* zone = sg::create_full_zone("cluster");
  // GPU hosts run at the tensor peak: a second of GPU time is `speed` units of work.
  const double speed = std::max(1.0, PeakTensorFlops(gpu, DType::BF16));
  std::map<TopologyVertexId, sg::Host*> hosts;
  for (TopologyVertexId v : topology.gpus) {
    sg::Host* host = zone->create_host(g[v].name, speed);
    sg::Link* hbm = zone->create_link(g[v].name + "/hbm", gpu.hbm_bytes_per_s())->set_latency(0);
    zone->add_route(host->get_netpoint(), host->get_netpoint(), nullptr, nullptr,
                    {sg::LinkInRoute(hbm)}, false);
    hosts[v] = host;
  }
  for (TopologyVertexId v : topology.cpus) hosts[v] = zone->create_host(g[v].name, 1e9);

  std::map<size_t, sg::SplitDuplexLink*> links;  // by edge index (edges in insertion order)
  std::map<std::pair<TopologyVertexId, TopologyVertexId>, std::vector<RouteHop>> routes;
  size_t edge_index = 0;
  std::map<std::pair<size_t, size_t>, size_t> edge_ids;  // (a, b) -> index
  for (auto [it, end] = boost::edges(g); it != end; ++it, ++edge_index) {
    links[edge_index] = zone->create_split_duplex_link(g[*it].name, g[*it].bytes_per_s);
    links[edge_index]->set_latency(0);
    edge_ids[{g[*it].a, g[*it].b}] = edge_index;
  }
  auto to_uses = [&](const std::vector<RouteHop>& route) {
    std::vector<LinkUse> uses;
    for (const RouteHop& hop : route) uses.push_back({edge_ids.at({g[hop.edge].a, g[hop.edge].b}), hop.forward});
    return uses;
  };
  std::vector<TopologyVertexId> all_hosts(topology.gpus);
  all_hosts.insert(all_hosts.end(), topology.cpus.begin(), topology.cpus.end());
  for (size_t i = 0; i < all_hosts.size(); ++i) {
    for (size_t j = i + 1; j < all_hosts.size(); ++j) {
      const std::vector<RouteHop> route = ShortestRoute(topology, all_hosts[i], all_hosts[j]);
      std::vector<sg::LinkInRoute> link_list;
      for (const LinkUse& use : to_uses(route)) {
        link_list.emplace_back(links.at(use.first), use.second ? sg::LinkInRoute::Direction::UP
                                                               : sg::LinkInRoute::Direction::DOWN);
      }
      zone->add_route(hosts[all_hosts[i]]->get_netpoint(), hosts[all_hosts[j]]->get_netpoint(),
                      nullptr, nullptr, link_list, true);
      routes[{all_hosts[i], all_hosts[j]}] = route;
    }
  }
  zone->seal();

  // The route of an ordered pair, as link directions.
  auto directed = [&](TopologyVertexId from, TopologyVertexId to) {
    if (routes.count({from, to})) return to_uses(routes.at({from, to}));
    std::vector<LinkUse> uses = to_uses(routes.at({to, from}));
    std::reverse(uses.begin(), uses.end());
    for (LinkUse& use : uses) use.second = !use.second;
    return uses;
  };

  // Replica r takes TP consecutive GPUs (of its node, or whole consecutive nodes); its host
  // CPU is the one of its first GPU's node.
  std::vector<std::vector<TopologyVertexId>> groups;
  std::vector<TopologyVertexId> replica_cpus;
  std::vector<std::set<LinkUse>> ring_uses, host_uses;
  std::vector<bool> self_shared;
  size_t next_gpu = 0;
  for (int r = 0; r < layout.num_replicas; ++r) {
    std::vector<TopologyVertexId> group;
    for (int i = 0; i < layout.tensor_parallel; ++i) group.push_back(topology.gpus[next_gpu++]);
    std::set<LinkUse> ring, host;
    bool ring_shares_itself = false;  // one link direction carrying two hops of the ring
    const int k = layout.tensor_parallel;
    if (k > 1) {
      for (int i = 0; i < k; ++i) {
        for (const LinkUse& use : directed(group[static_cast<size_t>(i)], group[static_cast<size_t>((i + 1) % k)])) {
          ring_shares_itself |= !ring.insert(use).second;
        }
      }
    }
    self_shared.push_back(ring_shares_itself);
    const TopologyVertexId cpu = topology.cpus[static_cast<size_t>(g[group[0]].node)];
    replica_cpus.push_back(cpu);
    for (TopologyVertexId v : group) {
      for (const LinkUse& use : directed(v, cpu)) host.insert(use);
      for (const LinkUse& use : directed(cpu, v)) host.insert(use);
    }
    groups.push_back(std::move(group));
    ring_uses.push_back(std::move(ring));
    host_uses.push_back(std::move(host));
  }

  std::vector<ReplicaDevices> replicas;
  for (int r = 0; r < layout.num_replicas; ++r) {
    const std::vector<TopologyVertexId>& group = groups[static_cast<size_t>(r)];
    bool exclusive = !self_shared[static_cast<size_t>(r)];
    for (int other = 0; other < layout.num_replicas && exclusive; ++other) {
      if (other == r) continue;
      for (const LinkUse& use : ring_uses[static_cast<size_t>(r)]) {
        if (ring_uses[static_cast<size_t>(other)].count(use) || host_uses[static_cast<size_t>(other)].count(use)) {
          exclusive = false;
          break;
        }
      }
    }
    const double ring_bw = RingBottleneck(topology, group);
    std::vector<sg::Host*> gpu_hosts;
    for (TopologyVertexId v : group) gpu_hosts.push_back(hosts[v]);
    const int domain = g[group[0]].node / topology.nodes_per_nvlink_domain;
    replicas.emplace_back(std::move(gpu_hosts), hosts[replica_cpus[static_cast<size_t>(r)]],
                          speed, gpu.hbm_bytes_per_s(), ring_bw, exclusive, domain);
  }
  return replicas;
}

}  // namespace infergrid
