#include "models/iteration_kernels.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "models/attention_layout.h"
#include "models/kernel_constants.h"
#include "models/kv_cache_size.h"
#include "models/parameter_count.h"

namespace infergrid {
namespace {

// log2(n) when n is a power of two, else -1.
int PowerOfTwoShift(int64_t n) {
  if (n < 1 || (n & (n - 1)) != 0) return -1;
  int shift = 0;
  while ((int64_t{1} << shift) < n) ++shift;
  return shift;
}

// The model's sizes are positive and split over TP (heads, experts), and the options are
// consistent with it.
absl::Status CheckBuilderInputs(const ModelSpec& model, const IterationKernelOptions& options) {
  const std::string where = absl::StrCat("model '", model.name(), "'");
  if (model.num_layers() <= 0 || model.hidden_size() <= 0 || model.num_attention_heads() <= 0 ||
      model.num_kv_heads() <= 0 || model.head_dim() <= 0 || model.vocab_size() <= 0 || model.ffn_dim() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where,
                     ": layers, hidden size, heads, KV heads, head dim, FFN dim and vocabulary must "
                     "all be positive"));
  }
  const int tp = options.tensor_parallel;
  if (tp < 1) return absl::InvalidArgumentError(absl::StrCat("tensor parallel must be >= 1, got ", tp));
  if (model.num_attention_heads() % tp != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", model.num_attention_heads(), " attention heads do not split over TP ", tp));
  }
  if (model.num_kv_heads() % tp != 0 && tp % model.num_kv_heads() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", model.num_kv_heads(),
                                                   " KV heads neither split over nor replicate "
                                                   "evenly across TP ",
                                                   tp));
  }
  if (options.kv_block_tokens < 1 || options.attention_query_tile < 1 || options.decode_kv_split_tokens < 1) {
    return absl::InvalidArgumentError("KV block, query tile and split sizes must be positive");
  }
  if (model.has_moe() && (model.moe().num_experts() < 1 || model.moe().experts_per_token() < 1 ||
                          model.moe().experts_per_token() > model.moe().num_experts())) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": MoE needs 1 <= experts_per_token <= num_experts"));
  }
  const ExpertParallelism& ep = options.expert_parallel;
  const int dp = options.attention_data_parallel;
  if (dp < 1) return absl::InvalidArgumentError(absl::StrCat("attention data parallel must be >= 1, got ", dp));
  const int world = tp * dp;  // the GPUs the routed experts span
  if (dp > 1 && ep.dispatch == ExpertParallelism::Dispatch::kAllReduce) {
    return absl::InvalidArgumentError(
        "attention data parallelism with expert parallelism dispatches tokens by all-to-all or all-gather, not "
        "all-reduce");
  }
  if (dp == 1 && ep.dispatch == ExpertParallelism::Dispatch::kAllGather) {
    return absl::InvalidArgumentError(
        "all-gather dispatch gathers attention data-parallel ranks' tokens: it needs ranks");
  }
  if (ep.enabled()) {
    if (!model.has_moe()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": expert parallelism needs a mixture-of-experts model"));
    }
    if (model.moe().num_experts() % world != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": ", model.moe().num_experts(), " experts do not split evenly over ", world, " GPUs"));
    }
    if (!(ep.imbalance >= 1) || ep.imbalance > world) {
      return absl::InvalidArgumentError(absl::StrCat("expert load imbalance must be in 1..", world,
                                                     " (the busiest GPU's rows over the mean), got ", ep.imbalance));
    }
  }
  return absl::OkStatus();
}

}  // namespace

using namespace kernel_constants;  // NOLINT: the kernel list's shared constants

