// sim/core/cost/calibrated_cost_model.h: a step priced from the bundled profile, the per-thread
// memo against fresh prices, a compute-bound prefill; CUDA-graph padding rows and eager launches,
// the engine's custom one-shot all-reduce beating NCCL on small messages, the fused add + RMSNorm.

#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/peer_all_reduce.h"
#include "tests/cost_model_helpers.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

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

const Kernel* Named(const IterationKernels& kernels, absl::string_view name) {
  for (const Kernel& k : kernels) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

TEST(CalibratedCostModel, Llama3DecodeStepOnH100) {
  const GpuSpec h100 = Gpu("h100-sxm");
  absl::StatusOr<Calibration> p = ResolveCalibration(h100, "");
  ASSERT_TRUE(p.ok());
  CalibratedCostOptions options;
  auto graphs = CalibratedCostModel::Create(Model("llama-3-8b"), h100, *p, options);
  ASSERT_TRUE(graphs.ok()) << graphs.status();
  options.cuda_graphs = false;
  auto eager = CalibratedCostModel::Create(Model("llama-3-8b"), h100, *p, options);
  const IterationCost c = (*graphs)->Cost(Decode(1, 136));
  // Weights (15.0 GiB read) at the fitted streaming rate, plus ~13 small kernels per layer.
  EXPECT_GT(c.duration_s, 5.5e-3);
  EXPECT_LT(c.duration_s, 8.0e-3);
  EXPECT_EQ(c.binding, Resource::kHbm);
  EXPECT_GT(c.hbm_fraction(), 0.6);
  EXPECT_LT(c.compute_fraction(), 0.01);
  EXPECT_GE(c.hbm_bound_s, 0);
  // Eager is never faster; with Llama-3-8B's long GEMMs the host keeps ahead of the GPU.
  EXPECT_GE((*eager)->Cost(Decode(1, 136)).duration_s, c.duration_s);
  // A small model's kernels are shorter than the host's issue time: eager is host-bound.
  CalibratedCostOptions small_eager;
  small_eager.cuda_graphs = false;
  auto qwen_graphs = CalibratedCostModel::Create(Model("qwen2.5-0.5b"), h100, *p, {});
  auto qwen_eager = CalibratedCostModel::Create(Model("qwen2.5-0.5b"), h100, *p, small_eager);
  const IterationCost q = (*qwen_eager)->Cost(Decode(1, 136));
  EXPECT_GT(q.duration_s, (*qwen_graphs)->Cost(Decode(1, 136)).duration_s);
  // The host issues every kernel, so the step takes at least the issue time of all of them, and
  // the GPU work left after the last launch (the last kernel at least) comes on top of it.
  const double issue_s = static_cast<double>(q.kernel_launches) * p->launch().eager_s();
  EXPECT_GT(q.duration_s, issue_s);
  EXPECT_LT(q.duration_s, issue_s + (*qwen_graphs)->Cost(Decode(1, 136)).duration_s);
  EXPECT_EQ(q.binding, Resource::kOverhead);
  EXPECT_EQ(c.duration_s, (*graphs)->Cost(Decode(1, 136)).duration_s);  // deterministic
  // More sequences cost more, and long contexts cost more than short ones.
  EXPECT_GT((*graphs)->Cost(Decode(64, 136)).duration_s, c.duration_s);
  EXPECT_GT((*graphs)->Cost(Decode(64, 8192)).duration_s, (*graphs)->Cost(Decode(64, 136)).duration_s);
  EXPECT_EQ((*graphs)->Cost(BatchShape{}).duration_s, 0);
}

// Consecutive prices go through the per-thread memo (a decode batch of the same count, padding
// and launch rebuilds and times only its attention kernels; other batches reuse the time of
// every kernel equal to the last one in its slot). They must equal, bit for bit, the prices of
// the same batches with the memo emptied before each (another model priced in between): dense,
// sliding-window, chunked-local, linear-attention and latent-attention models, graphs, eager
// and piecewise launches, padding rows and prefills in between.
TEST(CalibratedCostModel, MemoGivesExactlyTheFreshPrice) {
  const GpuSpec h100 = Gpu("h100-sxm");
  absl::StatusOr<Calibration> p = ResolveCalibration(h100, "");
  ASSERT_TRUE(p.ok());
  std::vector<BatchShape> batches;
  for (int step = 0; step < 4; ++step) batches.push_back(DecodeOf({100 + step, 4000 + step, 17 + step}));
  batches.push_back(DecodeOf({104, 4004, 21}, 5));  // same count, graph padding
  batches.push_back(DecodeOf({105, 4005, 22}, 5, LaunchMode::kEager));  // same count, eager
  batches.push_back(DecodeOf({106, 4006, 23}, 5, LaunchMode::kEager));
  BatchShape mixed = DecodeOf({107, 4007}, 0, LaunchMode::kPiecewise);
  mixed.prefill = {{300, 0}, {64, 512}};
  batches.push_back(mixed);
  mixed.prefill = {{301, 300}};
  batches.push_back(mixed);
  for (int step = 0; step < 3; ++step) batches.push_back(DecodeOf({108 + step, 4008 + step, 9000 + step, 1 + step}));
  batches.push_back(DecodeOf({112, 4012, 9004}));  // one finished
  for (const std::string name : {"llama-3-8b", "gpt-oss-20b", "llama-4-scout", "qwen3-next-80b-a3b", "deepseek-v3"}) {
    SCOPED_TRACE(name);
    CalibratedCostOptions options;
    options.kernels.tensor_parallel = name == "llama-3-8b" || name == "gpt-oss-20b" ? 1 : 8;
    auto model = CalibratedCostModel::Create(Model(name), h100, *p, options);
    auto other = CalibratedCostModel::Create(Model("llama-3-8b"), h100, *p, {});
    ASSERT_TRUE(model.ok()) << model.status();
    ASSERT_TRUE(other.ok()) << other.status();
    std::vector<IterationCost> consecutive;
    for (const BatchShape& b : batches) consecutive.push_back((*model)->Cost(b));
    for (size_t i = 0; i < batches.size(); ++i) {
      (*other)->Cost(Decode(1, 10));  // empties the memo for `model`
      const IterationCost fresh = (*model)->Cost(batches[i]);
      const IterationCost& memo = consecutive[i];
      // Every field, bit for bit.
      const double memo_fields[] = {memo.duration_s, memo.flops,     memo.tensor_flops, memo.cuda_flops,
                                    memo.hbm_bytes,  memo.l2_bytes,  memo.hbm_bound_s,  memo.compute_bound_s,
                                    memo.l2_bound_s, memo.network_s, memo.overhead_s};
      const double fresh_fields[] = {fresh.duration_s, fresh.flops,     fresh.tensor_flops, fresh.cuda_flops,
                                     fresh.hbm_bytes,  fresh.l2_bytes,  fresh.hbm_bound_s,  fresh.compute_bound_s,
                                     fresh.l2_bound_s, fresh.network_s, fresh.overhead_s};
      for (size_t f = 0; f < std::size(memo_fields); ++f) EXPECT_EQ(memo_fields[f], fresh_fields[f]) << i << " " << f;
      EXPECT_EQ(memo.kernel_launches, fresh.kernel_launches) << i;
      EXPECT_EQ(memo.binding, fresh.binding) << i;
    }
    // The decode steps do cost differently: contexts grow.
    EXPECT_NE(consecutive[0].hbm_bytes, consecutive[3].hbm_bytes);
  }
}

TEST(CalibratedCostModel, LargePrefillIsComputeBound) {
  const GpuSpec h100 = Gpu("h100-sxm");
  auto model = CalibratedCostModel::Create(Model("llama-3-8b"), h100, *ResolveCalibration(h100, ""), {});
  ASSERT_TRUE(model.ok());
  BatchShape prefill;
  prefill.prefill = {{8192, 0}};
  const IterationCost c = (*model)->Cost(prefill);
  EXPECT_EQ(c.binding, Resource::kCompute);
  EXPECT_GT(c.compute_fraction(), 0.5);
  EXPECT_LT(c.compute_fraction(), 1.0);
}

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

}  // namespace
}  // namespace infergrid
