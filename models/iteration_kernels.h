// The kernels of one engine iteration (one forward pass over a batch of prefill chunks and
// decode sequences) on one GPU of a tensor-parallel group, each with its demands: tensor-core
// FLOPs (with their dtype), CUDA-core FLOPs, compulsory HBM bytes, L2 re-read candidates, and
// its shape. Layers are identical, so a layer's kernels appear once with `repeat` = layers.
// What the demands cost in time is the resource model's business (hardware/resource_model.h);
// this file only counts. Building is O(batch) and allocation-free (IterationKernels is a
// fixed-capacity array), because the engine asks for it every iteration.
//
// Kernels of a layer, in order: input RMSNorm, fused QKV GEMM, RoPE, KV-cache write,
// attention (one varlen prefill kernel for the prefill chunks, causal with prior context;
// one paged decode kernel reading each sequence's KV at its own length; sliding-window layers
// get their own pair of kernels whose queries see at most the window), O GEMM, all-reduce
// (TP > 1), residual add, post-attention RMSNorm, MLP (dense: fused gate+up GEMM, activation,
// down GEMM; MoE: router GEMM, top-k routing and token permutation, grouped expert GEMMs over
// the experts the tokens hit, activation, grouped down GEMM, shared experts as a dense MLP),
// all-reduce (TP > 1), residual add. Around the layers: embedding lookup (+ all-reduce under
// TP: the table is split by vocabulary), final RMSNorm, LM head on the sampled rows only (one
// per decode sequence and one per prefill chunk, as vLLM computes logits at every scheduled
// request's last position), logits all-gather (TP > 1), and sampling. Where the engine fuses
// kernels (IterationKernelOptions::fusion) the residual adds run inside the norms after them,
// and under tensor parallelism an all-reduce may take the add and the norm after it too: then a
// layer is QKV, RoPE, KV write, attention, O, all-reduce+add+norm, the MLP, all-reduce+add+norm
// (the next layer's input norm, or the final norm after the last layer).
#ifndef INFERGRID_MODELS_ITERATION_KERNELS_H_
#define INFERGRID_MODELS_ITERATION_KERNELS_H_

#include <array>
#include <cstdint>
#include <cstdlib>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/dtype.h"
#include "models/batch_shape.h"
#include "models/model_spec.pb.h"

namespace infergrid {

// Kinds index the calibration's kernel classes (hardware/resource_model.h).
enum class KernelKind : uint8_t {
  kGemm = 0,
  kAttentionPrefill,
  kAttentionDecode,
  kNorm,
  kRope,
  kKvCacheWrite,
  kActivation,
  kResidualAdd,
  kEmbedding,
  kMoeRouting,
  kSampler,
  kAllReduce,
  kAllGather,
  kAllToAll,  // expert-parallel dispatch and combine
};
inline constexpr int kNumKernelKinds = 14;
// Collectives are priced from the network tables, not from a kernel class.
inline bool IsCollective(KernelKind kind) {
  return kind == KernelKind::kAllReduce || kind == KernelKind::kAllGather || kind == KernelKind::kAllToAll;
}
absl::string_view KernelKindName(KernelKind kind);  // "gemm", "attention_decode", ...

struct Kernel {
  KernelKind kind = KernelKind::kGemm;
  const char* name = "";  // static literal: "qkv_proj", "attention_decode", ...
  int32_t repeat = 1;  // identical launches per iteration (layers)

  // GEMM shape: D[m, n] = X[m, k] * W[n, k]^T, `groups` independent GEMMs of this shape
  // (MoE experts hit by at least one token), `weight_bytes_per_element` for W (int4 with
  // group scales < 1 byte) and `activation_bytes_per_element` for X and D.
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  int32_t groups = 1;
  double weight_bytes_per_element = 2;
  double activation_bytes_per_element = 2;