absl::string_view KernelKindName(KernelKind kind) {
  switch (kind) {
    case KernelKind::kGemm: return "gemm";
    case KernelKind::kAttentionPrefill: return "attention_prefill";
    case KernelKind::kAttentionDecode: return "attention_decode";
    case KernelKind::kNorm: return "norm";
    case KernelKind::kRope: return "rope";
    case KernelKind::kKvCacheWrite: return "kv_cache_write";
    case KernelKind::kActivation: return "activation";
    case KernelKind::kResidualAdd: return "residual_add";
    case KernelKind::kEmbedding: return "embedding";
    case KernelKind::kMoeRouting: return "moe_routing";
    case KernelKind::kSampler: return "sampler";
    case KernelKind::kAllReduce: return "all_reduce";
    case KernelKind::kAllGather: return "all_gather";
    case KernelKind::kAllToAll: return "all_to_all";
  }
  return "unknown";
}

absl::StatusOr<IterationKernelBuilder> IterationKernelBuilder::Create(const ModelSpec& model,
                                                                      const IterationKernelOptions& options) {
  if (absl::Status s = CheckBuilderInputs(model, options); !s.ok()) return s;
  const int tp = options.tensor_parallel;
  const ExpertParallelism& ep = options.expert_parallel;
  IterationKernelBuilder b;
  b.model_ = model;
  b.block_shift_ = PowerOfTwoShift(options.kv_block_tokens);
  b.split_shift_ = PowerOfTwoShift(options.decode_kv_split_tokens);
  b.options_ = options;
  b.layers_ = model.num_layers();
  const AttentionLayerCounts attention = CountAttentionLayers(model);
  b.full_attention_layers_ = attention.full;
  b.window_layers_ = attention.window;
  b.window_tokens_ = SlidingWindowTokens(model);
  b.chunked_layers_ = attention.chunked;
  b.chunk_tokens_ = AttentionChunkTokens(model);
  b.attention_layers_ = attention.attention();
  b.linear_layers_ = attention.linear;
  if (attention.linear > 0) {
    const LinearAttention& l = model.linear_attention();
    if (l.num_key_heads() % tp != 0 || l.num_value_heads() % tp != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("model '", model.name(), "': ", l.num_key_heads(), " key and ", l.num_value_heads(),
                       " value heads of the linear-attention layers do not split over TP ", tp));
    }
    b.linear_key_heads_ = l.num_key_heads() / tp;
    b.linear_value_heads_ = l.num_value_heads() / tp;
    b.linear_key_dim_ = l.key_head_dim();
    b.linear_value_dim_ = l.value_head_dim();
    b.conv_kernel_ = l.conv_kernel();
    b.linear_state_bytes_ = static_cast<double>(LinearStateBytesPerLayer(model, tp));
  }
  b.quantize_linears_ = !options.weights.experts_only;
  b.q_gate_width_ = model.gated_attention_output() ? model.num_attention_heads() / tp * model.head_dim() : 0;
  b.extra_scores_per_query_ = model.attention().attention_sinks() ? 1 : 0;
  b.cuda_flops_per_score_ =
      kSoftmaxFlopsPerScore + (model.attention().attn_logit_softcapping() > 0 ? kSoftcapFlopsPerScore : 0);
  b.d_ = model.hidden_size();
  b.q_heads_ = model.num_attention_heads() / tp;
  b.kv_heads_ = KvHeadsPerGpu(model, tp);
  b.head_dim_ = model.head_dim();
  b.ffn_ = CeilDiv(model.ffn_dim(), tp);
  if (model.has_moe()) {
    const int64_t expert_ffn = model.moe().expert_ffn_dim() > 0 ? model.moe().expert_ffn_dim() : model.ffn_dim();
    const int world = tp * options.attention_data_parallel;  // the GPUs the routed experts span
    b.expert_ffn_ = ep.enabled() ? expert_ffn : CeilDiv(expert_ffn, world);
    b.local_experts_ = ep.enabled() ? model.moe().num_experts() / world : model.moe().num_experts();
    b.shared_ffn_ = CeilDiv(expert_ffn * model.moe().num_shared_experts(), tp);
  }
  b.vocab_ = CeilDiv(model.vocab_size(), tp);
  b.dense_mlp_layers_ = b.layers_ - static_cast<int32_t>(ExpertLayers(model));
  b.expert_mlp_layers_ = b.layers_ - b.dense_mlp_layers_;
  if (model.has_mla()) {
    b.q_lora_ = model.mla().q_lora_rank();
    b.kv_lora_ = model.mla().kv_lora_rank();
    b.rope_dim_ = model.mla().qk_rope_head_dim();
    b.nope_dim_ = model.mla().qk_nope_head_dim();
    b.v_dim_ = model.mla().v_head_dim();
    if (model.has_sparse_attention()) {
      b.index_heads_ = model.sparse_attention().index_heads();
      b.index_dim_ = model.sparse_attention().index_head_dim();
      b.index_topk_ = model.sparse_attention().index_topk();
    }
  }
  b.act_bytes_ = BytesPerElement(options.activation_dtype);
  b.weight_bytes_ = options.weights.BytesPerParameter();
  b.kv_elem_bytes_ = BytesPerElement(options.kv_dtype);
  if (b.act_bytes_ <= 0 || b.weight_bytes_ <= 0 || b.kv_elem_bytes_ <= 0) {
    return absl::InvalidArgumentError("activation, weight and KV dtypes must be set");
  }
  b.kv_bytes_per_token_layer_ = static_cast<double>(KvBytesPerTokenLayer(model, options.kv_dtype, tp));
  const DType w = options.weights.dtype;
  // Integer weights, and FP4 weights on a GPU without FP4 tensor cores (Marlin's W4A16), are
  // converted to the compute dtype inside the GEMM.
  b.dequant_weights_ = ((w == DType::INT4 || w == DType::INT8) && options.compute_dtype != DType::INT8) ||
                       (w == DType::FP4_E2M1 && options.compute_dtype != DType::FP4_E2M1);
  return b;
}

