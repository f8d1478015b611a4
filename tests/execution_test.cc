// How engines run iterations (sim/core/serving/execution_policy.h, sim/core/cost/host_time_model.h,
// sim/core/cost/execution_cost_model.h, the custom all-reduce in the calibrated model) and each
// personality's defining behaviour: padding to captured CUDA-graph sizes and eager fallback,
// synchronous host time adding to the step while overlapped host time hides under the GPU,
// output processing a step late, the engine's one-shot all-reduce beating NCCL on small
// messages, and the bundled host calibration's fit.
#include <random>
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "calibration/host_fit.h"
#include "calibration/host_profile.h"
#include "calibration/profile_catalog.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "hardware/launch_model.h"
#include "hardware/peer_all_reduce.h"
#include "models/model_catalog.h"
#include "models/kv_cache_size.h"
#include "sim/core/cost/calibrated_cost_model.h"
#include "sim/core/cost/cost_model_factory.h"
#include "sim/core/cost/execution_cost_model.h"
#include "sim/core/cost/roofline_cost_model.h"
#include "sim/core/personality/personality_catalog.h"
#include "sim/core/serving/execution_policy.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;

BatchShape Decode(int sequences, int64_t context = 1000) {
  BatchShape b;
  b.decode_context_tokens.assign(static_cast<size_t>(sequences), context);
  return b;
}

// ------------------------------------------------------------------ CUDA graphs

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

class CalibratedH100 : public ::testing::Test {
 protected:
  std::unique_ptr<CalibratedCostModel> Model(const CalibratedCostOptions& options, const char* model = "llama-3-8b") {
    const GpuSpec gpu = *ResolveGpu("h100-sxm");
    absl::StatusOr<std::unique_ptr<CalibratedCostModel>> m =
        CalibratedCostModel::Create(*ResolveModel(model), gpu, *ResolveCalibration(gpu, ""), options);
    EXPECT_TRUE(m.ok()) << m.status();
    return m.ok() ? *std::move(m) : nullptr;
  }
};

TEST_F(CalibratedH100, PaddingRowsCostLinearWorkAndEagerCostsLaunches) {
  auto model = Model({});
  BatchShape b = Decode(5);
  const double exact = model->Cost(b).duration_s;
  b.padding_rows = 59;  // up to 64
  const double padded = model->Cost(b).duration_s;
  EXPECT_GT(padded, exact);
  // A small model's step is shorter than the host's issue of its kernels: eager costs more,
  // piecewise (attention issued by the host) in between.
  auto small = Model({}, "qwen2.5-0.5b");
  b.padding_rows = 0;
  const double graph = small->Cost(b).duration_s;
  b.launch = LaunchMode::kEager;
  const double eager = small->Cost(b).duration_s;
  EXPECT_GT(eager, graph);
  b.launch = LaunchMode::kPiecewise;
  const double piecewise = small->Cost(b).duration_s;
  EXPECT_GE(piecewise, graph);
  EXPECT_LT(piecewise, eager);
}

// vLLM's custom all-reduce at TP4: one-shot below 512 KiB. A decode step of 8 sequences
// all-reduces 8 x 8192 x 2 B = 128 KiB per layer twice: the one-shot kernel beats NCCL's
// small-message floor (23-36 us at TP8, microbenchmarks.csv F41).
TEST_F(CalibratedH100, CustomAllReduceBeatsNcclOnSmallMessages) {
  CalibratedCostOptions nccl;
  nccl.kernels.tensor_parallel = 4;
  CalibratedCostOptions custom = nccl;
  custom.custom_all_reduce.enabled = true;
  custom.custom_all_reduce.max_bytes = 8 << 20;
  custom.custom_all_reduce.one_shot_below = {{2, 8 << 20}, {4, 512 << 10}, {8, 256 << 10}};
  custom.custom_all_reduce.link = {450e9 * 0.83, 7e-6, 3.35e12};
  const BatchShape b = Decode(8);
  const IterationCost with_nccl = Model(nccl, "llama-3-70b")->Cost(b);
  const std::unique_ptr<CalibratedCostModel> model = Model(custom, "llama-3-70b");
  const IterationCost with_custom = model->Cost(b);
  EXPECT_LT(with_custom.network_s, 0.6 * with_nccl.network_s);
  EXPECT_LT(with_custom.duration_s, with_nccl.duration_s);
  // 2 x 80 layers + the embedding's all-reduce of 128 KiB, one-shot: 7 us + 3 x 128 KiB /
  // 373.5 GB/s each; the logits' all-gather stays on NCCL.
  const PeerLink link = custom.custom_all_reduce.link;
  const double gather = model->resources().CollectiveSeconds(KernelKind::kAllGather, 4, 8 * (128256 / 4) * 2.0);
  EXPECT_NEAR(with_custom.network_s,
              161 * PeerAllReduceSeconds(PeerAllReduce::kOneShot, 4, 8 * 8192 * 2, link, true) + gather, 1e-9);
}

