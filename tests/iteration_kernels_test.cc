// models/iteration_kernels.h: the kernel list's demands against the accounting formulas, decode
// and prefill attention, TP collectives, MoE routing and expert parallelism, FP4 and KV precision,
// and the decode-attention rebuild against a whole build.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/attention_layout.h"
#include "tests/catalog_model.h"
#include "tests/cost_model_helpers.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;
using testing::WithoutWindows;

double Sum(const IterationKernels& kernels, KernelKind kind, double Kernel::*field) {
  double total = 0;
  for (const Kernel& k : kernels) {
    if (k.kind == kind) total += k.repeat * (k.*field);
  }
  return total;
}

// ---------------------------------------------------------------- kernel list and accounting

TEST(IterationKernels, DecodeGemmFlopsAreTwoNPerTokenWithoutEmbeddingAndNorms) {
  const ModelSpec llama = Model("llama-3-8b");
  const IterationKernels k = Build(llama, Decode(4, 1000));
  const ParameterBreakdown p = CountParameters(llama);
  // 2 FLOPs per weight per token through every matrix; the embedding is a lookup and the
  // norms are elementwise, so they are the only parameters without GEMM FLOPs.
  const double expected = 2.0 * 4 * static_cast<double>(p.Total() - p.embedding - p.norms);
  EXPECT_DOUBLE_EQ(Sum(k, KernelKind::kGemm, &Kernel::tensor_flops), expected);
  // The accounting lesson's 2*N per token counts the embedding too.
  const PassAccounting pass =
      DecodeStep(llama, {static_cast<double>(p.Total()), 16e9, KvBytesPerToken(llama, DType::BF16)}, 1000, 4);
  EXPECT_DOUBLE_EQ(pass.linear_flops - expected, 2.0 * 4 * static_cast<double>(p.embedding + p.norms));
}

TEST(IterationKernels, DecodeAttentionReadsEachSequenceAtItsOwnLength) {
  const ModelSpec llama = Model("llama-3-8b");
  BatchShape batch;
  batch.decode_context_tokens = {10, 1000, 30000};
  const IterationKernels k = Build(llama, batch);
  const Kernel* a = Find(k, "attention_decode");
  ASSERT_NE(a, nullptr);
  const double keys = 11 + 1001 + 30001;  // the new token's K/V is cached before attention
  // 4 * L * H_q * D per (query, key), the lesson's decode formula with S + 1 keys.
  EXPECT_DOUBLE_EQ(a->repeat * a->tensor_flops, 4.0 * 32 * 32 * 128 * keys);
  // K and V of every key: 2 * H_kv * D * 2 bytes per layer; plus Q/O, block table.
  const double kv = keys * 2 * 8 * 128 * 2;
  // Plus Q and O (3 x 32 heads x 128 x 2 bytes each), the block table (4 bytes per 16-token
  // block: 1 + 63 + 1876 blocks) and the split-KV partials of the sequences longer than one
  // 256-token chunk (4 + 118 chunks x 32 heads x (128 + 2) fp32 values, written and read).
  EXPECT_DOUBLE_EQ(a->hbm_bytes, kv + 2.0 * 3 * 32 * 128 * 2 + 4.0 * (1 + 63 + 1876) + 2.0 * (4 + 118) * 32 * 130 * 4);
  // Not a mean: three sequences of the mean length give the same FLOPs but fewer split
  // chunks of work than the 30000-token sequence alone.
  EXPECT_DOUBLE_EQ(a->parallel_work_items, 8.0 * (1 + 4 + 118));
}

