// Tests of the training-compute, vector-index and SLO-validation calculations, with
// the figures of the memory-anatomy seed document and where they do not follow from its own
// formulas (its KV-cache figures are checked in kv_cache_size_test.cc).
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/model_catalog.h"
#include "models/training_compute.h"
#include "models/vector_index_memory.h"
#include "sim/app/validation/classification_metrics.h"
#include "sim/app/validation/latency_errors.h"
#include "sim/app/validation/request_latency_csv.h"
#include "sim/app/validation/slo_validation.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// ---- training compute ----------------------------------------------------------------------

TEST(TrainingCompute, SixFlopsPerParameterPerToken) {
  // The document's example: 70B parameters on 15T tokens.
  EXPECT_DOUBLE_EQ(TrainingFlops(70e9, 15e12), 6.3e24);
  // Chinchilla itself: 70B on 1.4T tokens (20 per parameter).
  EXPECT_DOUBLE_EQ(ComputeOptimalTokens(70e9, kChinchillaTokensPerParameter), 1.4e12);
  EXPECT_DOUBLE_EQ(TrainingFlops(70e9, 1.4e12), 5.88e23);
}

TEST(TrainingCompute, TheDocumentsExampleTakes178DaysNot45) {
  const double seconds = TrainingSeconds(TrainingFlops(70e9, 15e12), 1024, 400e12);
  EXPECT_NEAR(seconds, 1.5380859375e7, 1);
  EXPECT_NEAR(seconds / kSecondsPerDay, 178.02, 0.01);
  EXPECT_GT(seconds / kSecondsPerDay / 45, 3.9) << "the document is ~4x short";
}

TEST(TrainingCompute, WhatWouldTake45Days) {
  const TrainingTimeSolution s = SolveForTrainingSeconds(70e9, 15e12, 1024, 400e12, 45 * kSecondsPerDay);
  EXPECT_NEAR(s.num_gpus, 4050.93, 0.01);  // ~4,096 GPUs, not 1,024
  EXPECT_NEAR(s.flops_per_gpu / 1e12, 1582.39, 0.01);  // above the 989.4 bf16 dense peak
  EXPECT_NEAR(s.tokens / 1e12, 3.7917, 0.0001);  // ~3.8T tokens, not 15T
  EXPECT_NEAR(s.flops_per_parameter_token, 1.5167, 0.0001);  // less than a forward pass
  // Each solution really gives 45 days.
  EXPECT_NEAR(TrainingSeconds(TrainingFlops(70e9, 15e12), s.num_gpus, 400e12) / kSecondsPerDay, 45, 1e-9);
  EXPECT_NEAR(TrainingSeconds(TrainingFlops(70e9, s.tokens), 1024, 400e12) / kSecondsPerDay, 45, 1e-9);
  // 4,096 GPUs (4x the cluster) gives 44.5 days, the closest round cluster size.
  EXPECT_NEAR(TrainingSeconds(6.3e24, 4096, 400e12) / kSecondsPerDay, 44.50, 0.01);
}

TEST(TrainingCompute, ComputeOptimalSplitOfABudget) {
  const ParameterTokenSplit split = ComputeOptimalSplit(6.3e24, 20);
  EXPECT_NEAR(split.parameters / 1e9, 229.13, 0.01);
  EXPECT_NEAR(split.tokens / split.parameters, 20, 1e-12);
  EXPECT_NEAR(TrainingFlops(split.parameters, split.tokens), 6.3e24, 1e10);
}

TEST(TrainingCompute, AttentionAddOnForLlama3At8k) {
  const absl::StatusOr<ModelSpec> model = FindCatalogModel("llama-3-70b");
  ASSERT_TRUE(model.ok());
  const double per_token =
      AttentionTrainingFlopsPerToken(model->num_layers(), model->num_attention_heads(), model->head_dim(), 8192);
  EXPECT_DOUBLE_EQ(per_token, 64424509440.0);  // 12 x 80 x 64 x 128 x 8192
  EXPECT_NEAR(per_token / (6 * 70e9), 0.153, 0.001) << "+15% over 6N at 8k context";
}

