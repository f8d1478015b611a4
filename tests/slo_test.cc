// sim/app/plan/slo.h: SLO terms with their units, and the errors naming the flag and the term.
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/app/plan/slo.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

TEST(Slo, ParsesTermsWithUnits) {
  absl::StatusOr<std::vector<SloTerm>> slo =
      plan::ParseSlo("ttft_p99<=2s, tpot_p99<100ms,e2e_p90<=20s,itl_p99_9<=250us", "slo");
  ASSERT_TRUE(slo.ok()) << slo.status();
  ASSERT_EQ(slo->size(), 4u);
  EXPECT_EQ((*slo)[0].metric(), "ttft");
  EXPECT_EQ((*slo)[0].statistic(), "p99");
  EXPECT_DOUBLE_EQ((*slo)[0].limit_s(), 2);
  EXPECT_DOUBLE_EQ((*slo)[1].limit_s(), 0.1);
  EXPECT_EQ((*slo)[1].text(), "tpot_p99<100ms");
  EXPECT_EQ((*slo)[3].statistic(), "p99_9");
  EXPECT_DOUBLE_EQ((*slo)[3].limit_s(), 250e-6);

  SimulationSummary s;
  s.set_completed(10);
  s.mutable_ttft()->set_p99(1.5);
  s.mutable_tpot()->set_p99(0.1);
  s.mutable_e2e()->set_p90(20.5);
  EXPECT_DOUBLE_EQ(plan::SloValueIn(s, (*slo)[2]), 20.5);
  EXPECT_FALSE(plan::MeetsSlo(s, *slo));  // e2e p90 over, itl p99.9 0 <= 250 us
  s.mutable_e2e()->set_p90(19);
  EXPECT_TRUE(plan::MeetsSlo(s, *slo));  // the limit itself is within
  s.set_rejected(1);
  EXPECT_FALSE(plan::MeetsSlo(s, *slo));  // a request turned away
  s.set_rejected(0);
  s.set_completed(0);
  EXPECT_FALSE(plan::MeetsSlo(s, *slo));  // nothing served
}

TEST(Slo, ErrorsNameTheFlagAndTheTerm) {
  for (const auto& [text, message] :
       std::vector<std::pair<std::string, std::string>>{{"", "--slo is required"},
                                                        {"ttft_p99", "'ttft_p99': expected METRIC_STAT<=LIMIT"},
                                                        {"ttft<=2s", "'ttft<=2s': expected METRIC_STAT"},
                                                        {"latency_p99<=2s", "unknown metric"},
                                                        {"ttft_p98<=2s", "unknown statistic"},
                                                        {"ttft_p99<=2", "needs a positive number and a unit"},
                                                        {"ttft_p99<=-2s", "needs a positive number"},
                                                        {"ttft_p99<=2h", "needs a positive number and a unit"},
                                                        {"ttft_p99<=1s,ttft_p99<=2s", "given twice"}}) {
    absl::StatusOr<std::vector<SloTerm>> slo = plan::ParseSlo(text, "slo");
    ASSERT_FALSE(slo.ok()) << text;
    EXPECT_THAT(slo.status().message(), HasSubstr(message)) << text;
    EXPECT_THAT(slo.status().message(), HasSubstr("--slo")) << text;
  }
}

}  // namespace
}  // namespace infergrid