// Block and split counts are ceiling divisions; power-of-two sizes (vLLM's 16 and 256) take a
// shift, any other size a division: both must count the same way.
TEST(IterationKernels, DecodeBlocksAndSplitsForAnyBlockAndSplitSize) {
  const ModelSpec llama = Model("llama-3-8b");
  BatchShape batch;
  batch.decode_context_tokens = {23, 24, 400};  // 24, 25 and 401 keys
  const double qo = 2.0 * 3 * 32 * 128 * 2;
  const double kv = (24.0 + 25 + 401) * 2 * 8 * 128 * 2;
  const auto partial_bytes = [](double chunks) { return 2.0 * chunks * 32 * 130 * 4; };
  IterationKernelOptions odd;
  odd.kv_block_tokens = 24;
  odd.decode_kv_split_tokens = 384;
  const IterationKernels odd_kernels = Build(llama, batch, odd);
  const Kernel* a = Find(odd_kernels, "attention_decode");
  ASSERT_NE(a, nullptr);
  // Blocks of 24: 1 + 2 + 17; chunks of 384: 1 + 1 + 2, the last sequence's 2 are partials.
  EXPECT_DOUBLE_EQ(a->hbm_bytes, qo + kv + 4.0 * (1 + 2 + 17) + partial_bytes(2));
  EXPECT_DOUBLE_EQ(a->parallel_work_items, 8.0 * (1 + 1 + 2));
  const IterationKernels vllm_kernels = Build(llama, batch);  // blocks of 16, chunks of 256
  const Kernel* b = Find(vllm_kernels, "attention_decode");
  ASSERT_NE(b, nullptr);
  EXPECT_DOUBLE_EQ(b->hbm_bytes, qo + kv + 4.0 * (2 + 2 + 26) + partial_bytes(2));
  EXPECT_DOUBLE_EQ(b->parallel_work_items, 8.0 * (1 + 1 + 2));
}

TEST(IterationKernels, PrefillAttentionIsCausalWithPriorContext) {
  const ModelSpec llama = Model("llama-3-8b");
  BatchShape batch;
  batch.prefill = {{512, 0}, {256, 2048}};
  const IterationKernels k = Build(llama, batch);
  const Kernel* a = Find(k, "attention_prefill");
  ASSERT_NE(a, nullptr);
  const double pairs = 512.0 * 513 / 2 + (256.0 * 2048 + 256.0 * 257 / 2);
  EXPECT_DOUBLE_EQ(a->repeat * a->tensor_flops, 4.0 * 32 * 32 * 128 * pairs);
  // A fresh 2,048-token prompt: 4*D FLOPs per (query, key) pair (QK^T and PV) over the
  // P(P+1)/2 causal pairs; the lesson's 2*L*H_q*D*P^2 (1.10 TFLOP at P = 2,048) is the same
  // figure but for the diagonal.
  BatchShape fresh;
  fresh.prefill = {{2048, 0}};
  const IterationKernels fresh_kernels = Build(llama, fresh);
  const Kernel* f = Find(fresh_kernels, "attention_prefill");
  EXPECT_DOUBLE_EQ(f->repeat * f->tensor_flops - 2.0 * 32 * 32 * 128 * 2048.0 * 2048, 2.0 * 32 * 32 * 128 * 2048);
}

TEST(IterationKernels, LmHeadRunsOnSampledRowsOnly) {
  const ModelSpec llama = Model("llama-3-8b");
  BatchShape batch;
  batch.prefill = {{1000, 0}, {500, 100}};
  batch.decode_context_tokens = {5, 6, 7};
  const IterationKernels k = Build(llama, batch);
  EXPECT_EQ(k.new_tokens, 1503);
  EXPECT_EQ(k.sampled_rows, 5);
  EXPECT_EQ(Find(k, "lm_head")->m, 5);
  EXPECT_EQ(Find(k, "qkv_proj")->m, 1503);
  EXPECT_EQ(Find(k, "lm_head")->n, 128256);
}

// A speculative verification scores all k + 1 positions: the LM head and the sampler run on
// the extra rows too, the rest of the layer stack is unchanged.
TEST(IterationKernels, ExtraSampledRowsGoThroughTheLmHeadOnly) {
  BatchShape verify;
  for (int i = 0; i < 4; ++i) verify.prefill.push_back({5, 1000});
  const IterationKernels one = Build(Model("llama-3-8b"), verify);
  verify.extra_sampled_rows = 4 * 4;
  const IterationKernels all = Build(Model("llama-3-8b"), verify);
  EXPECT_EQ(Find(one, "lm_head")->m, 4);
  EXPECT_EQ(Find(all, "lm_head")->m, 20);
  EXPECT_DOUBLE_EQ(Find(all, "qkv_proj")->tensor_flops, Find(one, "qkv_proj")->tensor_flops);
  EXPECT_DOUBLE_EQ(Find(all, "sampler")->hbm_bytes, 5 * Find(one, "sampler")->hbm_bytes);
}

