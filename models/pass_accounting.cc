#include "models/pass_accounting.h"

namespace infergrid {
namespace {

// L * H_q * D: the width of all query heads over all layers.
double QueryWidthAllLayers(const ModelSpec& spec) {
  return static_cast<double>(spec.num_layers()) * spec.num_attention_heads() * spec.head_dim();
}

}  // namespace

PassAccounting PrefillPass(const ModelSpec& spec, const PassInputs& inputs, int64_t prompt,
                           int64_t batch) {
  const double p = static_cast<double>(prompt);
  const double b = static_cast<double>(batch);
  PassAccounting pass;
  pass.linear_flops = 2.0 * inputs.flop_parameters * p * b;
  pass.attention_flops = 2.0 * QueryWidthAllLayers(spec) * p * p * b;
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
  pass.attention_flops = 4.0 * QueryWidthAllLayers(spec) * s * b;
  pass.attention_flops_causal = pass.attention_flops;
  pass.weight_bytes = inputs.weight_bytes;
  pass.kv_read_bytes = static_cast<double>(inputs.kv_bytes_per_token) * s * b;
  pass.kv_write_bytes = static_cast<double>(inputs.kv_bytes_per_token) * b;
  pass.payload_bytes = pass.weight_bytes + pass.kv_read_bytes;
  return pass;
}

}  // namespace infergrid
