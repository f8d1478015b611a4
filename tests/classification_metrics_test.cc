// sim/app/validation/classification_metrics.h: SLO-miss classification metrics from a confusion
// matrix.

#include <cstdint>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/app/validation/classification_metrics.h"

namespace infergrid {
namespace {

ConfusionMatrix Matrix(int64_t tp, int64_t fp, int64_t fn, int64_t tn) {
  ConfusionMatrix m;
  m.true_positives = tp;
  m.false_positives = fp;
  m.false_negatives = fn;
  m.true_negatives = tn;
  return m;
}

TEST(ClassificationMetrics, KnownValues) {
  const ClassificationMetrics m = ComputeClassificationMetrics(Matrix(90, 5, 10, 895));
  EXPECT_DOUBLE_EQ(m.precision, 90.0 / 95);
  EXPECT_DOUBLE_EQ(m.recall, 0.9);
  EXPECT_DOUBLE_EQ(m.f1, 180.0 / 195);
  EXPECT_NEAR(m.mcc, 0.9151420966, 1e-9);
  EXPECT_DOUBLE_EQ(m.accuracy, 0.985);
  EXPECT_DOUBLE_EQ(m.observed_positive_rate, 0.1);
  EXPECT_DOUBLE_EQ(m.predicted_positive_rate, 0.095);
  EXPECT_TRUE(m.precision_defined && m.recall_defined && m.f1_defined && m.mcc_defined);
}

TEST(ClassificationMetrics, PerfectInverseAndSymmetric) {
  EXPECT_DOUBLE_EQ(ComputeClassificationMetrics(Matrix(5, 0, 0, 995)).mcc, 1);
  EXPECT_DOUBLE_EQ(ComputeClassificationMetrics(Matrix(0, 995, 5, 0)).mcc, -1);
  // Swapping which class is "positive" leaves MCC alone but not F1.
  const ClassificationMetrics a = ComputeClassificationMetrics(Matrix(3, 7, 2, 88));
  const ClassificationMetrics b = ComputeClassificationMetrics(Matrix(88, 2, 7, 3));
  EXPECT_DOUBLE_EQ(a.mcc, b.mcc);
  EXPECT_NE(a.f1, b.f1);
}

TEST(ClassificationMetrics, AccuracyHidesAPredictorThatNeverPredictsAMiss) {
  // The document's imbalanced case: 0.5% positives, a predictor that always says "negative".
  const ClassificationMetrics m = ComputeClassificationMetrics(Matrix(0, 0, 5, 995));
  EXPECT_DOUBLE_EQ(m.accuracy, 0.995);
  EXPECT_FALSE(m.precision_defined);
  EXPECT_EQ(m.precision, 0);
  EXPECT_TRUE(m.recall_defined);
  EXPECT_EQ(m.recall, 0);
  EXPECT_TRUE(m.f1_defined);
  EXPECT_EQ(m.f1, 0);
  EXPECT_FALSE(m.mcc_defined) << "no predicted positives: the MCC denominator is 0";
  EXPECT_EQ(m.mcc, 0);
  // A useful predictor with lower accuracy has a far higher MCC.
  const ClassificationMetrics useful = ComputeClassificationMetrics(Matrix(4, 10, 1, 985));
  EXPECT_LT(useful.accuracy, m.accuracy);
  EXPECT_NEAR(useful.mcc, 0.474235, 1e-6);  // (4 x 985 - 10 x 1) / sqrt(14 x 5 x 995 x 986)
}

TEST(ClassificationMetrics, AllNegativeData) {
  const ClassificationMetrics m = ComputeClassificationMetrics(Matrix(0, 0, 0, 1000));
  EXPECT_DOUBLE_EQ(m.accuracy, 1);
  EXPECT_FALSE(m.precision_defined);
  EXPECT_FALSE(m.recall_defined);
  EXPECT_FALSE(m.f1_defined);
  EXPECT_FALSE(m.mcc_defined);
  EXPECT_EQ(m.mcc, 0);
  EXPECT_EQ(m.f1, 0);
  const ClassificationMetrics false_alarm = ComputeClassificationMetrics(Matrix(0, 1, 0, 999));
  EXPECT_FALSE(false_alarm.mcc_defined);
  EXPECT_TRUE(false_alarm.precision_defined);
  EXPECT_EQ(false_alarm.precision, 0);
  EXPECT_TRUE(false_alarm.f1_defined);
  EXPECT_FALSE(ComputeClassificationMetrics(Matrix(0, 0, 0, 0)).accuracy_defined);
}

TEST(ClassificationMetrics, LargeCountsDoNotOverflow) {
  const ClassificationMetrics m = ComputeClassificationMetrics(Matrix(3'000'000, 1'000'000, 1'000'000, 95'000'000));
  // (3e6 * 95e6 - 1e12) / sqrt(4e6 * 4e6 * 96e6 * 96e6) = 2.84e14 / 3.84e14
  EXPECT_NEAR(m.mcc, 0.7395833333, 1e-9);
}

}  // namespace
}  // namespace infergrid