TEST(IterationKernels, TensorParallelDividesShapesAndAddsAllReduces) {
  const ModelSpec llama = Model("llama-3-8b");
  const IterationKernels one = Build(llama, Decode(8, 100));
  for (const Kernel& k : one) {
    EXPECT_NE(k.kind, KernelKind::kAllReduce) << k.name;
    EXPECT_NE(k.kind, KernelKind::kAllGather) << k.name;
  }
  IterationKernelOptions tp4;
  tp4.tensor_parallel = 4;
  const IterationKernels four = Build(llama, Decode(8, 100), tp4);
  EXPECT_EQ(Find(four, "qkv_proj")->n, (32 + 2 * 8) * 128 / 4);
  EXPECT_EQ(Find(four, "o_proj")->k, 32 * 128 / 4);
  EXPECT_EQ(Find(four, "gate_up_proj")->n, 2 * 14336 / 4);
  EXPECT_EQ(Find(four, "down_proj")->k, 14336 / 4);
  EXPECT_EQ(Find(four, "lm_head")->n, 128256 / 4);
  int all_reduces = 0;
  for (const Kernel& k : four) {
    if (k.kind == KernelKind::kAllReduce) {
      all_reduces += k.repeat;
      EXPECT_EQ(k.ranks, 4);
      EXPECT_DOUBLE_EQ(k.collective_bytes, 8.0 * 4096 * 2);  // [tokens, d] in bf16
    }
  }
  EXPECT_EQ(all_reduces, 2 * 32 + 1);  // attention + MLP per layer, and the embedding
  ASSERT_NE(Find(four, "logits_all_gather"), nullptr);
  EXPECT_DOUBLE_EQ(Sum(four, KernelKind::kGemm, &Kernel::tensor_flops) - 2.0 * 8 * 4096 * (128256 / 4),
                   (Sum(one, KernelKind::kGemm, &Kernel::tensor_flops) - 2.0 * 8 * 4096 * 128256) / 4);
  // TP 16 replicates the 8 KV heads: one per GPU.
  IterationKernelOptions tp16;
  tp16.tensor_parallel = 16;
  const IterationKernels tp16_kernels = Build(Model("llama-3-70b"), Decode(1, 10), tp16);
  EXPECT_EQ(Find(tp16_kernels, "qkv_proj")->n, (64 / 16 + 2) * 128);
}

TEST(IterationKernels, MixtralReadsOnlyTheExpertsItsTokensHit) {
  const ModelSpec mixtral = Model("mixtral-8x7b");
  const IterationKernels one = Build(mixtral, Decode(1, 100));
  const Kernel* up = Find(one, "expert_gate_up_proj");
  ASSERT_NE(up, nullptr);
  // One token, top-2 of 8: two experts' weights, one row each.
  EXPECT_EQ(up->groups, 2);
  EXPECT_EQ(up->m, 1);
  EXPECT_DOUBLE_EQ(up->tensor_flops, 2.0 * 2 * (2 * 14336) * 4096);
  ASSERT_NE(Find(one, "router"), nullptr);
  EXPECT_EQ(Find(one, "router")->n, 8);
  ASSERT_NE(Find(one, "moe_route"), nullptr);
  // 64 tokens x top-2 spread over all 8 experts: 16 rows each.
  const IterationKernels many = Build(mixtral, Decode(64, 100));
  const Kernel* many_up = Find(many, "expert_gate_up_proj");
  EXPECT_EQ(many_up->groups, 8);
  EXPECT_EQ(many_up->m, 16);
  EXPECT_DOUBLE_EQ(many_up->tensor_flops, 2.0 * 64 * 2 * (2 * 14336) * 4096);
  EXPECT_GT(many_up->hbm_bytes, 3.9 * up->hbm_bytes);  // four times the experts' weights
  EXPECT_EQ(Find(many, "gate_up_proj"), nullptr);  // no dense MLP
}

