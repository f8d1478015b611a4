#include "hardware/topology.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "boost/graph/dijkstra_shortest_paths.hpp"
#include "boost/property_map/function_property_map.hpp"
#include "hardware/gpu_catalog.h"

namespace infergrid {
namespace {

TopologyVertexId AddVertex(ClusterTopology& t, VertexKind kind, std::string name, int node) {
  return boost::add_vertex(TopologyVertex{kind, std::move(name), node}, t.graph);
}

void AddEdge(ClusterTopology& t, TopologyVertexId a, TopologyVertexId b, double bytes_per_s) {
  const std::string name = absl::StrCat(t.graph[a].name, "~", t.graph[b].name);
  boost::add_edge(a, b, TopologyEdge{name, bytes_per_s, a, b}, t.graph);
}

}  // namespace

ClusterTopology BuildClusterTopology(const GpuSpec& gpu, const std::vector<int>& gpus_in_node, int gpus_per_node,
                                     double fabric_bytes_per_s) {
  ClusterTopology t;
  t.gpus_per_node = gpus_per_node;
  // Nodes of one NVLink domain share its switch (GB200 NVL72: 18 trays of 4 GPUs); with the
  // domain one node (HGX boards), every node has its own.
  t.nodes_per_nvlink_domain = std::max(1, NvlinkDomainGpus(gpu) / std::max(1, gpus_per_node));
  const int nodes = static_cast<int>(gpus_in_node.size());
  const TopologyVertexId fabric = AddVertex(t, VertexKind::kFabric, "fabric", -1);
  // Datasheets quote NVLink both directions summed; a link here carries one direction.
  const double nvlink = gpu.nvlink_bytes_per_s() / 2;
  const double pcie = gpu.pcie_bytes_per_s();
  TopologyVertexId nvswitch = 0;
  for (int node = 0; node < nodes; ++node) {
    const TopologyVertexId cpu = AddVertex(t, VertexKind::kCpu, absl::StrCat("node", node, "/cpu"), node);
    t.cpus.push_back(cpu);
    if (nvlink > 0 && node % t.nodes_per_nvlink_domain == 0) {
      nvswitch = AddVertex(t, VertexKind::kNvSwitch, absl::StrCat("node", node, "/nvswitch"), node);
    }
    const int count = std::min(gpus_per_node, gpus_in_node[static_cast<size_t>(node)]);
    TopologyVertexId pcie_switch = 0;
    for (int i = 0; i < count; ++i) {
      if (i % 2 == 0) {
        pcie_switch = AddVertex(t, VertexKind::kPcieSwitch, absl::StrCat("node", node, "/pcie", i / 2), node);
        // The switch's uplink to the CPU is shared by its two GPUs; its NICs reach the fabric.
        AddEdge(t, pcie_switch, cpu, pcie);
        AddEdge(t, pcie_switch, fabric, 2 * fabric_bytes_per_s);
      }
      const TopologyVertexId g = AddVertex(t, VertexKind::kGpu, absl::StrCat("node", node, "/gpu", i), node);
      t.gpus.push_back(g);
      AddEdge(t, g, pcie_switch, pcie);
      if (nvlink > 0) AddEdge(t, g, nvswitch, nvlink);
    }
  }
  return t;
}

std::vector<RouteHop> ShortestRoute(const ClusterTopology& topology, TopologyVertexId from, TopologyVertexId to) {
  const TopologyGraph& g = topology.graph;
  const size_t n = boost::num_vertices(g);
  std::vector<TopologyVertexId> predecessor(n);
  std::vector<double> distance(n, std::numeric_limits<double>::infinity());
  auto weight = boost::make_function_property_map<TopologyEdgeId, double>(
      [&g](TopologyEdgeId e) { return 1.0 / g[e].bytes_per_s; });
  boost::dijkstra_shortest_paths(
      g, from,
      boost::predecessor_map(boost::make_iterator_property_map(predecessor.begin(), boost::get(boost::vertex_index, g)))
          .distance_map(boost::make_iterator_property_map(distance.begin(), boost::get(boost::vertex_index, g)))
          .weight_map(weight));
  std::vector<RouteHop> route;
  for (TopologyVertexId v = to; v != from; v = predecessor[v]) {
    const TopologyVertexId u = predecessor[v];
    if (u == v) return {};  // unreachable
    // Parallel edges do not occur; take the one edge between u and v.
    const TopologyEdgeId e = boost::edge(u, v, g).first;
    route.push_back({e, g[e].a == u});
  }
  std::reverse(route.begin(), route.end());
  return route;
}

double Bottleneck(const ClusterTopology& topology, const std::vector<RouteHop>& route) {
  double slowest = std::numeric_limits<double>::infinity();
  for (const RouteHop& hop : route) slowest = std::min(slowest, topology.graph[hop.edge].bytes_per_s);
  return slowest;
}

double RingBottleneck(const ClusterTopology& topology, const std::vector<TopologyVertexId>& ring) {
  const size_t k = ring.size();
  if (k < 2) return 0;
  double slowest = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < k; ++i) {
    slowest = std::min(slowest, Bottleneck(topology, ShortestRoute(topology, ring[i], ring[(i + 1) % k])));
  }
  return slowest;
}

}  // namespace infergrid
