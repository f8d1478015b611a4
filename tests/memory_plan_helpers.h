// Helpers shared by the memory plan's test files (the memory_plan_test binary): catalog GPUs and
// weight formats, a request for an engine, its plan, and the five reference startup logs typed in
// (kv_capacity_reference.csv) with the request each of them ran.
#ifndef INFERGRID_TESTS_MEMORY_PLAN_HELPERS_H_
#define INFERGRID_TESTS_MEMORY_PLAN_HELPERS_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "base/dtype.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "sim/core/memory_plan/memory_plan.h"
#include "sim/core/memory_plan/memory_plan_detail.h"
#include "tests/catalog_model.h"

namespace infergrid {

inline constexpr double kGiB = 1073741824.0;

inline GpuSpec Gpu(const std::string& name) {
  absl::StatusOr<GpuSpec> gpu = ResolveGpu(name);
  EXPECT_TRUE(gpu.ok()) << gpu.status();
  return gpu.ok() ? *gpu : GpuSpec();
}

// The RTX 5090 of reference row TRT-02 (not in the catalog): 32,607 MiB, torch reads 31.84 GiB.
inline GpuSpec Rtx5090() {
  GpuSpec gpu;
  gpu.set_name("rtx-5090");
  gpu.set_display_name("NVIDIA GeForce RTX 5090");
  gpu.set_reported_name("NVIDIA GeForce RTX 5090");
  gpu.set_reported_total_mib(32607);
  gpu.set_framework_total_gib(31.84);
  gpu.mutable_tensor_peaks()->set_fp16_flops(209.5e12);
  gpu.set_hbm_bytes_per_s(1.792e12);
  return gpu;
}

inline WeightFormat Weights(const std::string& name) {
  absl::StatusOr<WeightFormat> format = ParseWeightFormat(name);
  EXPECT_TRUE(format.ok()) << format.status();
  return format.ok() ? *format : WeightFormat();
}

inline MemoryPlanRequest Request(const std::string& engine, const std::string& model, const std::string& weights,
                                 const GpuSpec& gpu, int tp = 1) {
  MemoryPlanRequest r;
  r.engine = engine;
  r.model = testing::CatalogModel(model);
  r.gpu = gpu;
  r.weights = Weights(weights);
  r.kv_dtype = DType::BF16;
  r.tensor_parallel = tp;
  r.block_size = 0;  // the engine's default
  return r;
}

inline MemoryPlanDetail Explain(const MemoryPlanRequest& request) {
  absl::StatusOr<MemoryPlanDetail> detail = ExplainEngineMemory(request);
  EXPECT_TRUE(detail.ok()) << detail.status();
  return detail.ok() ? *detail : MemoryPlanDetail();
}

// ---------------------------------------------------------------------------------------------
// The five reference startup logs, typed in (kv_capacity_reference.csv, see README).

struct ReferenceCase {
  const char* id;
  const char* engine;
  const char* model;
  const char* weights;
  DType kv_dtype;
  double total_gib;  // the total the engine read (its GPU); 0: the H100 catalog entry
  int tp;
  double fraction;
  int64_t max_model_len;  // 0: the model's
  int block_size;
  double logged_tokens;  // V0-01 logs GiB only: 53.29 GiB / 131,072 B
  double logged_weights_gib;
  double logged_activation_gib;  // < 0: not logged
  double logged_kv_gib;
};

inline const ReferenceCase kReference[] = {
    {"V19-01", "vllm-v1@0.19", "llama-3.1-8b", "bf16", DType::BF16, 79.19, 1, 0.95, 8192, 16, 476016, 14.99, 1.89,
     58.11},
    {"V19-14", "vllm-v1@0.19", "llama-3.3-70b", "fp8", DType::BF16, 79.19, 2, 0.95, 8192, 16, 244304, 33.88, 1.96,
     37.28},
    {"V0-01", "vllm-v0@0.6.5", "llama-3-8b", "bf16", DType::BF16, 79.22, 1, 0.90, 8192, 16, 53.29 * 8192, 14.96, 1.26,
     53.29},
    // SGLang's GPU is not printed: the H100 total is assumed (78.81 GiB free at load = 79.19 - 0.38).
    {"SG-01", "sglang@0.4.1", "llama-3.1-8b", "bf16", DType::BF16, 0, 1, 0.88, 131072, 1, 444500, 15.09, -1, 54.26},
    {"TRT-02", "trtllm@pytorch", "llama-3.1-8b", "fp8", DType::FP8_E4M3, 31.84, 1, 0.90, 0, 32, 263008, -1, -1, 16.05},
};

inline MemoryPlanRequest ReferenceRequest(const ReferenceCase& c) {
  GpuSpec gpu = c.total_gib == 31.84 ? Rtx5090() : Gpu("h100-sxm");
  if (c.total_gib > 0) gpu.set_framework_total_gib(c.total_gib);
  MemoryPlanRequest r = Request(c.engine, c.model, c.weights, gpu, c.tp);
  r.kv_dtype = c.kv_dtype;
  if (absl::StartsWith(c.engine, "vllm")) r.gpu_memory_utilization = c.fraction;
  if (absl::StartsWith(c.engine, "sglang")) r.mem_fraction_static = c.fraction;
  if (absl::StartsWith(c.engine, "trtllm")) r.free_gpu_memory_fraction = c.fraction;
  r.max_model_len = c.max_model_len;
  r.block_size = c.block_size;
  return r;
}

}  // namespace infergrid

#endif  // INFERGRID_TESTS_MEMORY_PLAN_HELPERS_H_
