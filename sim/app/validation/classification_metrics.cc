#include "sim/app/validation/classification_metrics.h"

#include <cmath>

namespace infergrid {

void ConfusionMatrix::Add(bool predicted, bool observed) {
  if (predicted && observed) ++true_positives;
  if (predicted && !observed) ++false_positives;
  if (!predicted && observed) ++false_negatives;
  if (!predicted && !observed) ++true_negatives;
}

ClassificationMetrics ComputeClassificationMetrics(const ConfusionMatrix& m) {
  // Doubles throughout: the product of the four marginals overflows int64 from ~55k requests.
  const double tp = static_cast<double>(m.true_positives);
  const double fp = static_cast<double>(m.false_positives);
  const double fn = static_cast<double>(m.false_negatives);
  const double tn = static_cast<double>(m.true_negatives);
  const double total = tp + fp + fn + tn;
  ClassificationMetrics out;
  out.accuracy_defined = total > 0;
  if (out.accuracy_defined) {
    out.accuracy = (tp + tn) / total;
    out.observed_positive_rate = (tp + fn) / total;
    out.predicted_positive_rate = (tp + fp) / total;
  }
  out.precision_defined = tp + fp > 0;
  if (out.precision_defined) out.precision = tp / (tp + fp);
  out.recall_defined = tp + fn > 0;
  if (out.recall_defined) out.recall = tp / (tp + fn);
  out.f1_defined = 2 * tp + fp + fn > 0;
  if (out.f1_defined) out.f1 = 2 * tp / (2 * tp + fp + fn);
  const double marginals = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn);
  out.mcc_defined = marginals > 0;
  if (out.mcc_defined) out.mcc = (tp * tn - fp * fn) / std::sqrt(marginals);
  return out;
}

}  // namespace infergrid
