// sim/app/plan/candidates.h: plan candidates as the product of the listed axes, and the axes' errors.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/app/plan/candidates.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

TEST(Candidates, AreTheProductOfTheListedAxes) {
  plan::CandidateAxes axes;
  axes.gpus = {"h100-sxm", "a100-80gb"};
  axes.tensor_parallel = {1, 2, 4};
  axes.kv_dtypes = {"auto", "fp8"};
  absl::StatusOr<std::vector<plan::Candidate>> c = plan::ExpandCandidates(axes, 100);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->size(), 12u);
  EXPECT_EQ((*c)[0].label, "h100-sxm tp1 kv=auto");
  EXPECT_EQ((*c)[1].label, "h100-sxm tp1 kv=fp8");
  EXPECT_EQ((*c)[11].label, "a100-80gb tp4 kv=fp8");
  EXPECT_EQ((*c)[11].gpu, "a100-80gb");
  EXPECT_EQ((*c)[11].tensor_parallel, 4);
  ASSERT_EQ((*c)[5].flags.size(), 3u);
  EXPECT_EQ((*c)[5].flags[1], (std::pair<std::string, std::string>("tensor_parallel_size", "4")));
  // Nothing varied: one candidate, the workload as given.
  absl::StatusOr<std::vector<plan::Candidate>> none = plan::ExpandCandidates({}, 100);
  ASSERT_TRUE(none.ok());
  ASSERT_EQ(none->size(), 1u);
  EXPECT_EQ((*none)[0].label, "as given");
  EXPECT_FALSE(plan::ExpandCandidates(axes, 11).ok());
  EXPECT_THAT(plan::ParseList("a,,b", "gpus").status().message(), HasSubstr("--gpus: empty value"));
  EXPECT_THAT(plan::ParseList("a,b,a", "gpus").status().message(), HasSubstr("'a' listed twice"));
  EXPECT_THAT(plan::ParsePositiveInts("1,0", "tp-sizes").status().message(),
              HasSubstr("'0' is not a positive integer"));
  // A positive number past int32 is out of range, not "not positive" (an int32 read refused it so).
  for (const char* big : {"3000000000", "99999999999999999999"}) {
    EXPECT_THAT(plan::ParsePositiveInts(absl::StrCat("1,", big), "tp-sizes").status().message(),
                HasSubstr(absl::StrCat("--tp-sizes: '", big, "' is out of range for a 32-bit integer")));
  }
  EXPECT_THAT(plan::ParsePositiveInts("-99999999999999999999", "tp-sizes").status().message(),
              HasSubstr("is not a positive integer"));
  EXPECT_THAT(plan::ParsePositiveInts("0x10", "tp-sizes").status().message(), HasSubstr("is not a positive integer"));
}

}  // namespace
}  // namespace infergrid