// DeepSeek-V3 at TP8 (16 heads a GPU): decode attends in the latent space, reading each
// sequence's latent cache once for all its heads; prefill up-projects the latent of every key
// it attends to; three layers run the dense MLP and 58 the experts.
TEST(IterationKernels, LatentAttentionDecodesInTheLatentAndPrefillsExpanded) {
  const ModelSpec ds = Model("deepseek-v3");
  IterationKernelOptions tp8;
  tp8.tensor_parallel = 8;
  const IterationKernels decode = Build(ds, Decode(4, 1000), tp8);
  const Kernel* attention = Find(decode, "attention_decode");
  ASSERT_NE(attention, nullptr);
  const double keys = 4 * 1001;
  EXPECT_DOUBLE_EQ(attention->tensor_flops, 2.0 * 16 * (576 + 512) * keys);
  // The latent is not sharded: 576 x 2 B per key on every GPU, read in one pass (no re-reads),
  // beside queries (576 wide) and outputs (512) per head, 63 block-table entries a sequence and
  // the fp32 partial outputs of 4 splits x 16 heads a sequence.
  const double qo = 4 * 16 * (576 + 512) * 2.0, blocks = 4 * 63 * 4.0;
  const double partials = 2.0 * (4 * 4) * 16 * (512 + 2) * 4;
  EXPECT_DOUBLE_EQ(attention->hbm_bytes, qo + keys * 1152 + blocks + partials);
  EXPECT_DOUBLE_EQ(attention->reread_bytes, 0);
  const Kernel* absorb = Find(decode, "q_absorb");
  ASSERT_NE(absorb, nullptr);
  EXPECT_EQ(absorb->groups, 16);
  EXPECT_EQ(absorb->m, 4);
  EXPECT_EQ(absorb->n, 512);
  EXPECT_EQ(absorb->k, 128);
  ASSERT_NE(Find(decode, "v_absorb"), nullptr);
  EXPECT_EQ(Find(decode, "kv_b_proj"), nullptr);  // decode never expands the latent
  // Replicated q_a + kv_a (1536 + 512 + 64 wide), sharded q_b and o.
  ASSERT_NE(Find(decode, "q_a_kv_a_proj"), nullptr);
  EXPECT_EQ(Find(decode, "q_a_kv_a_proj")->n, 1536 + 576);
  EXPECT_EQ(Find(decode, "q_b_proj")->n, 16 * 192);
  EXPECT_EQ(Find(decode, "o_proj")->k, 16 * 128);
  EXPECT_EQ(Find(decode, "gate_up_proj")->repeat, 3);
  EXPECT_EQ(Find(decode, "expert_gate_up_proj")->repeat, 58);
  EXPECT_EQ(Find(decode, "shared_gate_up_proj")->repeat, 58);
  EXPECT_DOUBLE_EQ(Find(decode, "kv_cache_write")->hbm_bytes, 4 * 576 * 2.0 + 4 * 1152);

  BatchShape prefill;
  prefill.prefill.push_back(PrefillChunk{.new_tokens = 256, .context_tokens = 768});
  const IterationKernels chunk = Build(ds, prefill, tp8);
  const Kernel* expand = Find(chunk, "kv_b_proj");
  ASSERT_NE(expand, nullptr);
  EXPECT_EQ(expand->m, 256 + 768);
  EXPECT_EQ(expand->n, 16 * (128 + 128));
  const Kernel* flash = Find(chunk, "attention_prefill");
  ASSERT_NE(flash, nullptr);
  EXPECT_DOUBLE_EQ(flash->tensor_flops, 2.0 * 16 * (192 + 128) * (256.0 * 768 + 256.0 * 257 / 2));
}

