// sim/core/cost/host_time_model.h (through sim/core/cost/execution_cost_model.h): each
// personality's host time around the GPU's: synchronous host time adding to the step while
// overlapped host time hides under the GPU, output processing a step late, multi-step, and every
// personality naming phases of the bundled host calibration.

#include <memory>
#include <string>
#include <utility>

#include "calibration/host_profile.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "models/model_catalog.h"
#include "sim/core/cost/execution_cost_model.h"
#include "sim/core/cost/host_time_model.h"
#include "sim/core/cost/roofline_cost_model.h"
#include "sim/core/personality/personality_catalog.h"
#include "tests/cost_model_helpers.h"

namespace infergrid {
namespace {

HostCalibration TestHostCalibration() {
  HostCalibration h;
  h.set_name("test");
  const std::pair<const char*, double> phases[] = {{"schedule", 100e-6},
                                                   {"prepare_inputs", 200e-6},
                                                   {"launch", 50e-6},
                                                   {"sample", 300e-6},
                                                   {"process_outputs", 400e-6}};
  for (const auto& [name, base] : phases) {
    HostPhase& p = *h.add_phases();
    p.set_name(name);
    p.set_base_s(base);
    p.set_per_sequence_s(10e-6);
  }
  h.mutable_phases(1)->set_tensor_parallel_s(500e-6);
  h.mutable_phases(3)->set_per_sequence_vocab_s(1e-10);  // sample: 1 us per sequence per 10K entries
  h.set_reference_vocab_size(0);
  return h;
}

ExecutionModel Execution(const std::string& engine) {
  absl::StatusOr<EnginePersonality> p = ResolveEnginePersonality(engine);
  EXPECT_TRUE(p.ok()) << p.status();
  return p->execution();
}

std::unique_ptr<IterationCostModel> RooflineGpu() {
  RooflineCostOptions options;
  options.weight_bytes = 16e9;
  options.kv_bytes_per_token = 131072;
  options.active_parameters = 8e9;
  return std::make_unique<RooflineCostModel>(*ResolveModel("llama-3-8b"), *ResolveGpu("h100-sxm"), options);
}

IterationCost WithHost(const std::string& engine, const BatchShape& b, HostTimeOptions options = {}) {
  absl::StatusOr<HostTimeModel> host = HostTimeModel::Create(Execution(engine), TestHostCalibration(), options);
  EXPECT_TRUE(host.ok()) << host.status();
  return ExecutionCostModel(RooflineGpu(), *std::move(host), engine).Cost(b);
}

// vLLM 0.5: every phase on the critical path. 8 sequences: 5 x 10 us x 8 + 1,050 us.
TEST(HostTime, SynchronousEngineAddsEveryPhaseToTheStep) {
  const BatchShape b = Decode(8);
  const double gpu = RooflineGpu()->Cost(b).duration_s;
  const IterationCost c = WithHost("vllm-v0@0.5.3", b);
  EXPECT_NEAR(c.duration_s - gpu, 1050e-6 + 5 * 80e-6, 1e-12);
  EXPECT_NEAR(c.host_s, 1450e-6, 1e-12);
  EXPECT_EQ(c.output_delay_s, 0);
  // TP > 1 adds the broadcast term of preparing inputs; a host twice as fast halves it all.
  EXPECT_NEAR(WithHost("vllm-v0@0.5.3", b, {.tensor_parallel = 2}).host_s, 1950e-6, 1e-12);
  EXPECT_NEAR(WithHost("vllm-v0@0.5.3", b, {.tensor_parallel = 1, .host_speed = 2}).host_s, 725e-6, 1e-12);
}

// vLLM 0.6: output processing hides under the next forward; its tokens leave that much later.
TEST(HostTime, AsyncOutputProcessingHidesUnderTheNextStep) {
  const BatchShape b = Decode(8);
  const IterationCost async = WithHost("vllm-v0@0.6.5", b);
  EXPECT_NEAR(async.host_s, 1450e-6 - 480e-6, 1e-12);
  EXPECT_NEAR(async.host_hidden_s, 480e-6, 1e-12);
  EXPECT_NEAR(async.output_delay_s, 480e-6, 1e-12);
  // --disable-async-output-proc puts it back on the critical path.
  const IterationCost sync = WithHost("vllm-v0@0.6.5", b, {.tensor_parallel = 1, .host_speed = 1, .overlap = false});
  EXPECT_NEAR(sync.host_s, 1450e-6, 1e-12);
  EXPECT_EQ(sync.output_delay_s, 0);
}

// SGLang's overlap scheduler: the host works under the GPU; only the launch stays in front.
// When the host is slower than the GPU, the step takes the host's time and binds on it.
TEST(HostTime, OverlapSchedulerHidesTheHostUntilItIsTheSlowerSide) {
  const BatchShape b = Decode(8);
  const double gpu = RooflineGpu()->Cost(b).duration_s;
  const IterationCost fast = WithHost("sglang", b);
  EXPECT_NEAR(fast.duration_s, gpu + 130e-6, 1e-12);  // launch: 50 + 8 x 10 us
  EXPECT_NE(fast.binding, Resource::kHost);
  const IterationCost slow = WithHost("sglang", b, {.tensor_parallel = 1, .host_speed = 0.1});
  const double hidden = (1450e-6 - 130e-6) / 0.1;
  EXPECT_NEAR(slow.duration_s, 130e-6 / 0.1 + hidden, 1e-9);
  EXPECT_EQ(slow.binding, Resource::kHost);
}

// TensorRT-LLM's PyTorch backend schedules in the C++ batch manager (bound to Python), so its
// schedule phase costs a tenth of the fitted Python one; the other phases are Python and cost
// in full. Overlap off, all five land on the step: 0.1 x 180 + 280 + 130 + 380 + 480 us.
TEST(HostTime, TrtllmPytorchSchedulesInCpp) {
  const BatchShape b = Decode(8);
  const IterationCost c = WithHost("trtllm@pytorch", b, {.tensor_parallel = 1, .host_speed = 1, .overlap = false});
  EXPECT_NEAR(c.host_s, 18e-6 + 280e-6 + 130e-6 + 380e-6 + 480e-6, 1e-12);
  // TensorRT-LLM 0.14's C++ executor runs every phase at half the fitted Python cost, on the
  // step's critical path (fitted on serving_under_load.csv's H100 rows at QPS <= 8).
  const IterationCost cpp = WithHost("trtllm@cpp", b, {.tensor_parallel = 1, .host_speed = 1, .overlap = true});
  EXPECT_NEAR(cpp.host_s, 0.5 * 1450e-6, 1e-12);
  EXPECT_EQ(cpp.host_hidden_s, 0);
}

// vLLM V0 samples with torch over the whole vocabulary: its sample phase grows with the model's
// vocabulary, 8 sequences x 1e-10 s x 128,256 entries; an engine whose sampler has no published
// cost per entry (SGLang) takes the term at the calibration's reference vocabulary.
TEST(HostTime, TorchSamplingGrowsWithTheVocabulary) {
  const BatchShape b = Decode(8);
  const double small = WithHost("vllm-v0@0.5.3", b, {.vocab_size = 0}).host_s;
  EXPECT_NEAR(WithHost("vllm-v0@0.5.3", b, {.vocab_size = 128256}).host_s - small, 8 * 1e-10 * 128256, 1e-12);
  BatchShape fast = b;
  const double sglang = WithHost("sglang", fast, {.host_speed = 0.1, .vocab_size = 0}).duration_s;
  EXPECT_EQ(WithHost("sglang", fast, {.host_speed = 0.1, .vocab_size = 128256}).duration_s, sglang);
}

// vLLM 0.6 multi-step leaves the sampled ids on the GPU (skip_sampler_cpu_output) and
// pythonizes them in the output callback under the next step: the sample phase's per-sequence
// cost (8 x 10 us) leaves the critical path; its base and vocabulary term stay.
TEST(HostTime, MultiStepPythonizesTheSamplesUnderTheNextStep) {
  const BatchShape b = Decode(8);
  const HostTimeOptions single = {.vocab_size = 128256};
  const HostTimeOptions multi = {.vocab_size = 128256, .multi_step = true};
  const IterationCost one = WithHost("vllm-v0@0.6.5", b, single);
  const IterationCost many = WithHost("vllm-v0@0.6.5", b, multi);
  EXPECT_NEAR(one.host_s - many.host_s, 80e-6, 1e-12);
  EXPECT_NEAR(many.host_hidden_s - one.host_hidden_s, 80e-6, 1e-12);
  // vLLM 0.5 has no multi-step runner: nothing moves.
  EXPECT_EQ(WithHost("vllm-v0@0.5.3", b, multi).host_s, WithHost("vllm-v0@0.5.3", b, single).host_s);
}

// Multi-step: the scheduler and input preparation run once per group.
TEST(HostTime, MultiStepSchedulesOncePerGroup) {
  BatchShape b = Decode(8);
  const double first = WithHost("vllm-v0@0.6.5", b).host_s;
  b.schedules = false;
  EXPECT_NEAR(first - WithHost("vllm-v0@0.6.5", b).host_s, 180e-6 + 280e-6, 1e-12);
}

TEST(HostTime, EveryPersonalityNamesPhasesOfTheBundledCalibration) {
  absl::StatusOr<HostCalibration> bundled = ResolveHostCalibration("vllm-legacy-a100");
  ASSERT_TRUE(bundled.ok()) << bundled.status();
  for (const std::string& name : EnginePersonalityNames()) {
    const ExecutionModel x = Execution(name);
    EXPECT_EQ(x.host_calibration(), "vllm-legacy-a100") << name;
    EXPECT_TRUE(HostTimeModel::Create(x, *bundled, {}).ok()) << name;
    EXPECT_GT(x.cuda_graphs().sizes_size(), 0) << name;
    EXPECT_NE(x.batch_policy(), BATCH_POLICY_UNSPECIFIED) << name;
  }
  HostCalibration missing = *bundled;
  missing.mutable_phases()->RemoveLast();
  EXPECT_THAT(HostTimeModel::Create(Execution("vllm-v1"), missing, {}).status().message(),
              ::testing::HasSubstr("process_outputs"));
}

}  // namespace
}  // namespace infergrid