void IterationKernelBuilder::AddGemm(IterationKernels* out, const char* name, int32_t repeat, int64_t m, int64_t n,
                                     int64_t k, int32_t groups, GemmWeights role) const {
  // Embedding-shaped matrices (LM head, router) stay in the activation dtype under weight
  // quantization, as vLLM, AWQ and GPTQ checkpoints keep them; so does every linear but the
  // routed experts' when the checkpoint quantizes only those.
  const bool quantized = role == GemmWeights::kRoutedExpert || (role == GemmWeights::kLinear && quantize_linears_);
  const double weight_bytes = quantized ? weight_bytes_ : act_bytes_;
  Kernel& g = out->Add();
  g = Kernel{};
  g.kind = KernelKind::kGemm;
  g.name = name;
  g.repeat = repeat;
  g.m = m;
  g.n = n;
  g.k = k;
  g.groups = groups;
  g.weight_bytes_per_element = weight_bytes;
  g.activation_bytes_per_element = act_bytes_;
  g.tensor_dtype = quantized ? options_.compute_dtype : options_.activation_dtype;
  const double rows = static_cast<double>(m) * groups;
  g.tensor_flops = 2.0 * rows * static_cast<double>(n) * static_cast<double>(k);
  const double weights = static_cast<double>(groups) * static_cast<double>(n) * static_cast<double>(k);
  if (quantized && dequant_weights_) g.cuda_flops = kDequantFlopsPerElement * weights;
  const double x_bytes = rows * static_cast<double>(k) * act_bytes_;
  g.hbm_bytes = x_bytes + weights * weight_bytes + rows * static_cast<double>(n) * act_bytes_;
  g.resident_input_bytes = x_bytes;
}

