// sim/core/serving/admission.h: truncation, rejection, prefix-block keys.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ---------------------------------------------------------------- admission and routing

TEST(Admission, TruncatesRejectsAndKeysPrefixBlocks) {
  AdmissionPolicy policy{.max_model_len = 2048, .block_size = 16, .usable_blocks = 1000, .prefix_caching = true};
  Request r;
  r.input_tokens = 1500;
  r.output_tokens = 1000;
  r.prefix_block_hashes = {11, 12};
  RequestRecord record;
  std::unique_ptr<Sequence> seq = AdmitRequest(r, policy, 7, &record);
  ASSERT_NE(seq, nullptr);
  EXPECT_TRUE(record.truncated);
  EXPECT_EQ(seq->output_tokens, 548);
  // Two hashes cover 1,024 tokens: 64 full blocks of 16.
  EXPECT_EQ(seq->prefix_keys.size(), 64u);
  EXPECT_EQ(seq->prefix_keys[0], PrefixBlockKey(11, 0));
  EXPECT_EQ(seq->prefix_keys[32], PrefixBlockKey(12, 0));
  r.input_tokens = 3000;
  RequestRecord too_long;
  EXPECT_EQ(AdmitRequest(r, policy, 8, &too_long), nullptr);
  EXPECT_EQ(too_long.outcome, RequestOutcome::kRejected);
  EXPECT_FALSE(too_long.truncated);  // rejected, not also counted as truncated
  EXPECT_EQ(too_long.reject_reason, RejectReason::kPromptTooLong);
  EXPECT_EQ(record.reject_reason, RejectReason::kNone);
  policy.reserve_output = true;
  policy.usable_blocks = 50;
  r.input_tokens = 700;
  r.output_tokens = 200;
  RequestRecord reserved;
  EXPECT_EQ(AdmitRequest(r, policy, 9, &reserved), nullptr);  // 57 blocks > 50
  EXPECT_EQ(reserved.reject_reason, RejectReason::kKvCacheTooSmall);
}

}  // namespace
}  // namespace infergrid
