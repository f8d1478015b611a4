// A memory-plan request for tests: a catalog model and GPU in bf16 at the engine's default
// block size. A failed GPU lookup fails the running test.
#ifndef INFERGRID_TESTS_MEMORY_PLAN_REQUEST_H_
#define INFERGRID_TESTS_MEMORY_PLAN_REQUEST_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "sim/core/memory_plan/memory_plan.h"
#include "tests/catalog_model.h"

namespace infergrid::testing {

// Without `engine`, the request's default engine.
inline MemoryPlanRequest Deployment(const char* model, const char* gpu, int tensor_parallel, int64_t max_model_len,
                                    const char* engine = nullptr) {
  MemoryPlanRequest r;
  r.model = CatalogModel(model);
  absl::StatusOr<GpuSpec> spec = ResolveGpu(gpu);
  EXPECT_TRUE(spec.ok()) << spec.status();
  if (spec.ok()) r.gpu = *spec;
  r.weights = WeightFormat();
  r.tensor_parallel = tensor_parallel;
  r.max_model_len = max_model_len;
  r.block_size = 0;
  if (engine != nullptr) r.engine = engine;
  return r;
}

}  // namespace infergrid::testing

#endif  // INFERGRID_TESTS_MEMORY_PLAN_REQUEST_H_