// ------------------------------------------------------------------ kernel fusion

int CountNamed(const IterationKernels& kernels, absl::string_view name) {
  int n = 0;
  for (const Kernel& k : kernels) n += k.name == name ? k.repeat : 0;
  return n;
}

const Kernel* Named(const IterationKernels& kernels, absl::string_view name) {
  for (const Kernel& k : kernels) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

// vLLM V1 (torch.compile) runs the residual add inside the RMSNorm after it: a layer loses its two
// add kernels, and each norm is one kernel that reads and writes the residual beside the hidden
// state, priced as one kernel (one fixed cost, one launch).
TEST_F(CalibratedH100, FusedAddRmsNormIsOneKernel) {
  CalibratedCostOptions plain;
  CalibratedCostOptions fused;
  fused.kernels.fusion.add_rms_norm = true;
  const BatchShape b = Decode(8, 700);
  const ModelSpec llama = *ResolveModel("llama-2-7b");
  IterationKernels unfused_list, fused_list;
  IterationKernelBuilder::Create(llama, plain.kernels)->Build(b, &unfused_list);
  IterationKernelBuilder::Create(llama, fused.kernels)->Build(b, &fused_list);
  EXPECT_EQ(CountNamed(unfused_list, "residual_add") + CountNamed(unfused_list, "mlp_residual_add"), 64);
  EXPECT_EQ(CountNamed(fused_list, "residual_add") + CountNamed(fused_list, "mlp_residual_add"), 0);
  const Kernel& norm = *Named(fused_list, "post_attention_norm");
  const double hidden = 8 * 4096 * 2.0;
  EXPECT_DOUBLE_EQ(norm.hbm_bytes, 4 * hidden + 4096 * 2.0);  // hidden + residual in, both out, weight
  EXPECT_EQ(norm.repeat, 32);

  const std::unique_ptr<CalibratedCostModel> a = Model(plain, "llama-2-7b");
  const std::unique_ptr<CalibratedCostModel> f = Model(fused, "llama-2-7b");
  const IterationCost without = a->Cost(b), with = f->Cost(b);
  EXPECT_EQ(without.kernel_launches - with.kernel_launches, 64);
  // The step loses the adds' own times and gaps and pays only the 65 fused norms' extra bytes
  // (32 input, 32 post-attention and the final norm): one fixed cost each, not two.
  const KernelTime fused_norm = f->resources().Time(norm);
  const KernelTime plain_norm = a->resources().Time(*Named(unfused_list, "post_attention_norm"));
  const double add_s = a->resources().Time(*Named(unfused_list, "residual_add")).seconds;
  EXPECT_LT(fused_norm.seconds, plain_norm.seconds + add_s);
  EXPECT_NEAR(without.duration_s - with.duration_s,
              64 * (add_s + a->resources().launch_graph_s()) - 65 * (fused_norm.seconds - plain_norm.seconds), 1e-12);
}

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

// Eager, a kernel starts once the host has issued it: kernels longer than the issue time keep
// the GPU busy, shorter ones leave it waiting. One kernel before the layers, two per layer
// (the second an attention kernel), one after; 3 layers.
TEST(LaunchModel, KernelsWaitForTheirLaunch) {
  IterationKernels k;
  const auto add = [&](KernelKind kind, int32_t repeat) {
    Kernel& x = k.Add();
    x.kind = kind;
    x.repeat = repeat;
  };
  add(KernelKind::kEmbedding, 1);
  add(KernelKind::kGemm, 3);
  add(KernelKind::kAttentionDecode, 3);
  add(KernelKind::kSampler, 1);
  const double seconds[] = {1e-6, 20e-6, 2e-6, 1e-6};
  const LaunchCosts costs{0, 10e-6};
  EXPECT_DOUBLE_EQ(LaunchedSeconds(k, seconds, LaunchMode::kGraph, costs), 1e-6 + 3 * 22e-6 + 1e-6);
  // Issued at 10, 20, 30, ... us: the embedding ends at 11; GEMM 1 runs 20-40, attention 1
  // waits for nothing (issued at 30) and ends at 42; GEMM 2 42-62, attention 62-64, GEMM 3
  // 64-84, attention 84-86; the sampler, issued at 80, ends at 87.
  EXPECT_NEAR(LaunchedSeconds(k, seconds, LaunchMode::kEager, costs), 87e-6, 1e-12);
  // Piecewise: the host launches each piece and each attention kernel. The first piece holds
  // the embedding and GEMM 1 (10-31), attention 1 (issued at 20) 31-33, piece 2 33-53,
  // attention 53-55, piece 3 55-75, attention 75-77, the last piece (the sampler) 77-78.
  EXPECT_NEAR(LaunchedSeconds(k, seconds, LaunchMode::kPiecewise, costs), 78e-6, 1e-12);
  const double short_kernels[] = {1e-6, 1e-6, 1e-6, 1e-6};
  EXPECT_NEAR(LaunchedSeconds(k, short_kernels, LaunchMode::kEager, costs), 8 * 10e-6 + 1e-6, 1e-12);
}

// The launch model walked kernel by kernel through every layer, as its header defines it.
double LaunchedSecondsKernelByKernel(const IterationKernels& kernels, const double* seconds, LaunchMode launch,
                                     const LaunchCosts& costs) {
  double host = 0, end = 0;
  bool in_piece = false;
  const auto run = [&](const Kernel& k, double s) {
    const bool attention = k.kind == KernelKind::kAttentionPrefill || k.kind == KernelKind::kAttentionDecode;
    const bool launched = launch == LaunchMode::kEager || attention || !in_piece;
    in_piece = launch == LaunchMode::kPiecewise && !attention;
    if (launched) {
      host += costs.eager_issue_s;
      end = std::max(end + costs.graph_gap_s, host) + s;
    } else {
      end += costs.graph_gap_s + s;
    }
  };
  const Kernel* first = kernels.begin();
  const Kernel* body = first;
  while (body != kernels.end() && body->repeat <= 1) ++body;
  const Kernel* after = body;
  while (after != kernels.end() && after->repeat > 1) ++after;
  for (const Kernel* k = first; k != body; ++k) run(*k, seconds[k - first]);
  for (int32_t l = 0; body != kernels.end() && l < body->repeat; ++l) {
    for (const Kernel* k = body; k != after; ++k) run(*k, seconds[k - first]);
  }
  for (const Kernel* k = after; k != kernels.end(); ++k) run(*k, seconds[k - first]);
  return end;
}

// The layers' launches are worked out once per call; the result is the kernel-by-kernel walk's,
// bit for bit, for random lists (attention anywhere, pieces of any length, host- or GPU-bound).
TEST(LaunchModel, EqualsTheKernelByKernelWalk) {
  std::mt19937_64 rng(5);
  const KernelKind kinds[] = {KernelKind::kGemm, KernelKind::kAttentionDecode, KernelKind::kAttentionPrefill,
                              KernelKind::kNorm, KernelKind::kAllReduce};
  for (int trial = 0; trial < 2000; ++trial) {
    IterationKernels k;
    const int before = static_cast<int>(rng() % 3), layer = 1 + static_cast<int>(rng() % 12),
              after = static_cast<int>(rng() % 3);
    const auto layers = static_cast<int32_t>(2 + rng() % 40);
    std::vector<double> seconds;
    for (int i = 0; i < before + layer + after; ++i) {
      Kernel& x = k.Add();
      x.kind = kinds[rng() % 5];
      x.repeat = i >= before && i < before + layer ? layers : 1;
      seconds.push_back(std::ldexp(static_cast<double>(rng() % 1000 + 1), -20 - static_cast<int>(rng() % 8)));
    }
    const LaunchCosts costs{std::ldexp(static_cast<double>(rng() % 100), -30),
                            std::ldexp(static_cast<double>(rng() % 100 + 1), -22)};
    for (const LaunchMode mode : {LaunchMode::kEager, LaunchMode::kPiecewise}) {
      ASSERT_EQ(LaunchedSeconds(k, seconds.data(), mode, costs),
                LaunchedSecondsKernelByKernel(k, seconds.data(), mode, costs))
          << "trial " << trial;
    }
  }
}

TEST(PeerAllReduce, OneShotAndTwoShotCosts) {
  const PeerLink link{100e9, 5e-6, 1e12};
  EXPECT_DOUBLE_EQ(PeerAllReduceSeconds(PeerAllReduce::kOneShot, 4, 1e6, link, true), 5e-6 + 3 * 1e6 / 100e9);
  EXPECT_DOUBLE_EQ(PeerAllReduceSeconds(PeerAllReduce::kTwoShot, 4, 1e6, link, true),
                   2 * 5e-6 + 2 * 0.75 * 1e6 / 100e9);
  // Eager: the input is first copied into the registered buffer.
  EXPECT_DOUBLE_EQ(PeerAllReduceSeconds(PeerAllReduce::kOneShot, 4, 1e6, link, false),
                   5e-6 + 3 * 1e6 / 100e9 + 1e6 / 1e12);
  EXPECT_EQ(PeerAllReduceSeconds(PeerAllReduce::kOneShot, 1, 1e6, link, true), 0);
}

// ------------------------------------------------------------------ host time

HostCalibration Calibration() {
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

std::unique_ptr<IterationCostModel> Gpu() {
  RooflineCostOptions options;
  options.weight_bytes = 16e9;
  options.kv_bytes_per_token = 131072;
  options.active_parameters = 8e9;
  return std::make_unique<RooflineCostModel>(*ResolveModel("llama-3-8b"), *ResolveGpu("h100-sxm"), options);
}

IterationCost WithHost(const std::string& engine, const BatchShape& b, HostTimeOptions options = {}) {
  absl::StatusOr<HostTimeModel> host = HostTimeModel::Create(Execution(engine), Calibration(), options);
  EXPECT_TRUE(host.ok()) << host.status();
  return ExecutionCostModel(Gpu(), *std::move(host), engine).Cost(b);
}

// vLLM 0.5: every phase on the critical path. 8 sequences: 5 x 10 us x 8 + 1,050 us.
TEST(HostTime, SynchronousEngineAddsEveryPhaseToTheStep) {
  const BatchShape b = Decode(8);
  const double gpu = Gpu()->Cost(b).duration_s;
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
  const double gpu = Gpu()->Cost(b).duration_s;
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

// The bundled fit (calibration/host_profiles/vllm-legacy-a100.textproto): scheduling grows
// ~14 us per sequence; preparing inputs costs ~0.46 ms more with workers to feed (TP > 1);
// sampling grows with the vocabulary (~8 us per sequence per 100K entries), the term that took
// its held-out error from 31% to 19% and the whole step's from 11.4% to 7.3%.
TEST(HostTime, BundledCalibrationIsTheFitOfTheLegacyTable) {
  const HostCalibration h = *ResolveHostCalibration("vllm-legacy-a100");
  const HostPhase* schedule = FindHostPhase(h, "schedule");
  const HostPhase* prepare = FindHostPhase(h, "prepare_inputs");
  ASSERT_NE(schedule, nullptr);
  ASSERT_NE(prepare, nullptr);
  EXPECT_NEAR(schedule->per_sequence_s() * 1e6, 14.2, 0.1);
  EXPECT_NEAR(prepare->tensor_parallel_s() * 1e6, 458, 1);
  EXPECT_LT(h.step_held_out_mape(), 0.08);
  EXPECT_NEAR(HostPhaseSeconds(*schedule, 8, 1, 32000), schedule->base_s() + 8 * schedule->per_sequence_s(), 1e-15);
  const HostPhase* sample = FindHostPhase(h, "sample");
  ASSERT_NE(sample, nullptr);
  EXPECT_NEAR(sample->per_sequence_vocab_s() * 1e11, 8.0, 0.1);
  EXPECT_LT(sample->held_out_mape(), 0.2);
  // The rows' mean vocabulary; 13 rows a model: (3 x 32,000 + 51,200 + 103,168 + 152,064) / 6.
  EXPECT_NEAR(h.reference_vocab_size(), (3 * 32000 + 51200 + 103168 + 152064) / 6.0, 1e-6);
}

// A model whose vocabulary the fit does not know is refused with its line, not fitted without.
TEST(HostTime, FitRefusesAModelWhoseVocabularyIsUnknown) {
  const std::string csv =
      ",schedule_mean,sampler_e2e_mean,prepare_inputs_e2e_mean,model_execution_launch_mean,"
      "process_model_outputs_mean,model_name,batch_size,tensor_parallel_degree\n"
      "0,0.1,0.5,0.3,0.1,0.2,meta-llama/Llama-2-7b-hf,8,1\n"
      "1,0.1,0.5,0.3,0.1,0.2,acme/unknown-7b,8,1\n";
  const absl::StatusOr<std::vector<HostOverheadRow>> rows = ParseHostOverheadsCsv(csv, "t.csv");
  ASSERT_FALSE(rows.ok());
  EXPECT_THAT(rows.status().message(), ::testing::HasSubstr("t.csv:3: model 'acme/unknown-7b'"));
}

}  // namespace
}  // namespace infergrid
