// The cluster as a graph (Boost.Graph): GPUs, one NVSwitch per NVLink domain (one node on
// HGX boards; 18 four-GPU trays in a GB200 NVL72 rack, GpuSpec.nvlink_domain_gpus), PCIe
// switches (two GPUs each, as on HGX boards), the host CPU with its memory, and a fabric
// joining the nodes; edges are full-duplex links with a bandwidth per direction. Routes are
// shortest paths weighted by 1 / bandwidth, so GPU pairs of one domain talk over NVLink, other
// pairs over PCIe and the fabric.
// The platform (platform.h) turns vertices into SimGrid hosts and edges into links.
//
// Captured: which transfers share which link (TP all-reduce rings, KV swaps of two GPUs behind
// one PCIe switch). Left out: link latency (SimGrid caps a link's bandwidth by its latency;
// collective latency is added as time instead), NVSwitch internal limits, NUMA.
#ifndef INFERGRID_HARDWARE_TOPOLOGY_H_
#define INFERGRID_HARDWARE_TOPOLOGY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "boost/graph/adjacency_list.hpp"
#include "hardware/hardware_spec.pb.h"

namespace infergrid {

enum class VertexKind { kGpu, kCpu, kNvSwitch, kPcieSwitch, kFabric };

struct TopologyVertex {
  VertexKind kind = VertexKind::kGpu;
  std::string name;
  int node = 0;
};

struct TopologyEdge {
  std::string name;
  double bytes_per_s = 0;  // each direction
  size_t a = 0;  // the endpoints as added: crossing a -> b is the "up" direction
  size_t b = 0;
};

using TopologyGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, TopologyVertex, TopologyEdge>;
using TopologyVertexId = TopologyGraph::vertex_descriptor;
using TopologyEdgeId = TopologyGraph::edge_descriptor;

// One hop of a route: the edge and whether it is crossed from its endpoint a to b.
struct RouteHop {
  TopologyEdgeId edge;
  bool forward = true;
};

struct ClusterTopology {
  TopologyGraph graph;
  std::vector<TopologyVertexId> gpus;  // global GPU index -> vertex
  std::vector<TopologyVertexId> cpus;  // node -> vertex
  int gpus_per_node = 8;
  int nodes_per_nvlink_domain = 1;  // consecutive nodes sharing one NVSwitch
};

// Node network bandwidth per GPU: one 400 Gb/s NIC per GPU (DGX H100 / HGX), 50 GB/s.
inline constexpr double kNicBytesPerS = 50e9;
// One transfer's latency across the inter-node fabric: an RDMA read's round trip through a
// NIC, one switch and the far NIC is a few microseconds on NDR InfiniBand or RoCE (a prior: no
// shared measurement covers it). Links themselves carry bandwidth only (a SimGrid latency
// would cap their bandwidth), so the engine adds it to each transfer that crosses the fabric.
inline constexpr double kFabricLatencyS = 5e-6;

// Nodes holding gpus_in_node[i] GPUs of type `gpu` each (at most gpus_per_node).
// `fabric_bytes_per_s`: the inter-node network's bandwidth per GPU, each way (one NIC each).
ClusterTopology BuildClusterTopology(const GpuSpec& gpu, const std::vector<int>& gpus_in_node, int gpus_per_node,
                                     double fabric_bytes_per_s = kNicBytesPerS);

// The fastest path (fewest seconds per byte) between two vertices.
std::vector<RouteHop> ShortestRoute(const ClusterTopology& topology, TopologyVertexId from, TopologyVertexId to);

// The smallest bandwidth along a route (B/s).
double Bottleneck(const ClusterTopology& topology, const std::vector<RouteHop>& route);

// The slowest hop of a ring all-reduce over `ring` (each GPU sends to the next), B/s per
// direction, when nothing else uses the links; 0 for fewer than two GPUs.
double RingBottleneck(const ClusterTopology& topology, const std::vector<TopologyVertexId>& ring);

}  // namespace infergrid

#endif  // INFERGRID_HARDWARE_TOPOLOGY_H_