void IterationKernelBuilder::AddElementwise(IterationKernels* out, KernelKind kind, const char* name, int32_t repeat,
                                            double read_bytes, double write_bytes, double cuda_flops,
                                            double resident_input_bytes, double work_items) const {
  Kernel& e = out->Add();
  e = Kernel{};
  e.kind = kind;
  e.name = name;
  e.repeat = repeat;
  e.activation_bytes_per_element = act_bytes_;
  e.cuda_flops = cuda_flops;
  e.hbm_bytes = read_bytes + write_bytes;
  e.resident_input_bytes = resident_input_bytes;
  e.parallel_work_items = work_items;
}

Kernel& IterationKernelBuilder::AddAttentionKernel(IterationKernels* out, KernelKind kind, const char* name,
                                                   int32_t repeat) const {
  Kernel& a = out->Add();
  InitAttentionKernel(a, kind, name, repeat);
  return a;
}

void IterationKernelBuilder::InitAttentionKernel(Kernel& a, KernelKind kind, const char* name, int32_t repeat) const {
  a = Kernel{};
  a.kind = kind;
  a.name = name;
  a.repeat = repeat;
  a.activation_bytes_per_element = act_bytes_;
  a.tensor_dtype = options_.activation_dtype;
}

void IterationKernelBuilder::AddCollective(IterationKernels* out, KernelKind kind, const char* name, int32_t repeat,
                                           double bytes, int ranks) const {
  Kernel& c = out->Add();
  c = Kernel{};
  c.kind = kind;
  c.name = name;
  c.repeat = repeat;
  c.collective_bytes = bytes;
  c.ranks = ranks > 0 ? ranks : options_.tensor_parallel;
}

void IterationKernelBuilder::AddNorm(IterationKernels* out, const char* name, int32_t repeat, double tokens) const {
  const double hidden_bytes = tokens * static_cast<double>(d_) * act_bytes_;
  const double weight_bytes = static_cast<double>(d_) * act_bytes_;
  const double flops = kNormFlopsPerElement * tokens * static_cast<double>(d_);
  if (!options_.fusion.add_rms_norm) {
    AddElementwise(out, KernelKind::kNorm, name, repeat, hidden_bytes + weight_bytes, hidden_bytes, flops, hidden_bytes,
                   tokens);
    return;
  }
  // Fused add + RMSNorm: the residual is read and written beside the hidden state.
  AddElementwise(out, KernelKind::kNorm, name, repeat, 2 * hidden_bytes + weight_bytes, 2 * hidden_bytes,
                 flops + tokens * static_cast<double>(d_), hidden_bytes, tokens);
}

bool IterationKernelBuilder::AddAllReduce(IterationKernels* out, const char* name, const char* fused_name,
                                          const char* add_name, int32_t repeat, double tokens) const {
  const double hidden_bytes = tokens * static_cast<double>(d_) * act_bytes_;
  if (AllReduceTakesNorm(hidden_bytes)) {
    AddCollective(out, KernelKind::kAllReduce, fused_name, repeat, hidden_bytes);
    Kernel& fused = out->kernels[static_cast<size_t>(out->size - 1)];
    fused.fused_rms_norm = true;
    // The add and the norm on the reduced rows: the residual read and written, the normed rows
    // written, the norm's weight read.
    fused.hbm_bytes = 3 * hidden_bytes + static_cast<double>(d_) * act_bytes_;
    fused.cuda_flops = (kNormFlopsPerElement + 1) * tokens * static_cast<double>(d_);
    return true;
  }
  if (options_.tensor_parallel > 1) AddCollective(out, KernelKind::kAllReduce, name, repeat, hidden_bytes);
  if (!options_.fusion.add_rms_norm) {
    AddElementwise(out, KernelKind::kResidualAdd, add_name, repeat, 2 * hidden_bytes, hidden_bytes,
                   tokens * static_cast<double>(d_), hidden_bytes, 0);
  }
  return false;
}