  DType tensor_dtype = DType::BF16;  // the tensor-core math format
  double tensor_flops = 0;
  double cuda_flops = 0;  // softmax, norms, activation, dequantization (fp32 CUDA cores)
  // Compulsory HBM traffic: every byte the kernel must read or write once.
  double hbm_bytes = 0;
  // Of hbm_bytes, the input the previous kernel just wrote (an activation): served from L2
  // when it fits (the small-working-set rule).
  double resident_input_bytes = 0;
  // Re-reads beyond the compulsory bytes (GQA query heads re-reading their KV head, flash
  // attention query tiles re-reading K/V) and the working set that must stay resident in L2
  // for them to hit. GEMM tile re-reads are derived from the chosen tile by the resource model.
  double reread_bytes = 0;
  double reread_footprint_bytes = 0;
  // Independent work items (CTAs) the kernel can spread over: bounds how many SMs stream at
  // once. Row-wise kernels (RMSNorm, RoPE, SiLU-and-mul, KV-cache write, sampling: vLLM's
  // kernels launch one block per token) have one per row. 0: plenty (torch elementwise ops).
  double parallel_work_items = 0;

  // Collectives: bytes per rank and the number of ranks.
  double collective_bytes = 0;
  int32_t ranks = 1;
  // An all-reduce that also adds the residual and applies the RMSNorm after it (one kernel:
  // KernelFusionOptions::allreduce_rms_norm_max_bytes); hbm_bytes holds the fused norm's bytes.
  bool fused_rms_norm = false;

  bool operator==(const Kernel&) const = default;
};

// The longest list: a tensor-parallel MoE model with full, windowed or chunked, and linear
// layers (about 40); Add() stops the program rather than write past it.
inline constexpr int kMaxIterationKernels = 48;

struct IterationKernels {
  std::array<Kernel, kMaxIterationKernels> kernels;
  int size = 0;
  int64_t new_tokens = 0;  // rows through the linear layers
  int64_t sampled_rows = 0;  // rows through the LM head
  // Slots of the decode attention kernels of the full-attention, sliding-window and chunked
  // layers (-1: none), which IterationKernelBuilder::RebuildDecodeAttention recomputes.
  std::array<int, 3> decode_attention_slot{-1, -1, -1};
  const Kernel* begin() const { return kernels.data(); }
  const Kernel* end() const { return kernels.data() + size; }
  // A fresh kernel (a reused IterationKernels keeps its array; only the slots used are reset).
  Kernel& Add() {
    if (size >= kMaxIterationKernels) [[unlikely]]
      std::abort();  // a new kernel kind needs a larger array
    Kernel& k = kernels[static_cast<size_t>(size++)];
    k = Kernel{};
    return k;
  }
};

// Expert parallelism over the tensor-parallel group (vLLM's --enable-expert-parallel with no
// data parallelism: EP size = TP): each GPU holds num_experts / TP whole experts instead of a
// 1/TP shard of every expert. `dispatch` says how tokens reach them:
//   kAllReduce: every GPU has every token (vLLM's path without data parallelism); it runs its
//               own experts on the rows routed to them and the MLP all-reduce combines;
//   kAllToAll:  each GPU takes 1/TP of the tokens, sends each token to the GPUs of its top-k
//               experts and gets the results back (dispatch and combine all-to-all, as the
//               DeepEP and pplx kernels do), then an all-gather restores every token.
//   kAllGather: attention data parallelism only: every GPU gathers every rank's tokens, runs the
//               rows routed to its own experts and reduce-scatters the outputs back to the
//               ranks (TensorRT-LLM's CUTLASS MoE under enable_attention_dp, vLLM's
//               allgather_reducescatter all2all backend).
// `imbalance` >= 1: rows the busiest GPU receives over the mean (1: uniform routing); the step
// waits for that GPU.
struct ExpertParallelism {
  enum class Dispatch : uint8_t { kNone, kAllReduce, kAllToAll, kAllGather };
  Dispatch dispatch = Dispatch::kNone;  // kNone: experts sharded by tensor parallelism
  double imbalance = 1;
  bool enabled() const { return dispatch != Dispatch::kNone; }
};

// Kernels the engine fuses (its personality's KernelFusion, docs/engines.md#kernel-fusion).
struct KernelFusionOptions {
  // The residual add runs inside the RMSNorm after it: each layer's two adds disappear and each
  // norm reads the residual beside the hidden state and writes the new residual beside its output.
  bool add_rms_norm = false;
  // The tensor-parallel all-reduce, the residual add and the next RMSNorm run as one collective
  // kernel for messages below this many bytes (0: never): a layer's norms disappear (the first
  // layer's input norm and, where a message is too large, the unfused kernels stay).
  double allreduce_rms_norm_max_bytes = 0;
};

struct IterationKernelOptions {
  int tensor_parallel = 1;
  // Attention data parallelism (docs/engines.md#moe-with-attention-data-parallelism): this many ranks of
  // `tensor_parallel` GPUs each run the attention and dense layers on a batch of their own (the
  // batch Build is given is one rank's), while the routed experts span every GPU of the group,
  // tensor_parallel x attention_data_parallel of them, and see every rank's tokens. The ranks are
  // taken to hold as many tokens each (the engine prices each rank's step and waits for the
  // slowest). 1: no data parallelism.
  int attention_data_parallel = 1;
  WeightFormat weights;  // dtype + bytes per parameter (group scales included)
  DType activation_dtype = DType::BF16;  // X, D, Q/O and the residual stream
  DType kv_dtype = DType::BF16;
  // Tensor-core math of the GEMMs: fp8 for fp8 weights, else the activation dtype (weights
  // in int4/int8 are dequantized to it, which adds CUDA-core work).
  DType compute_dtype = DType::BF16;
  int kv_block_tokens = 16;  // block-table granularity of the paged KV cache
  // true: the decode kernel loads each KV head once for all the query heads that share it
  // (FlashInfer, FlashAttention, SGLang's grouped Triton kernel); false: one pass per query
  // head (vLLM's original PagedAttention), whose repeats are L2 re-reads.
  bool decode_groups_query_heads = true;
  int attention_query_tile = 128;  // rows of Q per flash-attention tile (prefill)
  int decode_kv_split_tokens = 256;  // split-KV chunk of the decode kernel (flash-decoding)
  ExpertParallelism expert_parallel;
  KernelFusionOptions fusion;
};

// Per-GPU dimensions after tensor parallelism, validated once.
class IterationKernelBuilder {
 public:
  static absl::StatusOr<IterationKernelBuilder> Create(const ModelSpec& model, const IterationKernelOptions& options);

