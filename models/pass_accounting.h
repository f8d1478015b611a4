// FLOPs and nominal HBM payload of one forward pass, exactly as the accounting lesson
// (shared/seeds/inference-time-and-memory.txt, section 6) defines them:
//   prefill: linear 2*N*P, attention 2*L*H_q*D*P^2 (halved under a causal mask), bytes =
//            one pass over the weights + the KV written for the prompt;
//   decode:  linear 2*N, attention 4*L*H_q*D*S, bytes = weights + KV read (S tokens), and
//            the one-token KV write beside them; all per sequence, times the batch.
// Layers that do not attend to every key count what they reach: a sliding window at most W
// keys, a chunked local layer its own chunk, a sparse (DeepSeek-V3.2) layer its top-k plus the
// indexer's scores over every key, a linear-attention layer its state (read and written once a
// step, its 3 dk x dv products per value head as attention FLOPs). A model of full layers only
// gets the lesson's numbers exactly.
// These are a capacity payload and a hypothesis about traffic, not a DRAM measurement: tiling,
// L2 hits, block tables and activations move real traffic either way (the cost model in
// hardware/ accounts for those; this file does not).
#ifndef INFERGRID_MODELS_PASS_ACCOUNTING_H_
#define INFERGRID_MODELS_PASS_ACCOUNTING_H_

#include <cstdint>

#include "models/model_spec.pb.h"

namespace infergrid {

// Attention FLOPs per (query, key) pair over all layers, QK^T and PV together: 4*L*H_q*D for
// (grouped-query) multi-head attention. Latent attention (MLA) differs by path: prefill
// attends over up-projected heads, 2*L*H_q*(qk + v); decode attends in the latent space,
// 2*L*H_q*(2*kv_lora + rope) (vLLM's weight-absorbed kernels).
double AttentionFlopsPerPair(const ModelSpec& spec, bool decode);

struct PassInputs {
  double flop_parameters = 0;  // N in 2*N per token (active parameters for MoE)
  double weight_bytes = 0;  // bytes of all weights, read once per pass
  int64_t kv_bytes_per_token = 0;
};

struct PassAccounting {
  double linear_flops = 0;
  double attention_flops = 0;  // the lesson's formula, without causal halving
  double attention_flops_causal = 0;  // with the causal mask's halving (prefill only)
  double weight_bytes = 0;
  double kv_read_bytes = 0;
  double kv_write_bytes = 0;

  double TotalFlops(bool causal) const { return linear_flops + (causal ? attention_flops_causal : attention_flops); }
  // The lesson's nominal payload: prefill = weights + KV written for the prompt; decode =
  // weights + KV read (section 6.3: "~17.07 GB + a small write"; section 8's 20.29 GB at
  // batch 4 leaves the one-token write out too). The write is kept in kv_write_bytes.
  double payload_bytes = 0;
  // Every byte above, the decode write included.
  double TotalBytes() const { return weight_bytes + kv_read_bytes + kv_write_bytes; }
  // FLOP per byte of nominal payload.
  double Intensity(bool causal) const { return TotalFlops(causal) / payload_bytes; }
};

// Prefill of `batch` prompts of `prompt` tokens each, with no prior context.
PassAccounting PrefillPass(const ModelSpec& spec, const PassInputs& inputs, int64_t prompt, int64_t batch);

// One decode step of `batch` sequences, each attending to `context` cached tokens.
PassAccounting DecodeStep(const ModelSpec& spec, const PassInputs& inputs, int64_t context, int64_t batch);

}  // namespace infergrid

#endif  // INFERGRID_MODELS_PASS_ACCOUNTING_H_