// ---- vector index ------------------------------------------------------------------------

TEST(VectorIndex, BytesPerVector) {
  EXPECT_EQ(VectorBytes(VectorElement::kFp32, 768), 3072);
  EXPECT_EQ(VectorBytes(VectorElement::kFp16, 768), 1536);
  EXPECT_EQ(VectorBytes(VectorElement::kInt8, 768), 768);
  EXPECT_EQ(VectorBytes(VectorElement::kBinary, 768), 96);
  EXPECT_EQ(VectorBytes(VectorElement::kBinary, 100), 13) << "bits are packed per vector";
  EXPECT_EQ(*ParseVectorElement("FLOAT16"), VectorElement::kFp16);
  EXPECT_THAT(ParseVectorElement("fp64").status().message(), HasSubstr("unknown vector element type 'fp64'"));
}

TEST(VectorIndex, ExpectedUpperLayersMatchHnswlibsLevelDraw) {
  EXPECT_DOUBLE_EQ(ExpectedUpperLayersPerNode(16), 1.0 / 15);
  // hnswlib: level = floor(-ln(U) * mL), mL = 1 / ln(M). The mean level is the number of
  // upper-layer lists a node holds.
  for (int m : {4, 16, 32}) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    const double ml = 1 / std::log(static_cast<double>(m));
    const int samples = 2'000'000;
    double levels = 0;
    for (int i = 0; i < samples; ++i) levels += std::floor(-std::log(1.0 - uniform(rng)) * ml);
    EXPECT_NEAR(levels / samples, ExpectedUpperLayersPerNode(m), 0.003) << "M = " << m;
  }
}

TEST(VectorIndex, GraphBytesPerNode) {
  const HnswNodeBytes m16 = HnswBytesPerNode({.m = 16});
  EXPECT_DOUBLE_EQ(m16.layer0, 4 + 32 * 4);
  EXPECT_DOUBLE_EQ(m16.upper, (4 + 16 * 4) / 15.0);
  EXPECT_DOUBLE_EQ(m16.level, 4);
  EXPECT_NEAR(m16.Total(), 140.5333, 0.0001);
  EXPECT_NEAR(HnswBytesPerNode({.m = 32}).Total(), 268.2581, 0.0001);
  EXPECT_NEAR(HnswBytesPerNode({.m = 16, .id_bytes = 8}).Total(), 4 + 256 + 132 / 15.0 + 4, 1e-9);
}

TEST(VectorIndex, MillionBertVectors) {
  const VectorIndexMemory memory = ComputeVectorIndexMemory(1e6, 768, VectorElement::kFp32, {.m = 16});
  EXPECT_DOUBLE_EQ(memory.raw_bytes, 3.072e9);
  EXPECT_NEAR(memory.graph_bytes, 1.405333e8, 100);
  EXPECT_NEAR(memory.Overhead(), 0.04575, 0.00001);
}

