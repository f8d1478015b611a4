// models/vector_index_memory.h: vector-index memory (vectors and the HNSW graph) with the figures
// of the memory-anatomy seed document, and where they do not follow from its own formulas.

#include <cmath>
#include <cstdint>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/vector_index_memory.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

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

}  // namespace
}  // namespace infergrid
