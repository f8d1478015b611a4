#include "sim/core/engine/platform.h"

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

ReplicaDevices::ReplicaDevices(std::vector<sg::Host*> gpus, sg::Host* cpu, double gpu_speed, double hbm_bytes_per_s,
                               double ring_bytes_per_s, bool exclusive, int nvlink_domain)
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

int DomainGpus(const PlatformLayout& layout) { return std::max(layout.gpus_per_node, layout.nvlink_domain_gpus); }

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

// One host per GPU, running at the tensor peak (`speed`) with its HBM as a loopback link, and
// one per node CPU.
std::map<TopologyVertexId, sg::Host*> CreateHosts(sg::NetZone* zone, const ClusterTopology& topology,
                                                  const GpuSpec& gpu, double speed) {
  const TopologyGraph& g = topology.graph;
  std::map<TopologyVertexId, sg::Host*> hosts;
  for (TopologyVertexId v : topology.gpus) {
    sg::Host* host = zone->create_host(g[v].name, speed);
    sg::Link* hbm = zone->create_link(g[v].name + "/hbm", gpu.hbm_bytes_per_s())->set_latency(0);
    zone->add_route(host->get_netpoint(), host->get_netpoint(), nullptr, nullptr, {sg::LinkInRoute(hbm)}, false);
    hosts[v] = host;
  }
  for (TopologyVertexId v : topology.cpus) hosts[v] = zone->create_host(g[v].name, 1e9);
  return hosts;
}

// The routes between hosts, kept to tell which replicas' transfers cross the same links.
struct HostRoutes {
  std::map<std::pair<size_t, size_t>, size_t> edge_ids;  // (a, b) -> edge index (insertion order)
  std::map<std::pair<TopologyVertexId, TopologyVertexId>, std::vector<RouteHop>> routes;  // i < j
};

// A route's hops as link directions.
std::vector<LinkUse> ToUses(const TopologyGraph& g, const HostRoutes& routes, const std::vector<RouteHop>& route) {
  std::vector<LinkUse> uses;
  for (const RouteHop& hop : route) {
    uses.push_back({routes.edge_ids.at({g[hop.edge].a, g[hop.edge].b}), hop.forward});
  }
  return uses;
}

// Every topology edge as a split-duplex link, and every pair of hosts routed along its
// shortest path (only pairs inside one NVLink domain unless `between_domains`).
HostRoutes CreateLinksAndRoutes(sg::NetZone* zone, const ClusterTopology& topology,
                                const std::map<TopologyVertexId, sg::Host*>& hosts, bool between_domains) {
  const TopologyGraph& g = topology.graph;
  HostRoutes out;
  std::map<size_t, sg::SplitDuplexLink*> links;  // by edge index (edges in insertion order)
  size_t edge_index = 0;
  for (auto [it, end] = boost::edges(g); it != end; ++it, ++edge_index) {
    links[edge_index] = zone->create_split_duplex_link(g[*it].name, g[*it].bytes_per_s);
    links[edge_index]->set_latency(0);
    out.edge_ids[{g[*it].a, g[*it].b}] = edge_index;
  }
  const auto domain = [&](TopologyVertexId v) { return g[v].node / topology.nodes_per_nvlink_domain; };
  std::vector<TopologyVertexId> all_hosts(topology.gpus);
  all_hosts.insert(all_hosts.end(), topology.cpus.begin(), topology.cpus.end());
  for (size_t i = 0; i < all_hosts.size(); ++i) {
    for (size_t j = i + 1; j < all_hosts.size(); ++j) {
      if (!between_domains && domain(all_hosts[i]) != domain(all_hosts[j])) continue;
      const std::vector<RouteHop> route = ShortestRoute(topology, all_hosts[i], all_hosts[j]);
      std::vector<sg::LinkInRoute> link_list;
      for (const LinkUse& use : ToUses(g, out, route)) {
        link_list.emplace_back(links.at(use.first),
                               use.second ? sg::LinkInRoute::Direction::UP : sg::LinkInRoute::Direction::DOWN);
      }
      zone->add_route(hosts.at(all_hosts[i])->get_netpoint(), hosts.at(all_hosts[j])->get_netpoint(), nullptr, nullptr,
                      link_list, true);
      out.routes[{all_hosts[i], all_hosts[j]}] = route;
    }
  }
  return out;
}

