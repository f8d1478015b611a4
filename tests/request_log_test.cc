// sim/core/metrics/request_log.h: inter-token gaps as runs, a chunk's tokens as one gap.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The request log's inter-token gaps: a batch's tokens delivered together give equal gaps,
// which it keeps as runs; the histogram it shows is the one-by-one histogram.
TEST(RequestLog, InterTokenGapsAsRunsEqualOneByOne) {
  RequestLog log;
  LogHistogram expected;
  for (int r = 0; r < 5; ++r) log.Add(RequestRecord{});
  double t = 0.01;
  std::vector<double> last(5, -1);
  for (int step = 0; step < 50; ++step) {
    t += step % 7 == 0 ? 0.0125 : 0.01;  // some steps longer than others
    for (int r = 0; r < 5; ++r) {
      if ((step + r) % 11 == 0) continue;  // now and then a request sits a step out
      log.OnToken(r, t);
      if (last[static_cast<size_t>(r)] >= 0) expected.Add(t - last[static_cast<size_t>(r)]);
      last[static_cast<size_t>(r)] = t;
    }
    if (step == 20) {
      EXPECT_GT(log.itl().count(), 0);  // read mid-run: what came so far
    }
  }
  EXPECT_EQ(log.itl().count(), expected.count());
  EXPECT_EQ(log.itl().sum(), expected.sum());
  EXPECT_EQ(log.itl().Quantile(0.5), expected.Quantile(0.5));
  EXPECT_EQ(log.itl().max(), expected.max());
}

// Tokens reaching the client at one instant are one streamed chunk: the benchmark clients
// record one gap per chunk (a multi-token chunk is one ITL), not a zero gap per extra token.
TEST(RequestLog, TokensOfOneChunkAddOneGap) {
  RequestLog log;
  log.KeepChunkTimes();
  log.Add(RequestRecord{});
  for (int i = 0; i < 4; ++i) log.OnToken(0, 0.5);  // first chunk: 4 tokens
  for (int i = 0; i < 3; ++i) log.OnToken(0, 0.8);  // a chunk of 3, 0.3 s later
  log.OnToken(0, 0.9);  // and one of 1
  EXPECT_EQ(log.itl().count(), 2);
  EXPECT_NEAR(log.itl().sum(), 0.4, 1e-12);
  EXPECT_EQ(log.at(0).first_token_s, 0.5);
  EXPECT_EQ(log.at(0).last_token_s, 0.9);
  EXPECT_EQ(log.chunk_times(0), (std::vector<double>{0.5, 0.8, 0.9}));
}

}  // namespace
}  // namespace infergrid
