// sim/core/cost/cost_model_factory.h: the cost model `simulate` builds from an engine personality:
// the all-reduce and kernel fusion each vLLM V1 version selects (custom one-shot and two-shot
// kernels, FlashInfer's all-reduce + add + RMSNorm, torch symmetric memory).

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/peer_all_reduce.h"
#include "sim/core/cost/cost_model_factory.h"
#include "sim/core/personality/personality_catalog.h"
#include "tests/cost_model_helpers.h"

namespace infergrid {
namespace {

// The all-reduce a decode step of Llama-2-70B at TP4 runs, per vLLM V1 version, through the
// personality as `simulate` builds the cost model. 22 sequences all-reduce 22 x 8192 x 2 B =
// 352 KiB per layer twice: 0.15 runs its custom one-shot kernel (below 512 KiB at TP4) and then
// the fused add + RMSNorm; 0.21 runs FlashInfer's all-reduce + add + RMSNorm as one kernel
// (one-shot below 2 MiB at TP4 on Hopper). 200 sequences (3.1 MiB) exceed that limit: 0.21 runs
// the custom two-shot all-reduce and a separate norm, as 0.15 does.
TEST(KernelFusion, DecodeStepAtTp4UsesTheAllReduceTheVersionSelects) {
  const auto request = [](const std::string& engine) {
    CostModelRequest r;
    r.kind = CostModelKind::kCalibrated;
    r.model = *ResolveModel("llama-2-70b");
    r.gpu = *ResolveGpu("h100-sxm");
    r.tensor_parallel = 4;
    r.kv = {DType::BF16, 16, KvBytesPerToken(r.model, DType::BF16) / 4, 1 << 20};
    r.execution = ResolveEnginePersonality(engine)->execution();
    r.engine = engine;
    return r;
  };
  const ExecutionModel v21 = ResolveEnginePersonality("vllm-v1@0.21")->execution();
  const PeerLink link{900e9 / 2 * v21.custom_all_reduce().nvlink_read_fraction(), v21.custom_all_reduce().fixed_s(),
                      ResolveGpu("h100-sxm")->hbm_bytes_per_s()};
  for (const int sequences : {22, 200}) {
    const double bytes = sequences * 8192 * 2.0;
    const BatchShape b = Decode(sequences, 700);
    absl::StatusOr<CostModelChoice> old_choice = MakeCostModel(request("vllm-v1@0.15"));
    absl::StatusOr<CostModelChoice> new_choice = MakeCostModel(request("vllm-v1@0.21"));
    ASSERT_TRUE(old_choice.ok()) << old_choice.status();
    ASSERT_TRUE(new_choice.ok()) << new_choice.status();
    const double custom =
        PeerAllReduceSeconds(sequences == 22 ? PeerAllReduce::kOneShot : PeerAllReduce::kTwoShot, 4, bytes, link, true);
    const double old_network = old_choice->model->Cost(b).network_s;
    const double new_network = new_choice->model->Cost(b).network_s;
    if (sequences == 22) {
      const double norm_s = (3 * bytes + 8192 * 2.0) / link.copy_bytes_per_s;
      const double fused = PeerAllReduceSeconds(PeerAllReduce::kOneShot, 4, bytes, link, true) + norm_s;
      // The embedding's all-reduce and the logits' all-gather are the same on both sides.
      EXPECT_NEAR(new_network - old_network, 160 * (fused - custom), 1e-12);
    } else {
      EXPECT_DOUBLE_EQ(new_network, old_network);
    }
  }
  // The kernels themselves: named as the fused kernel at 22 sequences on 0.21 only.
  IterationKernelOptions options;
  options.tensor_parallel = 4;
  options.fusion.add_rms_norm = true;
  options.fusion.allreduce_rms_norm_max_bytes = 2 << 20;
  IterationKernels kernels;
  IterationKernelBuilder::Create(*ResolveModel("llama-2-70b"), options)->Build(Decode(22, 700), &kernels);
  EXPECT_EQ(CountNamed(kernels, "attention_all_reduce_add_norm"), 80);
  EXPECT_EQ(CountNamed(kernels, "mlp_all_reduce_add_norm"), 80);
  EXPECT_EQ(CountNamed(kernels, "post_attention_norm") + CountNamed(kernels, "final_norm"), 0);
  EXPECT_EQ(CountNamed(kernels, "input_norm"), 1);  // the first layer's, before the layers
  IterationKernelBuilder::Create(*ResolveModel("llama-2-70b"), options)->Build(Decode(200, 700), &kernels);
  EXPECT_EQ(CountNamed(kernels, "attention_all_reduce"), 80);
  EXPECT_EQ(CountNamed(kernels, "attention_all_reduce_add_norm"), 0);
  EXPECT_EQ(CountNamed(kernels, "input_norm") + CountNamed(kernels, "post_attention_norm"), 160);
}

// Beside its custom kernel vLLM runs torch symmetric memory (VLLM_ALLREDUCE_USE_SYMM_MEM, on by
// default in the versions of vllm-v1@0.15): at TP8 on Hopper the custom kernel stops at 256 KiB
// and symmetric memory's multimem all-reduce takes the rest up to 64 MiB, so 32 decode sequences
// (512 KiB) run multimem where vllm-v1@0.11 runs the custom two-shot kernel; at TP4 a prefill of
// 640 tokens (10 MiB, above the custom kernel's 8 MiB) runs symmetric memory's two-shot where
// 0.11 runs NCCL. Symmetric memory copies its input into its buffer on every call.
TEST(AllReduce, SymmetricMemoryTakesTheMessagesBetweenTheCustomKernelAndNccl) {
  const auto network = [](const std::string& engine, int tp, const BatchShape& b) {
    CostModelRequest r;
    r.kind = CostModelKind::kCalibrated;
    r.model = *ResolveModel("llama-2-70b");
    r.gpu = *ResolveGpu("h100-sxm");
    r.tensor_parallel = tp;
    r.kv = {DType::BF16, 16, KvBytesPerToken(r.model, DType::BF16) / tp, 1 << 20};
    r.execution = ResolveEnginePersonality(engine)->execution();
    r.engine = engine;
    return MakeCostModel(r)->model->Cost(b).network_s;
  };
  const ExecutionModel v15 = ResolveEnginePersonality("vllm-v1@0.15")->execution();
  const GpuSpec gpu = *ResolveGpu("h100-sxm");
  const PeerLink link{gpu.nvlink_bytes_per_s() / 2 * v15.custom_all_reduce().nvlink_read_fraction(),
                      v15.custom_all_reduce().fixed_s(), gpu.hbm_bytes_per_s()};
  const double decode_bytes = 32 * 8192 * 2.0;
  const double multimem = PeerAllReduceSeconds(PeerAllReduce::kMultimem, 8, decode_bytes, link, false);
  const double custom = PeerAllReduceSeconds(PeerAllReduce::kTwoShot, 8, decode_bytes, link, true);
  EXPECT_NEAR(multimem, 7e-6 + decode_bytes / link.bytes_per_s + decode_bytes / link.copy_bytes_per_s, 1e-15);
  EXPECT_NEAR(network("vllm-v1@0.15", 8, Decode(32, 700)) - network("vllm-v1@0.11", 8, Decode(32, 700)),
              161 * (multimem - custom), 1e-12);

  BatchShape prefill;
  prefill.prefill.push_back({640, 0});
  const double prefill_bytes = 640 * 8192 * 2.0;
  const ResourceModel resources = *ResourceModel::Create(gpu, ResourcesOf(*ResolveCalibration(gpu, "")));
  const double nccl = resources.CollectiveSeconds(KernelKind::kAllReduce, 4, prefill_bytes);
  const double two_shot = PeerAllReduceSeconds(PeerAllReduce::kTwoShot, 4, prefill_bytes, link, false);
  EXPECT_LT(two_shot, nccl);
  EXPECT_NEAR(network("vllm-v1@0.15", 4, prefill) - network("vllm-v1@0.11", 4, prefill), 161 * (two_shot - nccl),
              1e-12);
}

}  // namespace
}  // namespace infergrid
