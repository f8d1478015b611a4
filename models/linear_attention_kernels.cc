// Gated DeltaNet (Qwen3-Next's linear-attention layers) as vLLM runs it (the fla kernels), per
// layer on one GPU of a tensor-parallel group (Hk key heads, Hv value heads per GPU, dk and dv
// their sizes):
//   in_proj      d -> 2 Hk dk + 2 Hv dv (q, k, v, the output gate z) + 2 Hv (the b and a gates)
//   conv         a causal depthwise convolution of conv_kernel taps over q, k and v; its last
//                conv_kernel - 1 inputs are the sequence's convolution state
//   prefill      the chunked delta rule (64-token chunks): per token and value head the state
//                update, its correction and the read-out (3 products of dk x dv) and the
//                intra-chunk attention (64 x (dk + dv)), on tensor cores; each sequence's state
//                read once and written once
//   decode       the recurrent update: per sequence and value head 3 products of dk x dv on
//                CUDA cores, the state read and written
//   norm, out    the gated RMSNorm over the values, then out_proj (Hv dv -> d)
// The state is a fixed size per sequence (LinearStateBytesPerLayer), whatever its length.
#include <algorithm>

#include "models/iteration_kernels.h"
#include "models/kernel_constants.h"

namespace infergrid {

using namespace kernel_constants;  // NOLINT: the kernel list's shared constants

namespace {
constexpr double kDeltaRuleChunk = 64;  // fla's chunk_gated_delta_rule chunk size
constexpr double kDeltaRuleProducts = 3;  // state update, delta correction, read-out
}  // namespace

void IterationKernelBuilder::AddLinearAttention(const BatchShape& batch, int64_t tokens, IterationKernels* out) const {
  const double t = static_cast<double>(tokens);
  const int64_t keys = linear_key_heads_ * linear_key_dim_, values = linear_value_heads_ * linear_value_dim_;
  const int64_t conv_width = 2 * keys + values;
  AddGemm(out, "linear_in_proj", linear_layers_, tokens, 2 * keys + 2 * values + 2 * linear_value_heads_, d_, 1);
  const double conv_bytes = t * static_cast<double>(conv_width) * act_bytes_;
  AddElementwise(out, KernelKind::kActivation, "linear_conv", linear_layers_, conv_bytes, conv_bytes,
                 2.0 * static_cast<double>(conv_kernel_) * t * static_cast<double>(conv_width), conv_bytes, t);
  const double hv = static_cast<double>(linear_value_heads_);
  const double dk = static_cast<double>(linear_key_dim_), dv = static_cast<double>(linear_value_dim_);
  const double io_per_token = static_cast<double>(2 * keys + 2 * values) * act_bytes_;  // q, k, v in; o out
  if (!batch.prefill.empty()) {
    double new_tokens = 0;
    for (const PrefillChunk& chunk : batch.prefill) new_tokens += static_cast<double>(chunk.new_tokens);
    const double sequences = static_cast<double>(batch.prefill.size());
    Kernel& a = AddAttentionKernel(out, KernelKind::kAttentionPrefill, "linear_attention_prefill", linear_layers_);
    a.tensor_flops = new_tokens * hv * (2 * kDeltaRuleProducts * dk * dv + 2 * kDeltaRuleChunk * (dk + dv));
    a.cuda_flops = new_tokens * hv * kSoftmaxFlopsPerScore * kDeltaRuleChunk;  // gates and decays
    a.hbm_bytes = new_tokens * io_per_token + 2 * sequences * linear_state_bytes_;
    a.resident_input_bytes = new_tokens * io_per_token / 2;
    a.parallel_work_items = hv * std::max(1.0, new_tokens / kDeltaRuleChunk);
  }
  if (!batch.decode_context_tokens.empty()) {
    const double sequences = static_cast<double>(batch.decode_context_tokens.size());
    Kernel& a = AddAttentionKernel(out, KernelKind::kAttentionDecode, "linear_attention_decode", linear_layers_);
    a.cuda_flops = sequences * hv * 2 * kDeltaRuleProducts * dk * dv;
    a.hbm_bytes = sequences * (io_per_token + 2 * linear_state_bytes_);
    a.resident_input_bytes = sequences * io_per_token / 2;
    a.parallel_work_items = sequences * hv;
  }
  const double value_bytes = t * static_cast<double>(values) * act_bytes_;
  AddElementwise(out, KernelKind::kNorm, "linear_gated_norm", linear_layers_, 2 * value_bytes, value_bytes,
                 (kNormFlopsPerElement + kActivationFlopsPerElement) * t * static_cast<double>(values), value_bytes, t);
  AddGemm(out, "linear_out_proj", linear_layers_, tokens, d_, values, 1);
}

}  // namespace infergrid
