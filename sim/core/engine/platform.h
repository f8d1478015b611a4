// The SimGrid platform of a deployment, built in code from the cluster topology: every GPU is
// a host with a zero-latency HBM loopback link, every topology edge a split-duplex link, every
// host pair of one NVLink domain (every pair, with route_between_domains) a route along the
// topology's shortest path. Replicas own `tensor_parallel` GPUs of
// one node each, or whole nodes of one NVLink domain when TP exceeds a node. ReplicaDevices runs a replica's work as SimGrid parallel tasks (ptask_L07),
// so concurrent transfers that cross the same link share its bandwidth.
//
// Follows DESIGN.md's SimGrid rules: links have zero latency (a latency would cap bandwidth),
// and a single-GPU ptask lists its host twice (with one host SimGrid drops the bytes). The
// Engine must exist before BuildPlatform is called.
#ifndef INFERGRID_SIM_CORE_ENGINE_PLATFORM_H_
#define INFERGRID_SIM_CORE_ENGINE_PLATFORM_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "hardware/hardware_spec.pb.h"
#include "hardware/topology.h"
#include "simgrid/forward.h"

namespace infergrid {

class ReplicaDevices {
 public:
  ReplicaDevices(std::vector<simgrid::s4u::Host*> gpus, simgrid::s4u::Host* cpu, double gpu_speed,
                 double hbm_bytes_per_s, double ring_bytes_per_s, bool exclusive, int nvlink_domain = 0);

  int tensor_parallel() const { return static_cast<int>(gpus_.size()); }
  simgrid::s4u::Host* host() const { return gpus_[0]; }
  // Bandwidth of the slowest hop of the all-reduce ring when nothing else uses it.
  double ring_bytes_per_s() const { return ring_bytes_per_s_; }
  // True when no other replica's transfers can cross this replica's links, so the time of
  // its work is known before it runs (the engine may then run iterations ahead).
  bool exclusive() const { return exclusive_; }
  int64_t activities() const { return activities_; }
  // The NVLink domain (a node, or a rack of NVL72 trays) of the replica's GPUs: two replicas
  // of different domains reach each other over PCIe and the inter-node fabric.
  int nvlink_domain() const { return nvlink_domain_; }

  // Blocks the calling actor while every GPU of the replica computes for `seconds`, reading
  // `hbm_bytes` per GPU through its HBM link.
  void Compute(double seconds, double hbm_bytes);
  // A ring all-reduce moving `bytes` from each GPU to the next.
  void AllReduce(double bytes);
  // KV blocks between each GPU and host memory over PCIe, both directions at once.
  void HostTransfer(double bytes_out, double bytes_in);
  // Prefill/decode disaggregation: each GPU sends `bytes_per_gpu` of KV to the GPU of the same
  // tensor-parallel rank of `to` (same TP), all at once, over the route between them (NVLink
  // inside a domain, PCIe and the fabric between nodes), sharing links with whatever else
  // crosses them. Blocks the calling actor until the last byte arrives.
  void SendKv(ReplicaDevices& to, double bytes_per_gpu);

 private:
  std::vector<simgrid::s4u::Host*> gpus_;
  simgrid::s4u::Host* cpu_;
  double gpu_speed_;
  double hbm_bytes_per_s_;
  double ring_bytes_per_s_;
  bool exclusive_;
  int nvlink_domain_;
  int64_t activities_ = 0;
};

struct PlatformLayout {
  int num_replicas = 1;
  int tensor_parallel = 1;
  int gpus_per_node = 8;
  int nvlink_domain_gpus = 0;  // GPUs one NVLink fabric joins (0: one node)
  double fabric_bytes_per_s = kNicBytesPerS;  // inter-node network per GPU, each way
  double fabric_latency_s = kFabricLatencyS;  // added to a transfer between NVLink domains
  // Whether hosts of different NVLink domains get routes. Only disaggregation sends data
  // between replicas; without it a fleet of N nodes needs N small route tables, not one of
  // (N x hosts per node)^2 / 2 routes (1,024 GPUs: 5,000 routes instead of 660,000).
  bool route_between_domains = true;
};

// The per-node GPU counts of a layout. TP up to a node: floor(gpus_per_node / TP) replicas per
// node. Larger TP (inside an NVLink domain, in whole nodes): each replica takes TP /
// gpus_per_node whole nodes, floor(domain / TP) replicas per domain; a domain's nodes left over
// appear with 0 GPUs so that the next domain starts on its own switch.
std::vector<int> GpusPerNode(const PlatformLayout& layout);

// Creates the hosts, links and routes in the Engine's root zone. InvalidArgument (naming
// --tensor-parallel-size) when TP does not fit a node or, above a node, an NVLink domain in
// whole nodes.
absl::StatusOr<std::vector<ReplicaDevices>> BuildPlatform(const GpuSpec& gpu, const PlatformLayout& layout);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_ENGINE_PLATFORM_H_
