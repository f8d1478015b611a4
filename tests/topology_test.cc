// hardware/topology.h: NVLink where the GPU has it, PCIe otherwise; a ring inside an NVL72 domain.

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "hardware/topology.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ---------------------------------------------------------------- topology

TEST(Topology, NvlinkWhereTheGpuHasItPcieOtherwise) {
  const GpuSpec h100 = *ResolveGpu("h100-sxm");
  const ClusterTopology t = BuildClusterTopology(h100, {8, 4}, 8);
  ASSERT_EQ(t.gpus.size(), 12u);
  const std::vector<RouteHop> nv = ShortestRoute(t, t.gpus[0], t.gpus[5]);
  ASSERT_EQ(nv.size(), 2u);
  EXPECT_DOUBLE_EQ(Bottleneck(t, nv), 450e9);
  EXPECT_THAT(t.graph[nv[0].edge].name, HasSubstr("nvswitch"));
  // Across nodes: PCIe switch, the fabric, PCIe switch.
  EXPECT_DOUBLE_EQ(Bottleneck(t, ShortestRoute(t, t.gpus[0], t.gpus[9])), 64e9);
  const GpuSpec l40s = *ResolveGpu("l40s");
  const ClusterTopology p = BuildClusterTopology(l40s, {4}, 8);
  const std::vector<RouteHop> pcie = ShortestRoute(p, p.gpus[0], p.gpus[1]);
  ASSERT_EQ(pcie.size(), 2u);  // through their shared PCIe switch
  EXPECT_DOUBLE_EQ(Bottleneck(p, pcie), l40s.pcie_bytes_per_s());
}

TEST(Topology, SixteenGpuRingStaysOnNvlinkInsideAnNvl72Domain) {
  absl::StatusOr<GpuSpec> gb200 = ResolveGpu("gb200");
  absl::StatusOr<GpuSpec> h100 = ResolveGpu("h100-sxm");
  ASSERT_TRUE(gb200.ok() && h100.ok());
  const ClusterTopology nvl = BuildClusterTopology(*gb200, {4, 4, 4, 4}, 4);
  ASSERT_EQ(nvl.gpus.size(), 16u);
  EXPECT_EQ(nvl.nodes_per_nvlink_domain, 18);
  const ClusterTopology hgx = BuildClusterTopology(*h100, {8, 8}, 8);
  ASSERT_EQ(hgx.gpus.size(), 16u);
  const double nvl_ring = RingBottleneck(nvl, nvl.gpus);
  const double hgx_ring = RingBottleneck(hgx, hgx.gpus);
  EXPECT_DOUBLE_EQ(nvl_ring, 900e9);
  EXPECT_DOUBLE_EQ(hgx_ring, 64e9);
  EXPECT_DOUBLE_EQ(nvl_ring / hgx_ring, 14.0625);
  // Eight H100s of one board stay on NVLink (450 GB/s per direction).
  const std::vector<TopologyVertexId> board(hgx.gpus.begin(), hgx.gpus.begin() + 8);
  EXPECT_DOUBLE_EQ(RingBottleneck(hgx, board), 450e9);
  // Trays 18 and 19 belong to two NVL72 racks: their GPUs meet over the fabric.
  const ClusterTopology racks = BuildClusterTopology(*gb200, std::vector<int>(19, 4), 4);
  const std::vector<TopologyVertexId> across(racks.gpus.end() - 8, racks.gpus.end());
  EXPECT_LT(RingBottleneck(racks, across), 900e9);
  EXPECT_DOUBLE_EQ(RingBottleneck(racks, across), 2 * kNicBytesPerS);
}

}  // namespace
}  // namespace infergrid
