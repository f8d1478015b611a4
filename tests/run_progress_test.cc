// sim/core/engine/run_progress.h: progress reports through a callback, throttled: every 256th
// update and the finish.
#include <vector>

#include "gtest/gtest.h"
#include "sim/core/engine/run_progress.h"

namespace infergrid {
namespace {

TEST(ProgressReporter, ReportsEvery256thUpdateAndTheFinish) {
  std::vector<RunProgress> reports;
  const ProgressCallback callback = [&reports](const RunProgress& p) { reports.push_back(p); };
  ProgressReporter reporter(callback);
  for (int i = 1; i <= 600; ++i) reporter.Update(i, 2 * i, 0.5 * i);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].arrived, 256);
  EXPECT_EQ(reports[0].iterations, 512);
  EXPECT_EQ(reports[0].simulated_s, 128);
  EXPECT_FALSE(reports[0].finished);
  EXPECT_EQ(reports[1].arrived, 512);
  reporter.Finish(600, 1200, 300);
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_TRUE(reports[2].finished);
  EXPECT_EQ(reports[2].arrived, 600);
}

TEST(ProgressReporter, WithoutACallbackReportsNothing) {
  const ProgressCallback none;
  ProgressReporter reporter(none);
  for (int i = 0; i < 1000; ++i) reporter.Update(i, i, i);
  reporter.Finish(1, 1, 1);  // nothing to call: must not crash
}

}  // namespace
}  // namespace infergrid