TEST(VectorIndex, TheFlat50To65PercentHoldsOnlyForSmallDims) {
  // fp32 vectors, 4 B ids: the overhead is graph bytes per node / 4D.
  const DimRange m16 = DimsWithOverheadBetween(0.50, 0.65, VectorElement::kFp32, {.m = 16});
  EXPECT_EQ(m16.min_dim, 55);
  EXPECT_EQ(m16.max_dim, 70);
  const DimRange m24 = DimsWithOverheadBetween(0.50, 0.65, VectorElement::kFp32, {.m = 24});
  EXPECT_EQ(m24.min_dim, 79);
  EXPECT_EQ(m24.max_dim, 102);
  const DimRange m32 = DimsWithOverheadBetween(0.50, 0.65, VectorElement::kFp32, {.m = 32});
  EXPECT_EQ(m32.min_dim, 104);
  EXPECT_EQ(m32.max_dim, 134);
  // SIFT-like D = 128 at M = 32 is inside; the document's own encoders are far below.
  EXPECT_NEAR(HnswOverhead(128, VectorElement::kFp32, {.m = 32}), 0.524, 0.001);
  for (int64_t m : {16, 24, 32}) {
    EXPECT_LT(HnswOverhead(768, VectorElement::kFp32, {.m = m}), 0.09) << "BERT, M = " << m;
    EXPECT_LT(HnswOverhead(1536, VectorElement::kFp32, {.m = m}), 0.045) << "text-embedding-3-small";
  }
  // Compressed vectors shift the range up: binary 1024-D vectors are smaller than their graph.
  EXPECT_GT(HnswOverhead(1024, VectorElement::kBinary, {.m = 16}), 1.0);
  const DimRange binary = DimsWithOverheadBetween(0.50, 0.65, VectorElement::kBinary, {.m = 16});
  EXPECT_EQ(binary.min_dim, 8 * 216 + 1);  // 217 B vectors: 64.8%
  EXPECT_EQ(binary.max_dim, 8 * 281);  // 281 B vectors: 50.0%
  for (int64_t d = binary.min_dim; d <= binary.max_dim; d += 17) {
    const double overhead = HnswOverhead(d, VectorElement::kBinary, {.m = 16});
    EXPECT_TRUE(overhead >= 0.50 && overhead <= 0.65) << d;
  }
  EXPECT_GT(HnswOverhead(binary.min_dim - 1, VectorElement::kBinary, {.m = 16}), 0.65);
  EXPECT_LT(HnswOverhead(binary.max_dim + 1, VectorElement::kBinary, {.m = 16}), 0.50);
  EXPECT_TRUE(DimsWithOverheadBetween(50, 60, VectorElement::kFp32, {.m = 16}).Empty());
  EXPECT_TRUE(DimsWithOverheadBetween(0, 0.5, VectorElement::kFp32, {.m = 16}).Empty());
}

// ---- classification metrics --------------------------------------------------------------

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

// ---- latency errors ----------------------------------------------------------------------

TEST(LatencyErrors, PercentileInterpolatesLikeNumpy) {
  EXPECT_DOUBLE_EQ(Percentile({4, 1, 3, 2}, 50), 2.5);
  EXPECT_DOUBLE_EQ(Percentile({4, 1, 3, 2}, 90), 3.7);
  EXPECT_NEAR(Percentile({4, 1, 3, 2}, 99), 3.97, 1e-12);
  EXPECT_DOUBLE_EQ(Percentile({4, 1, 3, 2}, 0), 1);
  EXPECT_DOUBLE_EQ(Percentile({4, 1, 3, 2}, 100), 4);
  EXPECT_DOUBLE_EQ(Percentile({7}, 99), 7);
}

TEST(LatencyErrors, MapeMedianBiasAndQuantiles) {
  const double predicted[] = {1.1, 2.0, 3.3, 0.5};
  const double observed[] = {1.0, 2.0, 3.0, 0.0};
  const double percentiles[] = {50, 90};
  const LatencyErrors e = CompareLatencies(predicted, observed, percentiles);
  EXPECT_EQ(e.pairs, 4);
  EXPECT_EQ(e.mape_pairs, 3) << "the observed 0 is left out of MAPE";
  EXPECT_NEAR(e.mape, (0.1 + 0 + 0.1) / 3, 1e-12);
  EXPECT_NEAR(e.median_absolute_error, 0.2, 1e-12);  // |errors| 0.1, 0, 0.3, 0.5
  EXPECT_NEAR(e.mean_error, 0.9 / 4, 1e-12);
  ASSERT_EQ(e.quantiles.size(), 2u);
  EXPECT_DOUBLE_EQ(e.quantiles[0].observed, 1.5);
  EXPECT_DOUBLE_EQ(e.quantiles[0].predicted, 1.55);
  EXPECT_NEAR(e.quantiles[0].RelativeError(), 0.05 / 1.5, 1e-12);
  EXPECT_NEAR(e.quantiles[1].observed, 2.7, 1e-12);
  EXPECT_NEAR(e.quantiles[1].predicted, 2.91, 1e-12);
}

