// sim/core/serving/scheduler.h: the schedulers' names.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Schedulers, NamesAreTheFlagValuesAndUnknownNamesParseToNothing) {
  EXPECT_EQ(ParseEnumName(kSchedulerNames, "sarathi"), SchedulerKind::kSarathi);
  EXPECT_EQ(NameOf(kSchedulerNames, SchedulerKind::kStatic), "static");
  EXPECT_EQ(NameList(kSchedulerNames), "vllm, sglang, sarathi, orca or static");
  EXPECT_EQ(ParseEnumName(kSchedulerNames, "fifo"), std::nullopt);
  EXPECT_EQ(ParseEnumName(kRouterNames, "least-kv"), RouterKind::kLeastKv);
  EXPECT_EQ(ParseEnumName(kRouterNames, "random"), std::nullopt);
  EXPECT_EQ(ParseEnumName(kPreemptionModeNames, "swap"), PreemptionMode::kSwap);
}

}  // namespace
}  // namespace infergrid