void IterationKernelBuilder::AddKvCacheWrite(IterationKernels* out, int64_t real_tokens,
                                             double elements_per_token) const {
  const double kv_tokens = static_cast<double>(real_tokens);
  const double kv_in = kv_tokens * elements_per_token * act_bytes_;
  AddElementwise(out, KernelKind::kKvCacheWrite, "kv_cache_write", attention_layers_, kv_in,
                 kv_tokens * kv_bytes_per_token_layer_,
                 kv_elem_bytes_ < act_bytes_ ? kDequantFlopsPerElement * kv_in / act_bytes_ : 0, kv_in, kv_tokens);
}

void IterationKernelBuilder::AddMlp(IterationKernels* out, int64_t tokens) const {
  const double t = static_cast<double>(tokens);
  const int gate = model_.gated_mlp() ? 2 : 1;
  if (dense_mlp_layers_ > 0) {
    const int32_t dense = dense_mlp_layers_;
    AddGemm(out, model_.gated_mlp() ? "gate_up_proj" : "up_proj", dense, tokens, gate * ffn_, d_, 1);
    const double in = t * static_cast<double>(gate * ffn_) * act_bytes_;
    AddElementwise(out, KernelKind::kActivation, "act", dense, in, t * static_cast<double>(ffn_) * act_bytes_,
                   kActivationFlopsPerElement * t * static_cast<double>(ffn_), in, t);
    AddGemm(out, "down_proj", dense, tokens, d_, ffn_, 1);
  }
  if (expert_mlp_layers_ > 0) AddExperts(out, tokens);
}

IterationKernelBuilder::DecodeKeyCounts IterationKernelBuilder::CountDecodeKeys(const BatchShape& batch,
                                                                                Reach reach) const {
  // Exact integer sums (every count is far below 2^53, so they convert to double exactly).
  // This loop runs over every decode sequence of every iteration: with the vLLM sizes
  // (powers of two) the ceiling divisions are shifts, which keeps it a few cycles a sequence.
  const int64_t split = options_.decode_kv_split_tokens;
  const int64_t block = options_.kv_block_tokens;
  const int64_t cap = reach.window > 0 ? reach.window : INT64_MAX;
  DecodeKeyCounts n;
  const auto accumulate = [&](int64_t len, int64_t len_blocks, int64_t len_chunks) {
    n.keys += len;
    n.blocks += len_blocks;
    n.chunks += len_chunks;
    if (len_chunks > 1) n.partials += len_chunks;
    n.longest = std::max(n.longest, len);
  };
  if (reach.chunk > 0 || reach.window > 0) {
    // Windowed and chunked layers: the keys their reach leaves (the rare case, kept apart from
    // the full-attention loop below, which runs for every model).
    for (int64_t context : batch.decode_context_tokens) {
      const int64_t len = reach.chunk > 0 ? ChunkedKeys(context, reach.chunk) : std::min(context + 1, cap);
      accumulate(len, CeilDiv(len, block), CeilDiv(len, split));
    }
  } else if (block_shift_ >= 0 && split_shift_ >= 0) {
    for (int64_t context : batch.decode_context_tokens) {
      const int64_t len = context + 1;  // the new token's K/V is cached first
      accumulate(len, (len + block - 1) >> block_shift_, (len + split - 1) >> split_shift_);
    }
  } else {
    for (int64_t context : batch.decode_context_tokens) {
      const int64_t len = std::min(context + 1, cap);
      accumulate(len, CeilDiv(len, block), CeilDiv(len, split));
    }
  }
  return n;
}

void IterationKernelBuilder::AddAttention(const BatchShape& batch, IterationKernels* out) const {
  const Reach window = KindReach(1);
  const Reach chunk = KindReach(2);
  if (!batch.prefill.empty()) {
    if (full_attention_layers_ > 0)
      AddPrefillAttention(batch, out, full_attention_layers_, Reach{}, "attention_prefill");
    if (window_layers_ > 0) AddPrefillAttention(batch, out, window_layers_, window, "attention_prefill_window");
    if (chunked_layers_ > 0) AddPrefillAttention(batch, out, chunked_layers_, chunk, "attention_prefill_chunked");
  }
  if (!batch.decode_context_tokens.empty()) {
    if (full_attention_layers_ > 0)
      AddDecodeAttention(batch, out, full_attention_layers_, Reach{}, "attention_decode", 0);
    if (window_layers_ > 0) AddDecodeAttention(batch, out, window_layers_, window, "attention_decode_window", 1);
    if (chunked_layers_ > 0) AddDecodeAttention(batch, out, chunked_layers_, chunk, "attention_decode_chunked", 2);
  }
}