// Expert parallelism at TP8: each GPU holds 32 whole experts of DeepSeek-V3's 256 and runs the
// rows routed to them, 64 tokens x top-8 / 8 GPUs = 64 on average; with all-to-all dispatch it
// sends its 8 tokens' 8 copies of 7,168 bf16 values out and gets them back, every expert layer.
TEST(IterationKernels, ExpertParallelRunsWholeLocalExpertsAndDispatchesByRouting) {
  const ModelSpec ds = Model("deepseek-v3");
  IterationKernelOptions ep;
  ep.tensor_parallel = 8;
  ep.expert_parallel.dispatch = ExpertParallelism::Dispatch::kAllToAll;
  const IterationKernels k = Build(ds, Decode(64, 1000), ep);
  const Kernel* up = Find(k, "expert_gate_up_proj");
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->n, 2 * 2048);  // whole experts, not a 1/8 shard
  EXPECT_DOUBLE_EQ(up->tensor_flops, 2.0 * 64 * (2 * 2048) * 7168);
  // 64 rows on 32 local experts hit 32 (1 - (31/32)^64) = 27.6 of them on average.
  EXPECT_EQ(up->groups, 28);
  EXPECT_EQ(up->m, 3);  // ceil(64 / 28)
  const Kernel* dispatch = Find(k, "moe_dispatch");
  ASSERT_NE(dispatch, nullptr);
  EXPECT_EQ(dispatch->kind, KernelKind::kAllToAll);
  EXPECT_EQ(dispatch->repeat, 58);
  EXPECT_EQ(dispatch->ranks, 8);
  EXPECT_DOUBLE_EQ(dispatch->collective_bytes, (64 / 8) * 8 * 7168 * 2.0);
  ASSERT_NE(Find(k, "moe_combine_all_to_all"), nullptr);
  EXPECT_DOUBLE_EQ(Find(k, "moe_combine_all_to_all")->collective_bytes, dispatch->collective_bytes);
  EXPECT_EQ(Find(k, "router")->m, 8);  // each GPU routes its own eighth of the tokens
  // The busiest GPU at 1.5x the mean receives 1.5x the bytes, and both exchanges wait for it.
  ep.expert_parallel.imbalance = 1.5;
  const IterationKernels busiest = Build(ds, Decode(64, 1000), ep);
  EXPECT_DOUBLE_EQ(Find(busiest, "moe_dispatch")->collective_bytes, 1.5 * (64 / 8) * 8 * 7168 * 2.0);
  EXPECT_DOUBLE_EQ(Find(busiest, "moe_combine_all_to_all")->collective_bytes, 1.5 * (64 / 8) * 8 * 7168 * 2.0);
  // The busiest GPU at 1.5x the mean runs 96 rows; all-reduce dispatch sends nothing.
  ep.expert_parallel.dispatch = ExpertParallelism::Dispatch::kAllReduce;
  const IterationKernels skewed = Build(ds, Decode(64, 1000), ep);
  EXPECT_DOUBLE_EQ(Find(skewed, "expert_gate_up_proj")->tensor_flops, 2.0 * 96 * (2 * 2048) * 7168);
  EXPECT_EQ(Find(skewed, "moe_dispatch"), nullptr);
  EXPECT_EQ(Find(skewed, "router")->m, 64);
  // Experts that do not split evenly, imbalance beyond all rows on one GPU, a dense model.
  ep.tensor_parallel = 16;
  EXPECT_TRUE(IterationKernelBuilder::Create(ds, ep).ok());
  ep.expert_parallel.imbalance = 17;
  EXPECT_FALSE(IterationKernelBuilder::Create(ds, ep).ok());
  IterationKernelOptions mixtral_ep = ep;
  mixtral_ep.expert_parallel.imbalance = 1;
  EXPECT_FALSE(IterationKernelBuilder::Create(Model("mixtral-8x7b"), mixtral_ep).ok());  // 8 experts, 16 GPUs
  mixtral_ep.tensor_parallel = 2;
  EXPECT_FALSE(IterationKernelBuilder::Create(Model("llama-3-8b"), mixtral_ep).ok());
}

