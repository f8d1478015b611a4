// Multi-head latent attention (DeepSeek-V2/V3) as vLLM's MLA backends run it, per layer on one
// GPU of a tensor-parallel group (H = query heads per GPU):
//   projections  q_a + kv_a fused and replicated (d -> q_lora + kv_lora + rope), RMSNorm of
//                both latents, q_b (q_lora -> H x (nope + rope)); RoPE on the queries' and the
//                shared key's rotary part; the latent and rotary key written to the cache.
//   prefill      kv_b up-projects the latent of every key a prefill chunk attends to (its
//                context and its new tokens) to full heads, then flash attention runs as
//                multi-head attention with (nope + rope)-wide keys and v-wide values.
//   decode       the weight-absorbed form: q_nope x W_UK per head into the latent space, one
//                pass over the latent cache for all H heads (a multi-query kernel with
//                kv_lora + rope wide keys and kv_lora wide values, as FlashMLA), then the
//                output x W_UV per head back to v.
// The o projection (H x v -> d) follows in Build().
#include "models/iteration_kernels.h"

#include <cmath>

#include "models/attention_layout.h"
#include "models/kernel_constants.h"

namespace infergrid {

using namespace kernel_constants;  // NOLINT: the kernel list's shared constants

void IterationKernelBuilder::AddLatentProjections(IterationKernels* out, int64_t tokens, int64_t real_tokens) const {
  const double t = static_cast<double>(tokens);
  const int64_t qk = nope_dim_ + rope_dim_;
  const int64_t latent = kv_lora_ + rope_dim_;
  if (q_lora_ > 0) {
    AddGemm(out, "q_a_kv_a_proj", layers_, tokens, q_lora_ + latent, d_, 1);
    const double normed = t * static_cast<double>(q_lora_ + kv_lora_) * act_bytes_;
    AddElementwise(out, KernelKind::kNorm, "latent_norm", layers_, normed, normed,
                   kNormFlopsPerElement * t * static_cast<double>(q_lora_ + kv_lora_), normed, t);
    AddGemm(out, "q_b_proj", layers_, tokens, q_heads_ * qk, q_lora_, 1);
  } else {
    AddGemm(out, "q_proj", layers_, tokens, q_heads_ * qk, d_, 1);
    AddGemm(out, "kv_a_proj", layers_, tokens, latent, d_, 1);
    const double normed = t * static_cast<double>(kv_lora_) * act_bytes_;
    AddElementwise(out, KernelKind::kNorm, "latent_norm", layers_, normed, normed,
                   kNormFlopsPerElement * t * static_cast<double>(kv_lora_), normed, t);
  }
  // Rotary embedding of every head's rotary query part and of the one shared rotary key.
  const double rope_bytes = t * static_cast<double>((q_heads_ + 1) * rope_dim_) * act_bytes_;
  AddElementwise(out, KernelKind::kRope, "rope", layers_, rope_bytes, rope_bytes,
                 kRopeFlopsPerElement * rope_bytes / act_bytes_, rope_bytes, t);
  AddKvCacheWrite(out, real_tokens, static_cast<double>(latent));
}

void IterationKernelBuilder::AddLatentAttention(const BatchShape& batch, IterationKernels* out) const {
  const double heads = static_cast<double>(q_heads_);
  const double qk = static_cast<double>(nope_dim_ + rope_dim_);
  const double v = static_cast<double>(v_dim_);
  const double latent = static_cast<double>(kv_lora_ + rope_dim_);
  const double kv_tl = kv_bytes_per_token_layer_;
  const bool quantized_kv = kv_elem_bytes_ < act_bytes_;
  if (!batch.prefill.empty()) {
    const int64_t tile = options_.attention_query_tile;
    int64_t expanded = 0;  // keys whose latent is up-projected: context + new tokens per chunk
    double pairs = 0, new_tokens = 0, keys_read = 0, work = 0;
    for (const PrefillChunk& chunk : batch.prefill) {
      const double n = static_cast<double>(chunk.new_tokens);
      const double c = static_cast<double>(chunk.context_tokens);
      expanded += chunk.context_tokens + chunk.new_tokens;
      pairs += n * c + n * (n + 1) / 2;
      new_tokens += n;
      const double q = static_cast<double>(CeilDiv(chunk.new_tokens, tile));
      keys_read += q * c + static_cast<double>(tile) * q * (q - 1) / 2 + n;
      work += q * heads;
    }
    const double keys = static_cast<double>(expanded);
    // The context's latent is read back from the cache (dequantized when fp8) to be expanded.
    AddGemm(out, "kv_b_proj", layers_, expanded, q_heads_ * (nope_dim_ + v_dim_), kv_lora_, 1);
    Kernel& b = out->kernels[static_cast<size_t>(out->size - 1)];
    b.hbm_bytes += keys * kv_tl;
    if (quantized_kv) b.cuda_flops += kDequantFlopsPerElement * keys * latent;
    // Expanded keys (nope from kv_b, rope broadcast from the shared key) and values per head.
    const double key_value_bytes = heads * (qk + v) * act_bytes_;
    Kernel& a = AddAttentionKernel(out, KernelKind::kAttentionPrefill, "attention_prefill", layers_);
    a.tensor_flops = 2.0 * heads * (qk + v) * pairs;
    a.cuda_flops = kSoftmaxFlopsPerScore * heads * pairs;
    const double qo_bytes = new_tokens * heads * (qk + v) * act_bytes_;
    a.hbm_bytes = qo_bytes + keys * key_value_bytes;
    a.resident_input_bytes = new_tokens * heads * qk * act_bytes_;
    // Every head has its own expanded K/V: tiles re-read only their own head's keys.
    a.reread_bytes = std::max(0.0, keys_read - keys) * key_value_bytes;
    a.reread_footprint_bytes = keys * key_value_bytes;
    a.parallel_work_items = work;
  }
  if (!batch.decode_context_tokens.empty()) {
    const int64_t rows = static_cast<int64_t>(batch.decode_context_tokens.size()) + batch.padding_rows;
    // q_nope (per head) x W_UK: into the latent space.
    // vLLM keeps the absorbed W_UK and W_UV in the activation dtype, whatever the checkpoint.
    AddGemm(out, "q_absorb", layers_, rows, kv_lora_, nope_dim_, static_cast<int32_t>(q_heads_),
            GemmWeights::kUnquantized);
    const DecodeKeyCounts counts = CountDecodeKeys(batch, Reach{});
    const double keys = static_cast<double>(counts.keys);
    const double sequences = static_cast<double>(batch.decode_context_tokens.size());
    const double value_width = static_cast<double>(kv_lora_);
    Kernel& a = AddAttentionKernel(out, KernelKind::kAttentionDecode, "attention_decode", layers_);
    // Scores over kv_lora + rope dimensions, outputs over kv_lora, for every head.
    a.tensor_flops = 2.0 * heads * (latent + value_width) * keys;
    a.cuda_flops = kSoftmaxFlopsPerScore * heads * keys;
    if (quantized_kv) a.cuda_flops += kDequantFlopsPerElement * keys * latent;
    const double qo_bytes = sequences * heads * (latent + value_width) * act_bytes_;
    const double partial_bytes = 2.0 * static_cast<double>(counts.partials) * heads * (value_width + 2) * 4;
    // All heads of a sequence share one pass over its latent cache.
    a.hbm_bytes = qo_bytes + keys * kv_tl + static_cast<double>(counts.blocks) * 4 + partial_bytes;
    a.resident_input_bytes = sequences * heads * latent * act_bytes_;
    a.reread_footprint_bytes = static_cast<double>(counts.longest) * kv_tl;
    // FlashMLA tiles 64 query heads per thread block.
    a.parallel_work_items = static_cast<double>(counts.chunks) * std::ceil(heads / 64.0);
    // The latent output (per head) x W_UV: back to the value head size.
    AddGemm(out, "v_absorb", layers_, rows, v_dim_, kv_lora_, static_cast<int32_t>(q_heads_),
            GemmWeights::kUnquantized);
  }
}

void IterationKernelBuilder::AddSparseLatentAttention(const BatchShape& batch, int64_t tokens,
                                                      IterationKernels* out) const {
  const double heads = static_cast<double>(q_heads_);
  const double latent = static_cast<double>(kv_lora_ + rope_dim_);
  const double value_width = static_cast<double>(kv_lora_);
  const double kv_tl = kv_bytes_per_token_layer_;
  const double index_key_bytes = static_cast<double>(index_dim_ + 4);
  // Every query scores every key it could see (causal), then attends to at most top-k of them.
  // Each sequence's indexer keys are read once for all its queries; the latent of the keys it
  // attends to likewise (a prefill chunk's selections overlap).
  double scored = 0, attended = 0, keys = 0, index_keys = 0, queries = 0;
  for (const PrefillChunk& chunk : batch.prefill) {
    scored += PrefillPairs(chunk.new_tokens, chunk.context_tokens, 0);
    attended += PrefillPairs(chunk.new_tokens, chunk.context_tokens, index_topk_);
    keys += static_cast<double>(chunk.context_tokens + chunk.new_tokens);
    index_keys += static_cast<double>(chunk.context_tokens + chunk.new_tokens);
    queries += static_cast<double>(chunk.new_tokens);
  }
  for (int64_t context : batch.decode_context_tokens) {
    scored += static_cast<double>(context + 1);
    attended += static_cast<double>(AttendedKeys(context, index_topk_));
    keys += static_cast<double>(AttendedKeys(context, index_topk_));
    index_keys += static_cast<double>(context + 1);
    queries += 1;
  }
  // The indexer's query (from the query latent), key and per-head weights, on every token.
  const int64_t q_in = q_lora_ > 0 ? q_lora_ : d_;
  AddGemm(out, "indexer_q_proj", layers_, tokens, index_heads_ * index_dim_, q_in, 1);
  AddGemm(out, "indexer_k_weights_proj", layers_, tokens, index_dim_ + index_heads_, d_, 1);
  Kernel& score = AddAttentionKernel(out, KernelKind::kAttentionDecode, "indexer_scores", layers_);
  score.tensor_dtype = DType::FP8_E4M3;
  score.tensor_flops = 2.0 * static_cast<double>(index_heads_ * index_dim_) * scored;
  score.cuda_flops = 2.0 * kSoftmaxFlopsPerScore * scored;  // ReLU, head weighting, top-k selection
  score.hbm_bytes = index_keys * index_key_bytes + queries * static_cast<double>(index_heads_ * index_dim_);
  score.parallel_work_items = queries;
  const int64_t rows = static_cast<int64_t>(queries) + batch.padding_rows;
  AddGemm(out, "q_absorb", layers_, rows, kv_lora_, nope_dim_, static_cast<int32_t>(q_heads_),
          GemmWeights::kUnquantized);
  Kernel& a = AddAttentionKernel(out, KernelKind::kAttentionDecode, "attention_sparse", layers_);
  a.tensor_flops = 2.0 * heads * (latent + value_width) * attended;
  a.cuda_flops = kSoftmaxFlopsPerScore * heads * attended;
  const double qo_bytes = queries * heads * (latent + value_width) * act_bytes_;
  a.hbm_bytes = qo_bytes + keys * kv_tl;
  a.resident_input_bytes = queries * heads * latent * act_bytes_;
  a.reread_footprint_bytes = static_cast<double>(index_topk_) * kv_tl;
  a.parallel_work_items = queries * std::ceil(heads / 64.0);
  AddGemm(out, "v_absorb", layers_, rows, v_dim_, kv_lora_, static_cast<int32_t>(q_heads_), GemmWeights::kUnquantized);
}

}  // namespace infergrid