namespace {

// Keys the query tiles of one prefill chunk load: tile j reads from the first key its first
// row sees (0 without a window; its chunk's start in a chunked layer) through its last row's
// own key.
double PrefillKeysRead(int64_t new_tokens, int64_t context, int64_t tile, int64_t window, int64_t chunk) {
  const int64_t tiles = CeilDiv(new_tokens, tile);
  const double q = static_cast<double>(tiles), c = static_cast<double>(context);
  if (chunk > 0) {
    double keys = 0;
    for (int64_t j = 0; j < tiles; ++j) {
      const int64_t first = context + j * tile;
      const int64_t last = context + std::min((j + 1) * tile, new_tokens) - 1;
      keys += static_cast<double>(last + 1 - first / chunk * chunk);
    }
    return keys;
  }
  if (window <= 0) {
    // sum over tiles = q*c + tile*q*(q-1)/2 + n.
    return q * c + static_cast<double>(tile) * q * (q - 1) / 2 + static_cast<double>(new_tokens);
  }
  double keys = 0;
  for (int64_t j = 0; j < tiles; ++j) {
    const int64_t first = context + j * tile;
    const int64_t last = context + std::min((j + 1) * tile, new_tokens) - 1;
    keys += static_cast<double>(last + 1 - std::max<int64_t>(0, first - window + 1));
  }
  return keys;
}

}  // namespace

void IterationKernelBuilder::AddPrefillAttention(const BatchShape& batch, IterationKernels* out, int32_t repeat,
                                                 Reach reach, const char* name) const {
  const int64_t window = reach.window, chunk_tokens = reach.chunk;
  const double q_heads = static_cast<double>(q_heads_);
  const double head_dim = static_cast<double>(head_dim_);
  const double group = q_heads / static_cast<double>(kv_heads_);  // query heads per KV head on this GPU
  const double kv_tl = kv_bytes_per_token_layer_;
  const bool quantized_kv = options_.kv_dtype != options_.activation_dtype && kv_elem_bytes_ < act_bytes_;
  const int64_t tile = options_.attention_query_tile;
  double pairs = 0, new_tokens = 0, keys = 0, keys_read = 0, footprint = 0, work = 0;
  for (const PrefillChunk& chunk : batch.prefill) {
    const double n = static_cast<double>(chunk.new_tokens);
    pairs += chunk_tokens > 0 ? ChunkedPrefillPairs(chunk.new_tokens, chunk.context_tokens, chunk_tokens)
                              : PrefillPairs(chunk.new_tokens, chunk.context_tokens, window);
    new_tokens += n;
    // Keys loaded once: the context a window (or the first query's own chunk) still reaches,
    // and the new keys.
    int64_t reached = window > 0 ? std::max<int64_t>(0, chunk.context_tokens - window + 1) : 0;
    if (chunk_tokens > 0) reached = chunk.context_tokens / chunk_tokens * chunk_tokens;
    const double span = static_cast<double>(chunk.context_tokens - reached) + n;
    keys += span;
    keys_read += PrefillKeysRead(chunk.new_tokens, chunk.context_tokens, tile, window, chunk_tokens);
    footprint = std::max(footprint, span * kv_tl);
    work += static_cast<double>(CeilDiv(chunk.new_tokens, tile)) * q_heads;
  }
  Kernel& a = AddAttentionKernel(out, KernelKind::kAttentionPrefill, name, repeat);
  a.tensor_flops = 4.0 * q_heads * head_dim * pairs;
  a.cuda_flops = cuda_flops_per_score_ * q_heads * (pairs + extra_scores_per_query_ * new_tokens);
  // Every query head's tiles dequantize the K/V they load.
  if (quantized_kv) a.cuda_flops += kDequantFlopsPerElement * group * keys_read * kv_tl / kv_elem_bytes_;
  const double qo_bytes = 2.0 * new_tokens * q_heads * head_dim * act_bytes_;
  a.hbm_bytes = qo_bytes + keys * kv_tl;
  a.resident_input_bytes = qo_bytes / 2;
  // Each query head re-reads its KV head, tile after tile (flash kernels keep one tile of
  // K/V in shared memory at a time): everything beyond one pass is a re-read.
  a.reread_bytes = std::max(0.0, group * keys_read - keys) * kv_tl;
  a.reread_footprint_bytes = footprint;
  a.parallel_work_items = work;
}

