// sim/core/serving/execution_policy.h: which batches replay a CUDA graph, padded to which size:
// captured sizes, padding to the next one, eager fallback, token-keyed piecewise graphs, vLLM V0's
// long decode contexts.

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/core/serving/execution_policy.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;

BatchShape Decode(int sequences, int64_t context = 1000) {
  BatchShape b;
  b.decode_context_tokens.assign(static_cast<size_t>(sequences), context);
  return b;
}

TEST(CaptureSizes, RangesAreMergedSortedAndCut) {
  EXPECT_THAT(CaptureSizes({{1, 1, 1}, {2, 2, 1}, {4, 4, 1}, {8, 32, 8}, {8, 16, 8}}, 24),
              ElementsAre(1, 2, 4, 8, 16, 24));
}

TEST(ExecutionPolicy, DecodeBatchesArePaddedToTheNextCapturedSize) {
  ExecutionPolicy p;
  p.graphs.sizes = {1, 2, 4, 8, 16};
  BatchShape b = Decode(5);
  p.ApplyGraphs(b);
  EXPECT_EQ(b.launch, LaunchMode::kGraph);
  EXPECT_EQ(b.padding_rows, 3);
  b = Decode(17);  // above the largest: eager, unpadded
  p.ApplyGraphs(b);
  EXPECT_EQ(b.launch, LaunchMode::kEager);
  EXPECT_EQ(b.padding_rows, 0);
  BatchShape mixed = Decode(3);
  mixed.prefill.push_back({100, 0});
  p.ApplyGraphs(mixed);  // decode-only graphs: a prefill runs eagerly
  EXPECT_EQ(mixed.launch, LaunchMode::kEager);
}

TEST(ExecutionPolicy, UnpaddedEnginesRunUncapturedSizesEagerly) {
  ExecutionPolicy trt;  // TensorRT-LLM PyTorch backend: 1..32, 64, 128, no padding
  trt.graphs.sizes = {32, 64, 128};
  trt.graphs.pad = false;
  BatchShape b = Decode(33);
  trt.ApplyGraphs(b);
  EXPECT_EQ(b.launch, LaunchMode::kEager);
  b = Decode(64);
  trt.ApplyGraphs(b);
  EXPECT_EQ(b.launch, LaunchMode::kGraph);
  EXPECT_EQ(b.padding_rows, 0);
}

TEST(ExecutionPolicy, TokenKeyedPiecewiseGraphsForMixedBatches) {
  ExecutionPolicy v1;  // vLLM V1: keyed on tokens; full graphs for decode, piecewise otherwise
  v1.graphs.sizes = {8, 16, 512};
  v1.graphs.keyed_on_tokens = true;
  v1.graphs.piecewise_mixed = true;
  BatchShape mixed = Decode(3);
  mixed.prefill.push_back({10, 0});  // 13 tokens -> 16
  v1.ApplyGraphs(mixed);
  EXPECT_EQ(mixed.launch, LaunchMode::kPiecewise);
  EXPECT_EQ(mixed.padding_rows, 3);
  mixed.prefill[0].new_tokens = 600;  // 603 tokens: above 512
  v1.ApplyGraphs(mixed);
  EXPECT_EQ(mixed.launch, LaunchMode::kEager);
}

TEST(ExecutionPolicy, LongDecodeContextsRunEagerlyInVllmV0) {
  ExecutionPolicy v0;
  v0.graphs.sizes = {1, 2, 4, 8};
  v0.graphs.max_decode_context = 8192;
  BatchShape b = Decode(2, 8191);
  v0.ApplyGraphs(b);
  EXPECT_EQ(b.launch, LaunchMode::kGraph);
  b = Decode(2, 8192);  // the new token makes 8,193
  v0.ApplyGraphs(b);
  EXPECT_EQ(b.launch, LaunchMode::kEager);
}

}  // namespace
}  // namespace infergrid
