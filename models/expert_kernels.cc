// The routed experts of one expert layer on one GPU, with or without expert parallelism
// (ExpertParallelism in iteration_kernels.h). Routing is uniform at random: R rows landing on
// E experts hit E * (1 - (1 - 1/E)^R) distinct ones on average (for T tokens choosing k
// distinct experts each: E * (1 - (1 - k/E)^T)), and only those experts' weights are read; the
// FLOPs count the rows exactly.
//   no expert parallelism: every GPU runs every token's k rows through its 1/TP shard of every
//     expert;
//   all-reduce dispatch: every GPU runs the rows routed to its E/TP whole experts, T*k/TP on
//     average, times the imbalance on the busiest GPU;
//   all-to-all dispatch: likewise, after sending each of its T/TP tokens to the GPUs of its k
//     experts; the results come back the same way; both exchanges wait for the busiest GPU's
//     imbalance x the mean bytes.
// The MLP all-reduce that follows in Build() combines the shared experts' shards (and, with
// all-reduce dispatch, the routed outputs).
// Attention data parallelism (IterationKernelOptions::attention_data_parallel = D): the batch is
// one rank's, the routed experts span the D x TP GPUs of the group and see D times its tokens
// (the ranks hold as many each); with all-to-all dispatch each GPU sends its 1/TP of the rank's
// tokens; with all-gather dispatch each GPU gathers every rank's tokens, runs the rows routed to
// its whole experts and reduce-scatters the outputs; without expert parallelism likewise through
// its 1/(D x TP) shard of every expert. Shared experts run per rank.
#include <algorithm>
#include <cmath>

#include "models/iteration_kernels.h"
#include "models/kernel_constants.h"