  // Fills `out` (previous contents dropped). O(prefill chunks + decode sequences).
  void Build(const BatchShape& batch, IterationKernels* out) const;
  // For a batch of decode sequences only, where `out` holds what Build gave for a batch of as
  // many decode sequences with the same padding and sampled rows: recomputes in place the
  // kernels that read the sequences' contexts (their attention), which leaves `out` equal to
  // Build(batch). Consecutive steps of a decode batch differ only there, so a cost model can
  // keep every other kernel's time. False, with `out` unchanged, where other kernels read the
  // contexts too (latent and sparse attention) or the batch has a prefill.
  bool RebuildDecodeAttention(const BatchShape& batch, IterationKernels* out) const;

  const IterationKernelOptions& options() const { return options_; }
  const ModelSpec& model() const { return model_; }
  // K and V bytes of one token in one layer on this GPU.
  double kv_bytes_per_token_layer() const { return kv_bytes_per_token_layer_; }

 private:
  IterationKernelBuilder() = default;
  // Whose weights a GEMM multiplies: a linear layer's (in the weight format), a routed
  // expert's (in the weight format even when only experts are quantized), or an
  // embedding-shaped matrix's (LM head, router: always the activation dtype).
  enum class GemmWeights : uint8_t { kLinear, kRoutedExpert, kUnquantized };
  void AddGemm(IterationKernels* out, const char* name, int32_t repeat, int64_t m, int64_t n, int64_t k, int32_t groups,
               GemmWeights role = GemmWeights::kLinear) const;
  void AddElementwise(IterationKernels* out, KernelKind kind, const char* name, int32_t repeat, double read_bytes,
                      double write_bytes, double cuda_flops, double resident_input_bytes, double work_items) const;
  // An attention kernel of `repeat` layers, in the activation dtype; the caller fills its demands.
  Kernel& AddAttentionKernel(IterationKernels* out, KernelKind kind, const char* name, int32_t repeat) const;
  void InitAttentionKernel(Kernel& a, KernelKind kind, const char* name, int32_t repeat) const;
  // A collective over the tensor-parallel group, or over `ranks` GPUs (0: the TP group).
  void AddCollective(IterationKernels* out, KernelKind kind, const char* name, int32_t repeat, double bytes,
                     int ranks = 0) const;
  // The GPUs the routed experts span: the tensor-parallel group times the attention-DP ranks.
  int expert_world() const { return options_.tensor_parallel * options_.attention_data_parallel; }
  // Whether the all-reduce of a `hidden_bytes` message takes the add and the norm after it.
  bool AllReduceTakesNorm(double hidden_bytes) const {
    return options_.tensor_parallel > 1 && hidden_bytes < options_.fusion.allreduce_rms_norm_max_bytes;
  }
  // An RMSNorm over `tokens` rows of the hidden state, with the residual add before it when the
  // engine fuses the two (its residual read and written beside the hidden state).
  void AddNorm(IterationKernels* out, const char* name, int32_t repeat, double tokens) const;
  // The all-reduce of a row-parallel layer's output (TP > 1) and the residual add after it:
  // one kernel with the RMSNorm after them where the engine fuses the three (returns true: the
  // caller adds no norm); else the all-reduce, then the add `add_name` unless the norm takes it.
  bool AddAllReduce(IterationKernels* out, const char* name, const char* fused_name, const char* add_name,
                    int32_t repeat, double tokens) const;
  void AddMlp(IterationKernels* out, int64_t tokens) const;
  // The routed experts of one expert layer on this GPU (models/expert_kernels.cc): routing,
  // dispatch, the grouped GEMMs over the experts the rows hit, combine, shared experts.
  void AddExperts(IterationKernels* out, int64_t tokens) const;
  // The shared experts of every expert layer, as a dense MLP on `tokens` (one rank's).
  void AddSharedExperts(IterationKernels* out, int64_t tokens) const;
  // Caches the K/V (or latent) of the batch's real tokens: `elements_per_token` activations in,
  // kv_bytes_per_token_layer_ out per token and layer.
  void AddKvCacheWrite(IterationKernels* out, int64_t real_tokens, double elements_per_token) const;
  // The attention of the full-attention layers, then of the sliding-window and the chunked
  // local ones (if any).
  void AddAttention(const BatchShape& batch, IterationKernels* out) const;
  // What one kind's queries see: at most `window` keys, or only their own `chunk` (0: all).
  struct Reach {
    int64_t window = 0;
    int64_t chunk = 0;
  };
  // One kind's kernels over `repeat` layers.
  void AddPrefillAttention(const BatchShape& batch, IterationKernels* out, int32_t repeat, Reach reach,
                           const char* name) const;
  // `which`: 0 full, 1 sliding-window, 2 chunked layers (its slot in decode_attention_slot).
  void AddDecodeAttention(const BatchShape& batch, IterationKernels* out, int32_t repeat, Reach reach, const char* name,
                          int which) const;
  // The demands of a decode attention kernel `a` (initialised by InitAttentionKernel).
  void FillDecodeAttention(const BatchShape& batch, Reach reach, Kernel& a) const;
  // What kind `which` (as above) reaches, for its prefill and decode kernels alike.
  Reach KindReach(int which) const {
    return which == 1 ? Reach{.window = window_tokens_} : which == 2 ? Reach{.chunk = chunk_tokens_} : Reach{};
  }
  // Multi-head latent attention (models/latent_attention_kernels.cc): the low-rank query and
  // latent projections, RoPE and the latent cache write; then vLLM's two attention paths,
  // prefill up-projecting the latent to full heads, decode attending in the latent space.
  void AddLatentProjections(IterationKernels* out, int64_t tokens, int64_t real_tokens) const;
  void AddLatentAttention(const BatchShape& batch, IterationKernels* out) const;
  // DeepSeek Sparse Attention (DeepSeek-V3.2): the indexer's projections and its fp8 scores
  // over every cached token, top-k selection, then prefill and decode alike attend in the
  // latent space to at most index_topk tokens per query (vLLM's FlashMLA sparse kernels).
  void AddSparseLatentAttention(const BatchShape& batch, int64_t tokens, IterationKernels* out) const;
  // Gated DeltaNet layers (models/linear_attention_kernels.cc): the input projections, the
  // causal convolution, the chunked delta rule (prefill) or the recurrent update (decode) over
  // each sequence's state, the gated norm and out_proj.
  void AddLinearAttention(const BatchShape& batch, int64_t tokens, IterationKernels* out) const;

