// Binary classification metrics over a confusion matrix, for checking predicted against
// observed events such as "this request missed its SLO". Positive = the event happened.
// When events are rare, accuracy is dominated by the negatives (a predictor that never
// predicts the event scores 1 - prevalence), so precision, recall, F1 and the Matthews
// correlation coefficient are reported beside it.
//
// Undefined ratios (a zero denominator) are reported as 0 with their *_defined flag false, as
// scikit-learn does for precision, recall and MCC: precision without predicted positives,
// recall without observed positives, F1 without either, MCC when any row or column of the
// matrix is empty.
#ifndef INFERGRID_SIM_APP_VALIDATION_CLASSIFICATION_METRICS_H_
#define INFERGRID_SIM_APP_VALIDATION_CLASSIFICATION_METRICS_H_

#include <cstdint>

namespace infergrid {

struct ConfusionMatrix {
  int64_t true_positives = 0;  // predicted and observed
  int64_t false_positives = 0;  // predicted, not observed
  int64_t false_negatives = 0;  // observed, not predicted
  int64_t true_negatives = 0;  // neither
  int64_t Total() const { return true_positives + false_positives + false_negatives + true_negatives; }
  void Add(bool predicted, bool observed);
};

struct ClassificationMetrics {
  double precision = 0;  // TP / (TP + FP)
  double recall = 0;  // TP / (TP + FN)
  double f1 = 0;  // 2 TP / (2 TP + FP + FN), the harmonic mean of the two
  // (TP TN - FP FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN)), in [-1, 1]
  double mcc = 0;
  double accuracy = 0;  // (TP + TN) / total
  double observed_positive_rate = 0;  // prevalence: (TP + FN) / total
  double predicted_positive_rate = 0;  // (TP + FP) / total
  bool precision_defined = false;
  bool recall_defined = false;
  bool f1_defined = false;
  bool mcc_defined = false;
  bool accuracy_defined = false;
};

ClassificationMetrics ComputeClassificationMetrics(const ConfusionMatrix& matrix);

}  // namespace infergrid

#endif  // INFERGRID_SIM_APP_VALIDATION_CLASSIFICATION_METRICS_H_