// Attention data parallelism, 8 ranks of one GPU (DEP8): a rank's batch of 64 decode tokens runs
// its attention and dense layers unsharded (no all-reduce), the routed experts span all 8 GPUs
// and see 8 x 64 tokens, 64 x top-8 = 512 rows per GPU on average; the rank sends its own 64
// tokens' 8 copies of 7,168 bf16 values to the experts' GPUs and gets them back, over 8 ranks:
// the all-to-all bytes follow tokens x top-k x hidden x dtype. The shared expert runs per rank,
// on its own 64 tokens. Without expert parallelism every GPU gathers the 8 ranks' tokens through
// its 1/8 slice of every expert. All-reduce dispatch cannot serve ranks with different tokens,
// nor all-gather dispatch a deployment without ranks.
TEST(IterationKernels, AttentionDataParallelRanksSendTheirTokensToExpertsOverTheGroup) {
  const ModelSpec ds = Model("deepseek-v3");
  IterationKernelOptions dep;
  dep.tensor_parallel = 1;
  dep.attention_data_parallel = 8;
  dep.expert_parallel.dispatch = ExpertParallelism::Dispatch::kAllToAll;
  const IterationKernels k = Build(ds, Decode(64, 1000), dep);
  for (int i = 0; i < k.size; ++i) EXPECT_NE(k.kernels[static_cast<size_t>(i)].kind, KernelKind::kAllReduce);
  const Kernel* up = Find(k, "expert_gate_up_proj");
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->n, 2 * 2048);
  EXPECT_DOUBLE_EQ(up->tensor_flops, 2.0 * 512 * (2 * 2048) * 7168);
  const Kernel* dispatch = Find(k, "moe_dispatch");
  ASSERT_NE(dispatch, nullptr);
  EXPECT_EQ(dispatch->ranks, 8);
  EXPECT_DOUBLE_EQ(dispatch->collective_bytes, 64 * 8 * 7168 * 2.0);
  EXPECT_EQ(Find(k, "router")->m, 64);
  ASSERT_NE(Find(k, "shared_gate_up_proj"), nullptr);
  EXPECT_EQ(Find(k, "shared_gate_up_proj")->m, 64);
  EXPECT_EQ(Find(k, "shared_gate_up_proj")->n, 2 * 2048);  // the rank's whole shared expert
  // All-gather dispatch (the engines' default under attention DP): the same rows on the same
  // whole experts, the rank's tokens gathered to every GPU and the outputs reduce-scattered.
  dep.expert_parallel.dispatch = ExpertParallelism::Dispatch::kAllGather;
  const IterationKernels gathered = Build(ds, Decode(64, 1000), dep);
  EXPECT_DOUBLE_EQ(Find(gathered, "expert_gate_up_proj")->tensor_flops, 2.0 * 512 * (2 * 2048) * 7168);
  EXPECT_EQ(Find(gathered, "moe_dispatch"), nullptr);
  ASSERT_NE(Find(gathered, "moe_all_gather"), nullptr);
  EXPECT_EQ(Find(gathered, "moe_all_gather")->kind, KernelKind::kAllGather);
  EXPECT_DOUBLE_EQ(Find(gathered, "moe_all_gather")->collective_bytes, 64 * 7168 * 2.0);
  ASSERT_NE(Find(gathered, "moe_reduce_scatter"), nullptr);
  EXPECT_EQ(Find(gathered, "router")->m, 64);
  dep.expert_parallel.dispatch = ExpertParallelism::Dispatch::kNone;
  const IterationKernels sharded = Build(ds, Decode(64, 1000), dep);
  EXPECT_EQ(Find(sharded, "expert_gate_up_proj")->n, 2 * 2048 / 8);
  EXPECT_DOUBLE_EQ(Find(sharded, "expert_gate_up_proj")->tensor_flops, 2.0 * 512 * 8 * (2 * 2048 / 8) * 7168);
  ASSERT_NE(Find(sharded, "moe_all_gather"), nullptr);
  EXPECT_EQ(Find(sharded, "moe_all_gather")->ranks, 8);
  EXPECT_DOUBLE_EQ(Find(sharded, "moe_all_gather")->collective_bytes, 64 * 7168 * 2.0);
  dep.expert_parallel.dispatch = ExpertParallelism::Dispatch::kAllReduce;
  EXPECT_FALSE(IterationKernelBuilder::Create(ds, dep).ok());
  dep.attention_data_parallel = 1;
  dep.expert_parallel.dispatch = ExpertParallelism::Dispatch::kAllGather;
  EXPECT_FALSE(IterationKernelBuilder::Create(ds, dep).ok());
}

