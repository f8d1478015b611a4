// sim/core/engine/platform.h: replicas packed into nodes.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Topology, ReplicasPackIntoNodes) {
  EXPECT_THAT(GpusPerNode({.num_replicas = 3, .tensor_parallel = 4, .gpus_per_node = 8}), ElementsAre(8, 4));
  EXPECT_THAT(GpusPerNode({.num_replicas = 3, .tensor_parallel = 3, .gpus_per_node = 8}), ElementsAre(6, 3));
  // TP 16 on GB200 NVL72: four whole 4-GPU trays per replica, four replicas per 18-tray rack;
  // the fifth starts the next rack (two trays of the first stay empty).
  EXPECT_THAT(GpusPerNode({.num_replicas = 5, .tensor_parallel = 16, .gpus_per_node = 4, .nvlink_domain_gpus = 72}),
              ElementsAre(4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0, 4, 4, 4, 4));
}

}  // namespace
}  // namespace infergrid
