// sim/core/serving/front_end.h: one CPU serving in order, a step's tokens as one job.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(FrontEnd, OneCpuServesInOrderAndAStepsTokensAsOneJob) {
  FrontEndSpec spec;
  spec.processes = {{.name = "api", .servers = 1, .request_s = 2e-3, .prompt_token_s = 1e-6},
                    {.name = "detok", .servers = 1, .step_s = 1e-4, .output_token_s = 1e-5}};
  FrontEnd front_end(spec);
  // Two requests at once: the second waits for the first (2 ms + 100 tokens x 1 us each).
  EXPECT_NEAR(front_end.Inbound(1.0, 100), 1.0021, 1e-12);
  EXPECT_NEAR(front_end.Inbound(1.0, 100), 1.0042, 1e-12);
  // A step's 8 tokens pass the detokenizer, then the API process (no outbound cost: skipped).
  EXPECT_NEAR(front_end.Outbound(2.0, 8), 2.0 + 1e-4 + 8e-5, 1e-12);
  EXPECT_NEAR(front_end.busy_s(), 2 * 2.1e-3 + 1.8e-4, 1e-12);
  EXPECT_EQ(front_end.TakeEngineWork(), 0);  // not in the engine's process
  // Several servers take jobs side by side.
  spec.processes[0].servers = 2;
  FrontEnd two(spec);
  EXPECT_NEAR(two.Inbound(1.0, 0), 1.002, 1e-12);
  EXPECT_NEAR(two.Inbound(1.0, 0), 1.002, 1e-12);
  EXPECT_NEAR(two.Inbound(1.0, 0), 1.004, 1e-12);
}

}  // namespace
}  // namespace infergrid
