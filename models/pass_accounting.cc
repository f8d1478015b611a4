#include "models/pass_accounting.h"

namespace infergrid {

double AttentionFlopsPerPair(const ModelSpec& spec, bool decode) {
  const double heads = static_cast<double>(spec.num_layers()) * spec.num_attention_heads();
  if (!spec.has_mla()) return 4.0 * heads * spec.head_dim();
  const LatentAttention& mla = spec.mla();
  const double width = decode ? 2.0 * mla.kv_lora_rank() + mla.qk_rope_head_dim()
                              : static_cast<double>(mla.qk_nope_head_dim()) + mla.qk_rope_head_dim() + mla.v_head_dim();
  return 2.0 * heads * width;
}

PassAccounting PrefillPass(const ModelSpec& spec, const PassInputs& inputs, int64_t prompt,
                           int64_t batch) {
  const double p = static_cast<double>(prompt);
  const double b = static_cast<double>(batch);
  PassAccounting pass;
  pass.linear_flops = 2.0 * inputs.flop_parameters * p * b;
  pass.attention_flops = AttentionFlopsPerPair(spec, false) / 2.0 * p * p * b;
  pass.attention_flops_causal = pass.attention_flops / 2.0;
  pass.weight_bytes = inputs.weight_bytes;
  pass.kv_write_bytes = static_cast<double>(inputs.kv_bytes_per_token) * p * b;
  pass.payload_bytes = pass.weight_bytes + pass.kv_write_bytes;
  return pass;
}

PassAccounting DecodeStep(const ModelSpec& spec, const PassInputs& inputs, int64_t context,
                          int64_t batch) {
  const double s = static_cast<double>(context);
  const double b = static_cast<double>(batch);
  PassAccounting pass;
  pass.linear_flops = 2.0 * inputs.flop_parameters * b;
  // One query row attends to all S keys: no causal halving in decode.
  pass.attention_flops = AttentionFlopsPerPair(spec, true) * s * b;
  pass.attention_flops_causal = pass.attention_flops;
  pass.weight_bytes = inputs.weight_bytes;
  pass.kv_read_bytes = static_cast<double>(inputs.kv_bytes_per_token) * s * b;
  pass.kv_write_bytes = static_cast<double>(inputs.kv_bytes_per_token) * b;
  pass.payload_bytes = pass.weight_bytes + pass.kv_read_bytes;
  return pass;
}

}  // namespace infergrid