namespace infergrid {

using namespace kernel_constants;  // NOLINT: the kernel list's shared constants

void IterationKernelBuilder::AddExperts(IterationKernels* out, int64_t tokens) const {
  const int32_t layers = expert_mlp_layers_;
  const MixtureOfExperts& moe = model_.moe();
  const int64_t experts = moe.num_experts();
  const int64_t top_k = moe.experts_per_token();
  const int gate = model_.gated_mlp() ? 2 : 1;
  const double d = static_cast<double>(d_);
  const ExpertParallelism& ep = options_.expert_parallel;
  const bool all_to_all = ep.dispatch == ExpertParallelism::Dispatch::kAllToAll;
  // Under attention data parallelism `rank_tokens` are one rank's; the experts see the tokens
  // of every rank (as many each) over every GPU of the group.
  const int64_t dp = options_.attention_data_parallel;
  const int64_t rank_tokens = tokens;
  tokens = rank_tokens * dp;
  const int64_t ranks = expert_world();
  // Attention-DP ranks whose tokens every GPU gathers (all-gather dispatch, or experts sharded).
  const bool gather = dp > 1 && !all_to_all;
  // Tokens this GPU routes: all of them, its 1/world share before an all-to-all, or its rank's
  // before they are gathered.
  const int64_t own_tokens = all_to_all ? CeilDiv(tokens, ranks) : gather ? rank_tokens : tokens;
  const double t = static_cast<double>(own_tokens);
  // Router logits: a small GEMM with replicated weights.
  AddGemm(out, "router", layers, own_tokens, experts, d_, 1, GemmWeights::kUnquantized);
  // Top-k softmax over the router logits and the permutation of token rows by expert.
  const double own_rows = t * static_cast<double>(top_k);
  AddElementwise(out, KernelKind::kMoeRouting, "moe_route", layers,
                 t * static_cast<double>(experts) * kLogitBytes + t * d * act_bytes_, own_rows * d * act_bytes_,
                 kSoftmaxFlopsPerScore * t * static_cast<double>(experts), t * d * act_bytes_, t);
  // The send buffer of each GPU: its tokens' k copies of the hidden state. An all-to-all ends
  // with its slowest GPU: the busiest one receives `imbalance` times the mean in the dispatch
  // and sends that much back in the combine, so both are priced on its bytes.
  const double dispatch_bytes = own_rows * d * act_bytes_ * ep.imbalance;
  if (all_to_all) AddCollective(out, KernelKind::kAllToAll, "moe_dispatch", layers, dispatch_bytes, ranks);
  // Gathered under attention DP: every GPU gathers every rank's tokens before the experts and
  // reduce-scatters their outputs after (priced alike).
  const double rank_bytes = static_cast<double>(rank_tokens) * d * act_bytes_;
  if (gather) AddCollective(out, KernelKind::kAllGather, "moe_all_gather", layers, rank_bytes, ranks);

  // Rows the (busiest) GPU runs through its experts, and the distinct experts they hit.
  double routed_rows = static_cast<double>(tokens) * static_cast<double>(top_k);
  double hit =
      static_cast<double>(experts) *
      (1.0 - std::pow(1.0 - static_cast<double>(top_k) / static_cast<double>(experts), static_cast<double>(tokens)));
  int64_t rows_whole = tokens * top_k;
  if (ep.enabled()) {
    routed_rows = std::ceil(routed_rows / static_cast<double>(ranks) * ep.imbalance);
    rows_whole = static_cast<int64_t>(routed_rows);
    const double local = static_cast<double>(local_experts_);
    hit = local * (1.0 - std::pow(1.0 - 1.0 / local, routed_rows));
  }
  const int32_t groups = static_cast<int32_t>(
      std::clamp<int64_t>(std::llround(hit), 1, std::max<int64_t>(1, std::min<int64_t>(local_experts_, rows_whole))));
  const int64_t rows_per_expert = std::max<int64_t>(1, CeilDiv(rows_whole, groups));
  AddGemm(out, model_.gated_mlp() ? "expert_gate_up_proj" : "expert_up_proj", layers, rows_per_expert,
          gate * expert_ffn_, d_, groups, GemmWeights::kRoutedExpert);
  // Exact FLOPs: the routed rows, not the rounded rows_per_expert * groups.
  Kernel& up = out->kernels[static_cast<size_t>(out->size - 1)];
  up.tensor_flops = 2.0 * routed_rows * static_cast<double>(gate * expert_ffn_) * d;
  const double in = routed_rows * static_cast<double>(gate * expert_ffn_) * act_bytes_;
  AddElementwise(out, KernelKind::kActivation, "expert_act", layers, in,
                 routed_rows * static_cast<double>(expert_ffn_) * act_bytes_,
                 kActivationFlopsPerElement * routed_rows * static_cast<double>(expert_ffn_), in, routed_rows);
  AddGemm(out, "expert_down_proj", layers, rows_per_expert, d_, expert_ffn_, groups, GemmWeights::kRoutedExpert);
  Kernel& down = out->kernels[static_cast<size_t>(out->size - 1)];
  down.tensor_flops = 2.0 * routed_rows * d * static_cast<double>(expert_ffn_);
  if (all_to_all) AddCollective(out, KernelKind::kAllToAll, "moe_combine_all_to_all", layers, dispatch_bytes, ranks);
  if (gather) AddCollective(out, KernelKind::kAllGather, "moe_reduce_scatter", layers, rank_bytes, ranks);
  // Weighted sum of each token's k expert outputs (on this GPU: the rows it holds).
  const double combined_rows = all_to_all ? own_rows : routed_rows;
  AddElementwise(out, KernelKind::kMoeRouting, "moe_combine", layers, combined_rows * d * act_bytes_,
                 t * d * act_bytes_, 2.0 * combined_rows * d, combined_rows * d * act_bytes_, t);
  if (shared_ffn_ > 0) AddSharedExperts(out, rank_tokens);  // per rank, on its own tokens
}

void IterationKernelBuilder::AddSharedExperts(IterationKernels* out, int64_t tokens) const {
  const int32_t layers = expert_mlp_layers_;
  const int gate = model_.gated_mlp() ? 2 : 1;
  const double all = static_cast<double>(tokens);
  AddGemm(out, "shared_gate_up_proj", layers, tokens, gate * shared_ffn_, d_, 1);
  const double shared_in = all * static_cast<double>(gate * shared_ffn_) * act_bytes_;
  AddElementwise(out, KernelKind::kActivation, "shared_act", layers, shared_in,
                 all * static_cast<double>(shared_ffn_) * act_bytes_,
                 kActivationFlopsPerElement * all * static_cast<double>(shared_ffn_), shared_in, all);
  AddGemm(out, "shared_down_proj", layers, tokens, d_, shared_ffn_, 1);
}

}  // namespace infergrid
