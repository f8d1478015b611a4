// Speed of the calibrated cost model, which the engine calls once per iteration: one decode
// iteration of 256 sequences (contexts spread over 100..8000 tokens), Llama-3-8B on H100, and
// a mixed chunked-prefill iteration, the same batch again (GEMM cache hits) and with a new
// shape at every call (misses). Run: build/tests/cost_model_benchmark
#include <memory>

#include "benchmark/benchmark.h"
#include "calibration/profile_catalog.h"
#include "hardware/gpu_catalog.h"
#include "models/model_catalog.h"
#include "sim/core/cost/calibrated_cost_model.h"

namespace infergrid {
namespace {

std::unique_ptr<CalibratedCostModel> Llama3OnH100(int tensor_parallel) {
  const GpuSpec gpu = *ResolveGpu("h100-sxm");
  CalibratedCostOptions options;
  options.kernels.tensor_parallel = tensor_parallel;
  return std::move(
      *CalibratedCostModel::Create(*ResolveModel("llama-3-8b"), gpu, *ResolveCalibration(gpu, ""), options));
}

void BM_Decode256(benchmark::State& state) {
  const auto model = Llama3OnH100(static_cast<int>(state.range(0)));
  BatchShape batch;
  for (int i = 0; i < 256; ++i) batch.decode_context_tokens.push_back(100 + 31 * i);
  for (auto _ : state) benchmark::DoNotOptimize(model->Cost(batch).duration_s);
}
BENCHMARK(BM_Decode256)->Arg(1)->Arg(4);

void BM_MixedChunkedPrefill(benchmark::State& state) {
  const auto model = Llama3OnH100(1);
  BatchShape batch;
  batch.prefill = {{512, 0}, {512, 3072}};
  for (int i = 0; i < 200; ++i) batch.decode_context_tokens.push_back(500 + 17 * i);
  for (auto _ : state) benchmark::DoNotOptimize(model->Cost(batch).duration_s);
}
BENCHMARK(BM_MixedChunkedPrefill);

// The same mix with a different chunk length at every call (1..4096 new tokens), so every
// GEMM has a row count the per-thread GEMM cache has not seen: the cost of a miss.
void BM_MixedChunkedPrefillNewShapeEachCall(benchmark::State& state) {
  const auto model = Llama3OnH100(1);
  BatchShape batch;
  batch.prefill = {{512, 0}, {1, 3072}};
  for (int i = 0; i < 200; ++i) batch.decode_context_tokens.push_back(500 + 17 * i);
  int64_t call = 0;
  for (auto _ : state) {
    batch.prefill[1].new_tokens = 1 + (call++ % 4096);
    benchmark::DoNotOptimize(model->Cost(batch).duration_s);
  }
}
BENCHMARK(BM_MixedChunkedPrefillNewShapeEachCall);

}  // namespace
}  // namespace infergrid

BENCHMARK_MAIN();