// NVFP4 weights are converted to bf16 inside the GEMM where the GPU has no FP4 tensor cores
// (two CUDA-core operations per weight), and multiplied as they are where it has.
TEST(IterationKernels, Fp4WeightsDequantizeOnlyWithoutFp4TensorCores) {
  absl::StatusOr<WeightFormat> nvfp4 = ParseWeightFormat("nvfp4");
  ASSERT_TRUE(nvfp4.ok()) << nvfp4.status();
  IterationKernelOptions hopper;
  hopper.weights = *nvfp4;
  hopper.compute_dtype = DType::BF16;
  const IterationKernels on_hopper = Build(Model("llama-3-8b"), Decode(8, 100), hopper);
  const Kernel* qkv = Find(on_hopper, "qkv_proj");
  ASSERT_NE(qkv, nullptr);
  EXPECT_DOUBLE_EQ(qkv->cuda_flops, 2.0 * qkv->n * qkv->k);
  EXPECT_DOUBLE_EQ(qkv->weight_bytes_per_element, 4.5 / 8);
  IterationKernelOptions blackwell = hopper;
  blackwell.compute_dtype = DType::FP4_E2M1;
  const IterationKernels on_blackwell = Build(Model("llama-3-8b"), Decode(8, 100), blackwell);
  EXPECT_DOUBLE_EQ(Find(on_blackwell, "qkv_proj")->cuda_flops, 0);
  EXPECT_EQ(Find(on_blackwell, "qkv_proj")->tensor_dtype, DType::FP4_E2M1);
}

TEST(IterationKernels, KvPrecisionCostsCapacityBandwidthAndDequantization) {
  const ModelSpec llama = Model("llama-3-8b");
  IterationKernelOptions fp8;
  fp8.kv_dtype = DType::FP8_E4M3;
  const IterationKernels half = Build(llama, Decode(4, 8192));
  const IterationKernels quarter = Build(llama, Decode(4, 8192), fp8);
  const Kernel* a16 = Find(half, "attention_decode");
  const Kernel* a8 = Find(quarter, "attention_decode");
  const double kv16 = 4.0 * 8193 * 2 * 8 * 128 * 2;
  EXPECT_NEAR(a16->hbm_bytes - a8->hbm_bytes, kv16 / 2, kv16 * 1e-3);
  EXPECT_EQ(a16->cuda_flops, 4.0 * 32 * 4 * 8193);  // softmax only
  EXPECT_DOUBLE_EQ(a8->cuda_flops - a16->cuda_flops, 2.0 * 4 * 8193 * 2 * 8 * 128);  // dequant
  // Capacity: bytes per token per layer halve.
  absl::StatusOr<IterationKernelBuilder> b = IterationKernelBuilder::Create(llama, fp8);
  EXPECT_DOUBLE_EQ(b->kv_bytes_per_token_layer(), 2 * 8 * 128 * 1.0);
  EXPECT_DOUBLE_EQ(b->kv_bytes_per_token_layer() * llama.num_layers(),
                   static_cast<double>(KvBytesPerToken(llama, DType::FP8_E4M3)));
}

TEST(IterationKernels, RejectsShapesThatDoNotSplit) {
  IterationKernelOptions tp3;
  tp3.tensor_parallel = 3;
  absl::StatusOr<IterationKernelBuilder> b = IterationKernelBuilder::Create(Model("llama-3-8b"), tp3);
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.status().message(), HasSubstr("do not split over TP 3"));
  IterationKernelOptions tp0;
  tp0.tensor_parallel = 0;
  EXPECT_FALSE(IterationKernelBuilder::Create(Model("llama-3-8b"), tp0).ok());
}

