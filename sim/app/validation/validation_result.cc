#include "sim/app/validation/validation_result.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "sim/app/format/text_table.h"
#include "sim/app/format/units.h"

namespace infergrid {

using format::Fixed;
using format::Grouped;
using format::Percent;

namespace {

std::string SignedPercent(double fraction) {
  return absl::StrCat(fraction >= 0 ? "+" : "", Fixed(100 * fraction, 1), "%");
}

LatencyErrorSummary ToSummary(absl::string_view metric, const LatencyErrors& e) {
  LatencyErrorSummary r;
  r.set_metric(std::string(metric));
  r.set_requests(static_cast<double>(e.pairs));
  r.set_mape_requests(static_cast<double>(e.mape_pairs));
  r.set_mape(e.mape);
  r.set_median_absolute_error_s(e.median_absolute_error);
  r.set_mean_error_s(e.mean_error);
  for (const QuantileComparison& q : e.quantiles) {
    QuantileErrors& out = *r.add_quantiles();
    out.set_quantile(absl::StrCat("p", Fixed(q.percentile, 0)));
    out.set_observed_s(q.observed);
    out.set_predicted_s(q.predicted);
    out.set_relative_error(q.RelativeError());
  }
  return r;
}

std::string Metric(double value, bool defined) {
  return defined ? Fixed(value, 4) : absl::StrCat(Fixed(value, 4), " (undefined)");
}

}  // namespace

ValidationResult BuildValidationResult(const SloValidation& v, const SloLimits& limits,
                                       const std::string& predicted_path, const std::string& observed_path) {
  ValidationResult r;
  r.set_predicted(predicted_path);
  r.set_observed(observed_path);
  r.set_slo_ttft_s(limits.ttft_s);
  r.set_slo_tpot_s(limits.tpot_s);
  r.set_requests(static_cast<double>(v.joined));
  r.set_predicted_only(static_cast<double>(v.predicted_only));
  r.set_observed_only(static_cast<double>(v.observed_only));
  ConfusionCounts& c = *r.mutable_confusion();
  c.set_true_positives(static_cast<double>(v.confusion.true_positives));
  c.set_false_positives(static_cast<double>(v.confusion.false_positives));
  c.set_false_negatives(static_cast<double>(v.confusion.false_negatives));
  c.set_true_negatives(static_cast<double>(v.confusion.true_negatives));
  const ClassificationMetrics& m = v.metrics;
  ClassificationScores& k = *r.mutable_classification();
  k.set_precision(m.precision);
  k.set_recall(m.recall);
  k.set_f1(m.f1);
  k.set_mcc(m.mcc);
  k.set_accuracy(m.accuracy);
  k.set_observed_miss_rate(m.observed_positive_rate);
  k.set_predicted_miss_rate(m.predicted_positive_rate);
  k.set_precision_defined(m.precision_defined);
  k.set_recall_defined(m.recall_defined);
  k.set_f1_defined(m.f1_defined);
  k.set_mcc_defined(m.mcc_defined);
  *r.add_latency() = ToSummary("ttft", v.ttft);
  *r.add_latency() = ToSummary("tpot", v.tpot);

  // Notes: undefined metrics, and what accuracy hides.
  const int64_t observed_misses = v.confusion.true_positives + v.confusion.false_negatives;
  const int64_t predicted_misses = v.confusion.true_positives + v.confusion.false_positives;
  if (predicted_misses == 0) {
    r.add_notes("no request is predicted to miss the SLO: precision is undefined (0/0, shown as 0)");
  }
  if (observed_misses == 0) {
    r.add_notes(
        "no observed request missed the SLO: recall is undefined (0/0, shown as 0); this data "
        "cannot tell a good predictor of misses from one that never predicts one");
  }
  if (!m.f1_defined) r.add_notes("F1 is undefined without predicted or observed misses (shown as 0)");
  if (!m.mcc_defined) {
    r.add_notes(
        "MCC is undefined (a row or column of the confusion matrix is empty, so its "
        "denominator is 0) and shown as 0, scikit-learn's convention");
  }
  if (observed_misses > 0 && v.confusion.true_positives == 0) {
    r.add_notes(absl::StrCat("accuracy ", Percent(m.accuracy), " while not one of the ", observed_misses,
                             " observed misses is predicted: accuracy alone hides it, recall and MCC do not"));
  }
  if (v.tpot.pairs < v.joined) {
    r.add_notes(
        absl::StrCat(v.joined - v.tpot.pairs,
                     " request(s) without a TPOT on one side (one output token) are left out of the TPOT errors"));
  }
  for (const LatencyErrors* e : {&v.ttft, &v.tpot}) {
    if (e->mape_pairs < e->pairs) {
      r.add_notes(absl::StrCat(e == &v.ttft ? "TTFT" : "TPOT", " MAPE leaves out ", e->pairs - e->mape_pairs,
                               " request(s) observed at 0 s"));
    }
  }
  if (v.predicted_only + v.observed_only > 0) {
    r.add_notes(absl::StrCat("left out (--allow-unmatched): ", v.predicted_only, " predicted-only and ",
                             v.observed_only, " observed-only request(s)"));
  }
  return r;
}

std::string RenderValidationTable(const ValidationResult& r) {
  std::string slo;
  if (r.slo_ttft_s() > 0) slo = absl::StrCat("TTFT <= ", format::Duration(r.slo_ttft_s()));
  if (r.slo_tpot_s() > 0) {
    absl::StrAppend(&slo, slo.empty() ? "" : " and ", "TPOT <= ", format::Duration(r.slo_tpot_s()));
  }
  std::string out = absl::StrCat("InferGrid validate: ", r.predicted(), " (predicted) vs ", r.observed(),
                                 " (observed), ", Grouped(r.requests()), " requests joined by id\n");
  absl::StrAppend(&out, "  SLO            ", slo, "; a request misses it when a limit is exceeded\n");
  const ClassificationScores& k = r.classification();
  absl::StrAppend(&out, "  misses         observed ", Percent(k.observed_miss_rate()), ", predicted ",
                  Percent(k.predicted_miss_rate()), "\n\n");

  const ConfusionCounts& c = r.confusion();
  format::TextTable confusion({"confusion matrix", "observed miss", "observed met"});
  confusion.AddRow({"predicted miss", absl::StrCat("TP ", Grouped(c.true_positives())),
                    absl::StrCat("FP ", Grouped(c.false_positives()))});
  confusion.AddRow({"predicted met", absl::StrCat("FN ", Grouped(c.false_negatives())),
                    absl::StrCat("TN ", Grouped(c.true_negatives()))});
  absl::StrAppend(&out, confusion.Render(), "\n");

  format::TextTable metrics({"SLO-miss prediction", "value"});
  metrics.AddRow({"precision TP/(TP+FP)", Metric(k.precision(), k.precision_defined())});
  metrics.AddRow({"recall TP/(TP+FN)", Metric(k.recall(), k.recall_defined())});
  metrics.AddRow({"F1", Metric(k.f1(), k.f1_defined())});
  metrics.AddRow({"MCC", Metric(k.mcc(), k.mcc_defined())});
  metrics.AddRow({"accuracy", Fixed(k.accuracy(), 4)});
  absl::StrAppend(&out, metrics.Render(), "\n");

  format::TextTable latency({"latency error", "requests", "MAPE", "median |error|", "mean error (pred - obs)"});
  for (const LatencyErrorSummary& e : r.latency()) {
    latency.AddRow({e.metric() == "ttft" ? "TTFT" : "TPOT", Grouped(e.requests()),
                    e.mape_requests() > 0 ? Percent(e.mape()) : "-", format::Duration(e.median_absolute_error_s()),
                    format::Duration(e.mean_error_s())});
  }
  absl::StrAppend(&out, latency.Render(), "\n");

  // Quantiles of each distribution over the same requests (linear interpolation, numpy's default).
  const LatencyErrorSummary& ttft = r.latency(0);
  const LatencyErrorSummary& tpot = r.latency(1);
  format::TextTable quantiles(
      {"quantile", "TTFT observed", "TTFT predicted", "error", "TPOT observed", "TPOT predicted", "error"});
  for (int i = 0; i < ttft.quantiles_size(); ++i) {
    std::vector<std::string> row = {ttft.quantiles(i).quantile()};
    for (const LatencyErrorSummary* e : {&ttft, &tpot}) {
      if (i < e->quantiles_size()) {
        const QuantileErrors& q = e->quantiles(i);
        row.insert(row.end(), {format::Duration(q.observed_s()), format::Duration(q.predicted_s()),
                               SignedPercent(q.relative_error())});
      } else {
        row.insert(row.end(), {"-", "-", "-"});
      }
    }
    quantiles.AddRow(std::move(row));
  }
  absl::StrAppend(&out, quantiles.Render(), "\n");
  for (const std::string& note : r.notes()) absl::StrAppend(&out, "note: ", note, "\n");
  return out;
}

}  // namespace infergrid