// The route of an ordered pair, as link directions.
std::vector<LinkUse> Directed(const TopologyGraph& g, const HostRoutes& routes, TopologyVertexId from,
                              TopologyVertexId to) {
  if (routes.routes.count({from, to})) return ToUses(g, routes, routes.routes.at({from, to}));
  std::vector<LinkUse> uses = ToUses(g, routes, routes.routes.at({to, from}));
  std::reverse(uses.begin(), uses.end());
  for (LinkUse& use : uses) use.second = !use.second;
  return uses;
}

// A replica's GPUs and host CPU, and the link directions its all-reduce ring and its host
// transfers use.
struct ReplicaGroup {
  std::vector<TopologyVertexId> gpus;
  TopologyVertexId cpu{};
  std::set<LinkUse> ring, host;
  bool ring_shares_itself = false;  // one link direction carrying two hops of the ring
};

// Replica r takes TP consecutive GPUs (of its node, or whole consecutive nodes); its host
// CPU is the one of its first GPU's node.
std::vector<ReplicaGroup> ReplicaGroups(const ClusterTopology& topology, const PlatformLayout& layout,
                                        const HostRoutes& routes) {
  const TopologyGraph& g = topology.graph;
  std::vector<ReplicaGroup> groups;
  size_t next_gpu = 0;
  for (int r = 0; r < layout.num_replicas; ++r) {
    ReplicaGroup group;
    for (int i = 0; i < layout.tensor_parallel; ++i) group.gpus.push_back(topology.gpus[next_gpu++]);
    const int k = layout.tensor_parallel;
    if (k > 1) {
      for (int i = 0; i < k; ++i) {
        for (const LinkUse& use :
             Directed(g, routes, group.gpus[static_cast<size_t>(i)], group.gpus[static_cast<size_t>((i + 1) % k)])) {
          group.ring_shares_itself |= !group.ring.insert(use).second;
        }
      }
    }
    group.cpu = topology.cpus[static_cast<size_t>(g[group.gpus[0]].node)];
    for (TopologyVertexId v : group.gpus) {
      for (const LinkUse& use : Directed(g, routes, v, group.cpu)) group.host.insert(use);
      for (const LinkUse& use : Directed(g, routes, group.cpu, v)) group.host.insert(use);
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

// True when replica r's ring crosses no link direction twice and none that another replica's
// ring or host transfers use.
bool RingIsExclusive(const std::vector<ReplicaGroup>& groups, size_t r) {
  if (groups[r].ring_shares_itself) return false;
  for (size_t other = 0; other < groups.size(); ++other) {
    if (other == r) continue;
    for (const LinkUse& use : groups[r].ring) {
      if (groups[other].ring.count(use) || groups[other].host.count(use)) return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<ReplicaDevices>> BuildPlatform(const GpuSpec& gpu, const PlatformLayout& layout) {
  const int tp = layout.tensor_parallel;
  if (tp < 1 || tp > DomainGpus(layout) || (tp > layout.gpus_per_node && tp % layout.gpus_per_node != 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--tensor-parallel-size=", tp, " does not fit an NVLink domain of ", DomainGpus(layout), " GPUs in nodes of ",
        layout.gpus_per_node, " (tensor parallelism stays inside a node, or spans whole nodes of one NVLink domain)"));
  }
  const ClusterTopology topology =
      BuildClusterTopology(gpu, GpusPerNode(layout), layout.gpus_per_node, layout.fabric_bytes_per_s);
  const TopologyGraph& g = topology.graph;

  sg::NetZone* zone = sg::create_full_zone("cluster");
  // GPU hosts run at the tensor peak: a second of GPU time is `speed` units of work.
  const double speed = std::max(1.0, PeakTensorFlops(gpu, DType::BF16));
  std::map<TopologyVertexId, sg::Host*> hosts = CreateHosts(zone, topology, gpu, speed);
  const HostRoutes routes = CreateLinksAndRoutes(zone, topology, hosts, layout.route_between_domains);
  zone->seal();

  const std::vector<ReplicaGroup> groups = ReplicaGroups(topology, layout, routes);
  std::vector<ReplicaDevices> replicas;
  for (size_t r = 0; r < groups.size(); ++r) {
    const std::vector<TopologyVertexId>& group = groups[r].gpus;
    const double ring_bw = RingBottleneck(topology, group);
    std::vector<sg::Host*> gpu_hosts;
    for (TopologyVertexId v : group) gpu_hosts.push_back(hosts[v]);
    const int domain = g[group[0]].node / topology.nodes_per_nvlink_domain;
    replicas.emplace_back(std::move(gpu_hosts), hosts[groups[r].cpu], speed, gpu.hbm_bytes_per_s(), ring_bw,
                          RingIsExclusive(groups, r), domain);
  }
  return replicas;
}

}  // namespace infergrid
