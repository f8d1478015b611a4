#include "models/pass_accounting.h"

#include <algorithm>

#include "models/attention_layout.h"
#include "models/kv_cache_size.h"

namespace infergrid {
namespace {

// Every layer full attention: the lesson's formulas apply as written.
bool AllFull(const AttentionReach& r) { return r.full == r.layers && r.topk == 0; }

// Keys one decode query at context S reads, summed over the attention layers, in units of a
// layer (S for every full layer: the lesson's L x S).
double DecodeLayerKeys(const AttentionReach& r, int64_t context) {
  const int64_t full_keys = r.topk > 0 ? std::min(context, r.topk) : context;
  double keys = r.full * static_cast<double>(full_keys);
  if (r.window > 0) keys += r.window * static_cast<double>(std::min(context, r.window_tokens));
  if (r.chunked > 0 && context > 0) keys += r.chunked * static_cast<double>((context - 1) % r.chunk_tokens + 1);
  return keys;
}

// (query, key) pairs of a P-token prompt over the attention layers, without the causal mask's
// halving (the lesson's P^2 for every full layer), so that the causal count stays half of it: a
// layer of limited reach counts P^2 times its share of the causal pairs.
double PrefillLayerPairs(const AttentionReach& r, int64_t prompt) {
  const double p = static_cast<double>(prompt);
  const double causal = PrefillPairs(prompt, 0, 0);
  const auto reached = [&](double pairs) { return causal > 0 ? p * p * pairs / causal : 0; };
  double pairs = r.full * (r.topk > 0 ? reached(PrefillPairs(prompt, 0, r.topk)) : p * p);
  if (r.window > 0) pairs += r.window * reached(PrefillPairs(prompt, 0, r.window_tokens));
  if (r.chunked > 0) pairs += r.chunked * reached(ChunkedPrefillPairs(prompt, 0, r.chunk_tokens));
  return pairs;
}

// Work of the layers beyond their attention pairs, per token: the linear-attention state
// products (3 of dk x dv per value head) and the sparse indexer's scores over S keys.
double ExtraFlopsPerToken(const ModelSpec& spec, const AttentionReach& r, double keys_seen) {
  double flops = 0;
  if (r.linear > 0) {
    const LinearAttention& l = spec.linear_attention();
    flops += r.linear * 6.0 * l.num_value_heads() * l.key_head_dim() * l.value_head_dim();
  }
  if (r.topk > 0) {
    const SparseAttention& sparse = spec.sparse_attention();
    flops += r.full * 2.0 * sparse.index_heads() * sparse.index_head_dim() * keys_seen;
  }
  return flops;
}

}  // namespace

double AttentionFlopsPerPair(const ModelSpec& spec, bool decode) {
  const double heads = static_cast<double>(spec.num_layers()) * spec.num_attention_heads();
  if (!spec.has_mla()) return 4.0 * heads * spec.head_dim();
  const LatentAttention& mla = spec.mla();
  const double width = decode ? 2.0 * mla.kv_lora_rank() + mla.qk_rope_head_dim()
                              : static_cast<double>(mla.qk_nope_head_dim()) + mla.qk_rope_head_dim() + mla.v_head_dim();
  return 2.0 * heads * width;
}

PassAccounting PrefillPass(const ModelSpec& spec, const PassInputs& inputs, int64_t prompt, int64_t batch) {
  const double p = static_cast<double>(prompt);
  const double b = static_cast<double>(batch);
  PassAccounting pass;
  pass.linear_flops = 2.0 * inputs.flop_parameters * p * b;
  // The lesson's 2*L*H_q*D*P^2, layer by layer: full layers P^2, windowed and chunked ones
  // what their reach leaves, linear-attention ones their state work.
  const AttentionReach reach = ReachOf(spec);
  pass.attention_flops =
      AllFull(reach) ? AttentionFlopsPerPair(spec, false) / 2.0 * p * p * b
                     : AttentionFlopsPerPair(spec, false) / reach.layers / 2.0 * PrefillLayerPairs(reach, prompt) * b +
                           2 * ExtraFlopsPerToken(spec, reach, p / 2) * p * b;
  pass.attention_flops_causal = pass.attention_flops / 2.0;
  pass.weight_bytes = inputs.weight_bytes;
  pass.kv_write_bytes = static_cast<double>(inputs.kv_bytes_per_token) * p * b +
                        reach.linear * static_cast<double>(LinearStateBytesPerLayer(spec, 1)) * b;
  pass.payload_bytes = pass.weight_bytes + pass.kv_write_bytes;
  return pass;
}

PassAccounting DecodeStep(const ModelSpec& spec, const PassInputs& inputs, int64_t context, int64_t batch) {
  const double s = static_cast<double>(context);
  const double b = static_cast<double>(batch);
  PassAccounting pass;
  pass.linear_flops = 2.0 * inputs.flop_parameters * b;
  // One query row attends to all S keys in each full layer: no causal halving in decode.
  const AttentionReach reach = ReachOf(spec);
  const double layer_keys = DecodeLayerKeys(reach, context);
  pass.attention_flops =
      AllFull(reach)
          ? AttentionFlopsPerPair(spec, true) * s * b
          : (AttentionFlopsPerPair(spec, true) / reach.layers * layer_keys + ExtraFlopsPerToken(spec, reach, s)) * b;
  pass.attention_flops_causal = pass.attention_flops;
  pass.weight_bytes = inputs.weight_bytes;
  // KV read: each attention layer's reach (the indexer's keys over all S tokens); linear
  // layers read and write their state.
  const double attention_layers = std::max(1.0, reach.full + reach.window + reach.chunked);
  const double per_layer_token = static_cast<double>(inputs.kv_bytes_per_token) / attention_layers;
  const double indexer = static_cast<double>(IndexerBytesPerTokenLayer(spec));
  pass.kv_read_bytes = AllFull(reach) ? static_cast<double>(inputs.kv_bytes_per_token) * s * b
                                      : (per_layer_token * layer_keys +
                                         reach.full * indexer * (s - std::min(s, static_cast<double>(reach.topk))) +
                                         2 * reach.linear * static_cast<double>(LinearStateBytesPerLayer(spec, 1))) *
                                            b;
  pass.kv_write_bytes = static_cast<double>(inputs.kv_bytes_per_token) * b;
  pass.payload_bytes = pass.weight_bytes + pass.kv_read_bytes;
  return pass;
}

}  // namespace infergrid