// ---- request latency CSV and the join ------------------------------------------------------

TEST(RequestLatencyCsv, ParsesColumnsInAnyOrderWithExtras) {
  const absl::StatusOr<RequestLatencyFile> file = ParseRequestLatencyCsv(
      "\xEF\xBB\xBF# comment\r\nprompt_tokens,tpot_s,id,ttft_s\r\n"
      "10,0.05,a,0.2\r\n\r\n"
      "11,,\"b,1\",0.3\r\n"
      "12, 0.07 ,\"say \"\"hi\"\"\",1e-1\n",
      "x.csv");
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(file->requests.size(), 3u);
  EXPECT_EQ(file->requests[0].id, "a");
  EXPECT_DOUBLE_EQ(file->requests[0].ttft_s, 0.2);
  EXPECT_DOUBLE_EQ(*file->requests[0].tpot_s, 0.05);
  EXPECT_EQ(file->requests[0].line, 3);
  EXPECT_EQ(file->requests[1].id, "b,1");
  EXPECT_FALSE(file->requests[1].tpot_s.has_value()) << "empty tpot_s: one output token";
  EXPECT_EQ(file->requests[1].line, 5);
  EXPECT_EQ(file->requests[2].id, "say \"hi\"");
  EXPECT_DOUBLE_EQ(file->requests[2].ttft_s, 0.1);
  EXPECT_DOUBLE_EQ(*file->requests[2].tpot_s, 0.07);
}

TEST(RequestLatencyCsv, ErrorsNameFileAndLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "x.csv:1: no header"},
      {"id,ttft_s\nr1,0.1\n", "x.csv:1: the header lacks column(s) tpot_s"},
      {"id,ttft_s,tpot_s,id\n", "x.csv:1: column 'id' appears twice"},
      {"id,ttft_s,tpot_s\n", "x.csv:1: a header and no requests"},
      {"id,ttft_s,tpot_s\nr1,0.1,0.02\nr2,fast,0.02\n", "x.csv:3: ttft_s: 'fast' is not a number"},
      {"id,ttft_s,tpot_s\nr1,0.1,-0.02\n", "x.csv:2: tpot_s: -0.02 is negative"},
      {"id,ttft_s,tpot_s\nr1,nan,0.02\n", "x.csv:2: ttft_s: 'nan' is not a number"},
      {"id,ttft_s,tpot_s\nr1,0.1\n", "x.csv:2: 2 fields, the header on line 1 has 3"},
      {"id,ttft_s,tpot_s\nr1,0.1,0.02\n\nr1,0.2,0.03\n", "x.csv:4: duplicate id 'r1' (first on line 2)"},
      {"id,ttft_s,tpot_s\n\"r1,0.1,0.02\n", "x.csv:2:1: unterminated quoted field"},
      {"id,ttft_s,tpot_s\n,0.1,0.02\n", "x.csv:2: empty id"},
      {"id,ttft_s,tpot_s\n\"r1\"x,0.1,0.02\n", "x.csv:2:5: expected ',' after a closing quote"},
      {"id,ttft_s,tpot_s\nr\"1,0.1,0.02\n", "x.csv:2:2: a quote inside an unquoted field"},
  };
  for (const auto& [text, message] : cases) {
    const absl::StatusOr<RequestLatencyFile> file = ParseRequestLatencyCsv(text, "x.csv");
    ASSERT_FALSE(file.ok()) << text;
    EXPECT_THAT(file.status().message(), HasSubstr(message)) << text;
  }
  EXPECT_THAT(ReadRequestLatencyCsv("/nonexistent/x.csv").status().message(), HasSubstr("/nonexistent/x.csv"));
}

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