  // Keys, KV blocks and split-KV chunks a decode batch reads (exact integer sums).
  struct DecodeKeyCounts {
    int64_t keys = 0, blocks = 0, chunks = 0, partials = 0, longest = 0;
  };
  DecodeKeyCounts CountDecodeKeys(const BatchShape& batch, Reach reach) const;

  ModelSpec model_;
  IterationKernelOptions options_;
  int32_t layers_ = 0;
  int32_t full_attention_layers_ = 0;
  int32_t window_layers_ = 0;  // sliding-window layers (models/attention_layout.h)
  int64_t window_tokens_ = 0;
  int32_t chunked_layers_ = 0;  // chunked local attention layers (Llama-4)
  int64_t chunk_tokens_ = 0;
  int32_t attention_layers_ = 0;  // layers with attention and a KV cache (all but the linear ones)
  int32_t linear_layers_ = 0;  // linear-attention layers (Qwen3-Next's Gated DeltaNet)
  // Per GPU: key and value heads and sizes of the linear layers, the convolution's width, and
  // one sequence's state bytes per layer.
  int64_t linear_key_heads_ = 0, linear_value_heads_ = 0, linear_key_dim_ = 0, linear_value_dim_ = 0;
  int64_t conv_kernel_ = 0;
  double linear_state_bytes_ = 0;
  int64_t q_gate_width_ = 0;  // the query-sized output gate (gated_attention_output), per GPU
  bool quantize_linears_ = true;  // false: only the routed experts are in the weight format
  double extra_scores_per_query_ = 0;  // attention sinks: one more logit per query and head
  double cuda_flops_per_score_ = 0;  // softmax, plus the soft cap where the model has one
  int64_t d_ = 0;
  int64_t q_heads_ = 0;  // per GPU
  int64_t kv_heads_ = 0;  // per GPU (replicated when TP exceeds the KV heads)
  int64_t head_dim_ = 0;
  int64_t ffn_ = 0;  // dense MLP width per GPU
  int64_t expert_ffn_ = 0;  // one expert's width per GPU (whole under expert parallelism)
  int64_t local_experts_ = 0;  // experts one GPU holds (all, or num_experts / TP under EP)
  int64_t shared_ffn_ = 0;  // shared experts' total width per GPU
  int64_t vocab_ = 0;  // per GPU (vocabulary-parallel LM head)
  int32_t dense_mlp_layers_ = 0;  // layers with the dense MLP (all, or MoE's leading ones)
  int32_t expert_mlp_layers_ = 0;  // layers with routed experts
  // Latent attention (0 without): widths of the query latent, the KV latent, the rotary and
  // non-rotary query/key parts and the value head.
  int64_t q_lora_ = 0, kv_lora_ = 0, rope_dim_ = 0, nope_dim_ = 0, v_dim_ = 0;
  int64_t index_heads_ = 0, index_dim_ = 0, index_topk_ = 0;  // sparse attention (0 without)
  double act_bytes_ = 2;
  double weight_bytes_ = 2;
  double kv_elem_bytes_ = 2;
  double kv_bytes_per_token_layer_ = 0;
  bool dequant_weights_ = false;  // int4/int8 weights multiplied in compute_dtype
  int block_shift_ = -1;  // log2(kv_block_tokens) when a power of two, else -1
  int split_shift_ = -1;  // log2(decode_kv_split_tokens) likewise
};

}  // namespace infergrid

#endif  // INFERGRID_MODELS_ITERATION_KERNELS_H_
