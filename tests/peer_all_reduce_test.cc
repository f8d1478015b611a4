// hardware/peer_all_reduce.h: the engines' one-shot and two-shot all-reduce over peer memory.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/peer_all_reduce.h"

namespace infergrid {
namespace {

TEST(PeerAllReduce, OneShotAndTwoShotCosts) {
  const PeerLink link{100e9, 5e-6, 1e12};
  EXPECT_DOUBLE_EQ(PeerAllReduceSeconds(PeerAllReduce::kOneShot, 4, 1e6, link, true), 5e-6 + 3 * 1e6 / 100e9);
  EXPECT_DOUBLE_EQ(PeerAllReduceSeconds(PeerAllReduce::kTwoShot, 4, 1e6, link, true),
                   2 * 5e-6 + 2 * 0.75 * 1e6 / 100e9);
  // Eager: the input is first copied into the registered buffer.
  EXPECT_DOUBLE_EQ(PeerAllReduceSeconds(PeerAllReduce::kOneShot, 4, 1e6, link, false),
                   5e-6 + 3 * 1e6 / 100e9 + 1e6 / 1e12);
  EXPECT_EQ(PeerAllReduceSeconds(PeerAllReduce::kOneShot, 1, 1e6, link, true), 0);
}

}  // namespace
}  // namespace infergrid
