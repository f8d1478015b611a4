// sim/app/validation/slo_validation.h: predicted and measured requests joined by id and each
// classified against the SLO.

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/app/validation/request_latency_csv.h"
#include "sim/app/validation/slo_validation.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

RequestLatencyFile File(const std::string& path, const std::string& text) {
  absl::StatusOr<RequestLatencyFile> file = ParseRequestLatencyCsv(text, path);
  EXPECT_TRUE(file.ok()) << file.status();
  return file.ok() ? *file : RequestLatencyFile();
}

TEST(SloValidation, MissIsStrictlyAboveTheLimit) {
  RequestLatency r{"a", 2.0, 0.1, 1};
  EXPECT_FALSE(MissesSlo(r, {2.0, 0.1}));
  r.ttft_s = 2.0001;
  EXPECT_TRUE(MissesSlo(r, {2.0, 0.1}));
  EXPECT_FALSE(MissesSlo(r, {0, 0.1})) << "a zero limit is not used";
  r.tpot_s.reset();
  EXPECT_FALSE(MissesSlo(r, {0, 0.001})) << "no TPOT, no TPOT miss";
}

TEST(SloValidation, JoinsByIdInAnyOrder) {
  const RequestLatencyFile predicted = File("p.csv", "id,ttft_s,tpot_s\nc,3.0,0.05\na,0.5,0.05\nb,0.4,0.2\n");
  const RequestLatencyFile observed = File("o.csv", "id,ttft_s,tpot_s\na,0.4,0.04\nb,0.5,0.05\nc,2.5,\n");
  const absl::StatusOr<SloValidation> v = ValidateSloPredictions(predicted, observed, {2.0, 0.1}, false);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->joined, 3);
  EXPECT_EQ(v->confusion.true_positives, 1);  // c
  EXPECT_EQ(v->confusion.false_positives, 1);  // b (TPOT)
  EXPECT_EQ(v->confusion.false_negatives, 0);
  EXPECT_EQ(v->confusion.true_negatives, 1);  // a
  EXPECT_EQ(v->ttft.pairs, 3);
  EXPECT_EQ(v->tpot.pairs, 2) << "c has no observed TPOT";
  EXPECT_NEAR(v->ttft.mape, (0.25 + 0.2 + 0.2) / 3, 1e-12);
}

TEST(SloValidation, UnmatchedIdsAreAnErrorUnlessAllowed) {
  const RequestLatencyFile predicted = File("p.csv", "id,ttft_s,tpot_s\na,0.5,0.05\nz,0.4,0.2\n");
  const RequestLatencyFile observed = File("o.csv", "id,ttft_s,tpot_s\na,0.4,0.04\nb,0.5,0.05\n");
  EXPECT_THAT(ValidateSloPredictions(predicted, observed, {2.0, 0}, false).status().message(),
              HasSubstr("o.csv:3: request 'b' has no prediction in p.csv"));
  const RequestLatencyFile observed_a = File("o.csv", "id,ttft_s,tpot_s\na,0.4,0.04\n");
  EXPECT_THAT(ValidateSloPredictions(predicted, observed_a, {2.0, 0}, false).status().message(),
              HasSubstr("p.csv:3: request 'z' is not in o.csv"));
  const absl::StatusOr<SloValidation> v = ValidateSloPredictions(predicted, observed, {2.0, 0}, true);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->joined, 1);
  EXPECT_EQ(v->predicted_only, 1);
  EXPECT_EQ(v->observed_only, 1);
  const RequestLatencyFile other = File("q.csv", "id,ttft_s,tpot_s\nq,0.4,0.04\n");
  EXPECT_THAT(ValidateSloPredictions(other, observed, {2.0, 0}, true).status().message(),
              HasSubstr("no request id in common"));
}

}  // namespace
}  // namespace infergrid
