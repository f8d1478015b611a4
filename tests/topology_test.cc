// hardware/topology.h: NVLink where the GPU has it, PCIe otherwise.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

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

}  // namespace
}  // namespace infergrid