// Rebuilding the attention of a decode batch in place gives exactly the kernels a whole build
// gives; models whose other kernels read the contexts (latent attention) and batches with a
// prefill are refused, with the kernels left alone.
TEST(IterationKernels, RebuildDecodeAttentionEqualsAWholeBuild) {
  for (const std::string name : {"llama-3-8b", "gpt-oss-20b", "llama-4-scout", "qwen3-next-80b-a3b"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<IterationKernelBuilder> b = IterationKernelBuilder::Create(Model(name), {});
    ASSERT_TRUE(b.ok()) << b.status();
    IterationKernels rebuilt;
    b->Build(DecodeOf({10, 300, 70000}, 3), &rebuilt);
    const BatchShape next = DecodeOf({11, 5000, 90000}, 3);
    ASSERT_TRUE(b->RebuildDecodeAttention(next, &rebuilt));
    IterationKernels whole;
    b->Build(next, &whole);
    ASSERT_EQ(rebuilt.size, whole.size);
    for (size_t i = 0; i < static_cast<size_t>(whole.size); ++i) {
      EXPECT_TRUE(rebuilt.kernels[i] == whole.kernels[i]) << whole.kernels[i].name;
    }
    EXPECT_EQ(rebuilt.decode_attention_slot, whole.decode_attention_slot);
    EXPECT_GE(whole.decode_attention_slot[0], 0);  // every one has full-attention layers
    BatchShape with_prefill = next;
    with_prefill.prefill = {{10, 0}};
    EXPECT_FALSE(b->RebuildDecodeAttention(with_prefill, &rebuilt));
  }
  absl::StatusOr<IterationKernelBuilder> latent = IterationKernelBuilder::Create(Model("deepseek-v3"), {});
  ASSERT_TRUE(latent.ok());
  IterationKernels kernels;
  latent->Build(DecodeOf({10, 20}), &kernels);
  EXPECT_FALSE(latent->RebuildDecodeAttention(DecodeOf({11, 21}), &kernels));
}

TEST(IterationKernels, WindowedLayersReadOnlyTheWindow) {
  const ModelSpec oss = testing::CatalogModel("gpt-oss-20b");
  IterationKernelOptions options;
  absl::StatusOr<IterationKernelBuilder> windowed = IterationKernelBuilder::Create(oss, options);
  absl::StatusOr<IterationKernelBuilder> full = IterationKernelBuilder::Create(WithoutWindows(oss), options);
  ASSERT_TRUE(windowed.ok() && full.ok());
  const auto attention = [](const IterationKernelBuilder& b, const BatchShape& batch, const char* name) {
    IterationKernels k;
    b.Build(batch, &k);
    for (const Kernel& kernel : k) {
      if (std::string(kernel.name) == name) return kernel;
    }
    return Kernel{};
  };
  BatchShape decode;
  decode.decode_context_tokens = {10000, 50};
  const Kernel window = attention(*windowed, decode, "attention_decode_window");
  const Kernel whole = attention(*windowed, decode, "attention_decode");
  EXPECT_EQ(window.repeat, 12);
  EXPECT_EQ(whole.repeat, 12);
  // Keys: min(context + 1, 128) per sequence on the window layers, context + 1 on the others.
  const double flops_per_key = 4.0 * 64 * 64;  // 64 query heads of 64
  EXPECT_EQ(window.tensor_flops, flops_per_key * (128 + 51));
  EXPECT_EQ(whole.tensor_flops, flops_per_key * (10001 + 51));
  // Sinks: one more score per query and head in the softmax (4 CUDA-core FLOPs a score).
  EXPECT_EQ(window.cuda_flops, 4.0 * 64 * (128 + 51 + 2));
  // Below the window the two kernels of the windowed model add up to the full model's one.
  BatchShape short_decode;
  short_decode.decode_context_tokens = {20, 100};
  const Kernel unwindowed = attention(*full, short_decode, "attention_decode");
  EXPECT_EQ(unwindowed.repeat, 24);
  EXPECT_EQ(attention(*windowed, short_decode, "attention_decode_window").tensor_flops, unwindowed.tensor_flops);
  BatchShape prefill;
  prefill.prefill = {{.new_tokens = 2048, .context_tokens = 0}};
  EXPECT_EQ(attention(*windowed, prefill, "attention_prefill_window").tensor_flops,
            4.0 * 64 * 64 * PrefillPairs(2048, 0, 128));
}

}  // namespace
}  // namespace infergrid