void IterationKernelBuilder::AddDecodeAttention(const BatchShape& batch, IterationKernels* out, int32_t repeat,
                                                Reach reach, const char* name, int which) const {
  out->decode_attention_slot[static_cast<size_t>(which)] = out->size;
  FillDecodeAttention(batch, reach, AddAttentionKernel(out, KernelKind::kAttentionDecode, name, repeat));
}

bool IterationKernelBuilder::RebuildDecodeAttention(const BatchShape& batch, IterationKernels* out) const {
  if (kv_lora_ > 0 || !batch.prefill.empty()) return false;
  for (int which = 0; which < 3; ++which) {
    const int slot = out->decode_attention_slot[static_cast<size_t>(which)];
    if (slot < 0) continue;
    Kernel& a = out->kernels[static_cast<size_t>(slot)];
    InitAttentionKernel(a, KernelKind::kAttentionDecode, a.name, a.repeat);
    FillDecodeAttention(batch, KindReach(which), a);
  }
  return true;
}

void IterationKernelBuilder::FillDecodeAttention(const BatchShape& batch, Reach reach, Kernel& a) const {
  const double q_heads = static_cast<double>(q_heads_);
  const double kv_heads = static_cast<double>(kv_heads_);
  const double head_dim = static_cast<double>(head_dim_);
  const double group = q_heads / kv_heads;
  const double kv_tl = kv_bytes_per_token_layer_;
  const bool quantized_kv = options_.kv_dtype != options_.activation_dtype && kv_elem_bytes_ < act_bytes_;
  const DecodeKeyCounts counts = CountDecodeKeys(batch, reach);
  const double keys = static_cast<double>(counts.keys), blocks = static_cast<double>(counts.blocks);
  const double chunks = static_cast<double>(counts.chunks), partials = static_cast<double>(counts.partials);
  const double longest = static_cast<double>(counts.longest);
  const double sequences = static_cast<double>(batch.decode_context_tokens.size());
  a.tensor_flops = 4.0 * q_heads * head_dim * keys;
  a.cuda_flops = cuda_flops_per_score_ * q_heads * (keys + extra_scores_per_query_ * sequences);
  const double passes = options_.decode_groups_query_heads ? 1.0 : group;
  if (quantized_kv) a.cuda_flops += kDequantFlopsPerElement * passes * keys * kv_tl / kv_elem_bytes_;
  const double qo_bytes = 2.0 * sequences * q_heads * head_dim * act_bytes_;
  // Split-KV partial outputs (fp32 values plus max and sum) written and reduced.
  const double partial_bytes = 2.0 * partials * q_heads * (head_dim + 2) * 4;
  a.hbm_bytes = qo_bytes + keys * kv_tl + blocks * 4 + partial_bytes;
  a.resident_input_bytes = qo_bytes / 2;
  a.reread_bytes = (passes - 1) * keys * kv_tl;
  a.reread_footprint_bytes = longest * kv_tl;
  a.parallel_work_items = chunks * (options_.decode_groups_query_heads ? kv_heads : q_heads);
}

