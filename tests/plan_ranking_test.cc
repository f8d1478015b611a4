// sim/app/plan/plan_ranking.h: candidates ranked cheapest per token first, then unpriced, then the rest.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/app/plan/plan_ranking.h"

namespace infergrid {
namespace {

PlanCandidate Ok(const std::string& label, int gpus, double price, double tokens) {
  PlanCandidate c;
  c.set_label(label);
  c.set_status("ok");
  c.set_gpus(gpus);
  c.set_price_usd_per_gpu_hour(price);
  c.set_output_tokens_per_s(tokens);
  plan::AddCosts(c);
  return c;
}

TEST(Ranking, CheapestPerTokenFirstThenUnpricedThenTheRest) {
  PlanCandidate failed;
  failed.set_label("failed");
  failed.set_status("error");
  PlanCandidate infeasible;
  infeasible.set_label("infeasible");
  infeasible.set_status("infeasible");
  // a: 4 $/h at 4,000 tok/s = 0.278 $/M; b: 2.5 $/h at 3,000 tok/s = 0.231 $/M.
  std::vector<PlanCandidate> c = {failed, Ok("unpriced", 1, 0, 5000), infeasible, Ok("a", 2, 2.0, 4000),
                                  Ok("b", 1, 2.5, 3000)};
  EXPECT_NEAR(c[3].usd_per_hour(), 4.0, 1e-12);
  EXPECT_NEAR(c[3].usd_per_million_output_tokens(), 4.0 / (4000 * 3600) * 1e6, 1e-12);
  std::vector<PlanCandidate> by_token = c;
  plan::RankCandidates(by_token, false);
  std::vector<std::string> order;
  for (const PlanCandidate& x : by_token) order.push_back(absl::StrCat(x.label(), ":", x.rank()));
  EXPECT_THAT(order, ::testing::ElementsAre("b:1", "a:2", "unpriced:3", "infeasible:0", "failed:0"));
  // For a target rate the cost per hour decides: a at 2 $/h but 0.556 $/M comes before b.
  c[3] = Ok("a", 1, 2.0, 1000);
  plan::RankCandidates(c, true);
  EXPECT_EQ(c[0].label(), "a");
  EXPECT_EQ(c[1].label(), "b");
}

}  // namespace
}  // namespace infergrid
