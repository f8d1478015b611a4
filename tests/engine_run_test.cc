// sim/core/engine/simulation.h: a run in this process reporting its progress through the
// callback and finishing once (one SimGrid engine per process: ctest runs it in its own; the
// forked runs of every engine are in simulation_test.cc).
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "sim/core/engine/run_progress.h"
#include "sim/core/engine/simulation.h"
#include "traces/request.h"

namespace infergrid {
namespace {

class FlatCostModel final : public IterationCostModel {
 public:
  IterationCost Cost(const BatchShape& batch) const override {
    IterationCost cost;
    cost.duration_s = 1e-3 + 1e-6 * static_cast<double>(batch.TotalNewTokens());
    cost.hbm_bytes = 1e9;
    cost.binding = Resource::kHbm;
    return cost;
  }
  absl::string_view Description() const override { return "flat test model"; }
};

// One engine per process: ctest runs this test in its own.
TEST(EngineRun, ReportsProgressThroughTheCallbackAndFinishesOnce) {
  EngineConfig config;
  config.limits = {.max_num_seqs = 64, .max_num_batched_tokens = 4096};
  config.blocks = {.num_gpu_blocks = 2000, .block_size = 16, .watermark = 0.01};
  config.max_model_len = 4096;
  config.kv_bytes_per_token = 131072;
  std::vector<RunProgress> reports;
  config.on_progress = [&reports](const RunProgress& p) { reports.push_back(p); };
  std::vector<Request> requests;
  for (int i = 0; i < 600; ++i) {
    Request r;
    r.id = i;
    r.arrival_s = 0.01 * i;
    r.input_tokens = 50;
    r.output_tokens = 5;
    requests.push_back(r);
  }
  VectorRequestSource source(requests);
  FlatCostModel cost;
  absl::StatusOr<SimulationResult> result = RunSimulation(config, *ResolveGpu("h100-sxm"), cost, source, nullptr);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_GE(reports.size(), 2u);  // 600 arrivals alone make two reports, then the finish
  for (size_t i = 0; i + 1 < reports.size(); ++i) EXPECT_FALSE(reports[i].finished);
  const RunProgress& last = reports.back();
  EXPECT_TRUE(last.finished);
  EXPECT_EQ(last.arrived, 600);
  EXPECT_EQ(last.iterations, result->stats.iterations);
  EXPECT_EQ(result->log.records().size(), 600u);
}

}  // namespace
}  // namespace infergrid