void IterationKernelBuilder::Build(const BatchShape& batch, IterationKernels* out) const {
  out->size = 0;
  out->decode_attention_slot = {-1, -1, -1};
  // A captured CUDA graph's padding rows run through every linear and elementwise layer; they
  // write no KV and attend to nothing, and no logits are computed for them.
  const int64_t real_tokens = batch.TotalNewTokens();
  const int64_t tokens = real_tokens + batch.padding_rows;
  out->new_tokens = tokens;
  out->sampled_rows = batch.sequences() + batch.extra_sampled_rows;
  if (real_tokens == 0) return;
  const double t = static_cast<double>(tokens);
  const double d = static_cast<double>(d_);
  const double hidden_bytes = t * d * act_bytes_;  // one [tokens, d] activation
  const bool tp = options_.tensor_parallel > 1;

  AddElementwise(out, KernelKind::kEmbedding, "embedding", 1, hidden_bytes, hidden_bytes, 0, 0, 0);
  if (tp) AddCollective(out, KernelKind::kAllReduce, "embedding_all_reduce", 1, hidden_bytes);

  // With the all-reduce fused to the norm after it, each layer's input norm runs inside the
  // previous layer's MLP all-reduce: only the first layer's stays, before the layers.
  AddNorm(out, "input_norm", AllReduceTakesNorm(hidden_bytes) ? 1 : layers_, t);
  if (kv_lora_ > 0) {
    AddLatentProjections(out, tokens, real_tokens);
    if (index_topk_ > 0) {
      AddSparseLatentAttention(batch, tokens, out);
    } else {
      AddLatentAttention(batch, out);
    }
    AddGemm(out, "o_proj", layers_, tokens, d_, q_heads_ * v_dim_, 1);
  } else {
    AddGemm(out, "qkv_proj", attention_layers_, tokens, (q_heads_ + 2 * kv_heads_) * head_dim_ + q_gate_width_, d_, 1);
    const double rope_bytes = t * static_cast<double>((q_heads_ + kv_heads_) * head_dim_) * act_bytes_;
    AddElementwise(out, KernelKind::kRope, "rope", attention_layers_, rope_bytes, rope_bytes,
                   kRopeFlopsPerElement * rope_bytes / act_bytes_, rope_bytes, t);
    AddKvCacheWrite(out, real_tokens, 2.0 * static_cast<double>(kv_heads_ * head_dim_));
    AddAttention(batch, out);
    AddGemm(out, "o_proj", attention_layers_, tokens, d_, q_heads_ * head_dim_, 1);
    if (linear_layers_ > 0) AddLinearAttention(batch, tokens, out);
  }
  if (!AddAllReduce(out, "attention_all_reduce", "attention_all_reduce_add_norm", "residual_add", layers_, t)) {
    AddNorm(out, "post_attention_norm", layers_, t);
  }
  AddMlp(out, tokens);
  if (!AddAllReduce(out, "mlp_all_reduce", "mlp_all_reduce_add_norm", "mlp_residual_add", layers_, t)) {
    AddNorm(out, "final_norm", 1, t);
  }
  const int64_t sampled = out->sampled_rows;
  AddGemm(out, "lm_head", 1, sampled, vocab_, d_, 1, GemmWeights::kUnquantized);
  const double s = static_cast<double>(sampled);
  if (tp) {
    AddCollective(out, KernelKind::kAllGather, "logits_all_gather", 1, s * static_cast<double>(vocab_) * act_bytes_);
  }
  const double vocab = static_cast<double>(model_.vocab_size());
  // Softmax and sampling over fp32 logits: two passes over [sampled, vocab].
  AddElementwise(out, KernelKind::kSampler, "sampler", 1, 2 * s * vocab * kLogitBytes, s * 8,
                 kSoftmaxFlopsPerScore * s * vocab, 0, s);
}

}  // namespace infergrid
