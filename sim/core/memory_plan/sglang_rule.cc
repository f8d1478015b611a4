// SGLang: no activation profile. The fraction applies to the memory free before weights load:
//   rest = (free_before - weights) - free_before * (1 - mem_fraction_static) [- req_to_token pool]
//   max_total_num_tokens = floor(rest / B_tok)  [rounded down to the page size]
#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/dtype.h"
#include "models/attention_layout.h"
#include "models/kv_cache_size.h"
#include "sim/core/memory_plan/engine_rules.h"

namespace infergrid::memory_plan_internal {
namespace {

// The default mem_fraction_static: the newer reserve rule where the GPU falls in a class,
// else the old per-TP table.
void DefaultFraction(const MemoryPlanRequest& request, const EnginePersonality& p, MemoryPlanDetail* detail) {
  const int64_t total_mib = request.gpu.reported_total_mib();
  if (p.has_reserve_formula()) {
    const ReserveFormula& f = p.reserve_formula();
    const CudaGraphCapture& g = p.execution().cuda_graphs();
    const int64_t graph_bs =
        g.large_tp_from() > 0 && request.tensor_parallel >= g.large_tp_from() ? g.max_size_large_tp() : g.max_size();
    const int64_t chunk = std::max(detail->max_num_batched_tokens, f.min_chunk_tokens());
    double reserve_mib = f.base_mib() + f.per_chunk_token_mib() * static_cast<double>(chunk) +
                         f.per_graph_batch_mib() * static_cast<double>(graph_bs) +
                         f.per_gpu_mib() * request.tensor_parallel * request.pipeline_parallel;
    if (total_mib > f.min_reserve_above_mib()) reserve_mib = std::max(reserve_mib, f.min_reserve_gib() * 1024);
    const double m = static_cast<double>(total_mib);
    detail->fraction = std::round((m - reserve_mib) / m * 1000) / 1000;
    detail->fraction_origin = absl::StrFormat(
        "default: reserve %.0f MiB (%.0f + %.1f x max(%d, %d) chunk + %.0f x %d graph batch + %.0f x TP x PP) of %d "
        "MiB",
        reserve_mib, f.base_mib(), f.per_chunk_token_mib(), detail->max_num_batched_tokens, f.min_chunk_tokens(),
        f.per_graph_batch_mib(), graph_bs, f.per_gpu_mib(), total_mib);
    return;
  }
  for (const ReserveClass& c : p.reserve_classes()) {
    if (total_mib < c.min_total_mib() || total_mib > c.max_total_mib()) continue;
    const double reserve_gib =
        c.base_gib() + p.reserve_per_gpu_gib() * request.tensor_parallel * request.pipeline_parallel;
    const double m = static_cast<double>(total_mib);
    detail->fraction = std::round((m - reserve_gib * 1024) / m * 1000) / 1000;
    detail->fraction_origin = absl::StrFormat("default: reserve %.1f GiB (%s: %.1f + %.1f x TP x PP) of %d MiB",
                                              reserve_gib, c.label(), c.base_gib(), p.reserve_per_gpu_gib(), total_mib);
    return;
  }
  for (const FractionByParallelism& f : p.fraction_by_tp()) {
    if (request.tensor_parallel >= f.min_tensor_parallel()) {
      detail->fraction = f.fraction();
      detail->fraction_origin = absl::StrCat("default for TP", request.tensor_parallel);
    }
  }
}

// SGLang's Mamba pool for linear-attention layers (model_runner.py, hybrid GDN models):
// max_mamba_cache_size state slots, --max-running-requests or the release's default; 0 for a
// model without linear layers or an engine without the pool.
int64_t MambaSlots(const MemoryPlanRequest& request, const EnginePersonality& p) {
  if (!p.has_mamba_pool() || CountAttentionLayers(request.model).linear == 0) return 0;
  return request.max_num_seqs > 0 ? request.max_num_seqs : p.mamba_pool().default_slots();
}

// One slot's bytes per GPU (configs/qwen3_next.py mamba_cache_per_req): every linear layer's
// convolution state (bf16) and recurrent state (--mamba-ssm-dtype, float32 by default).
double MambaBytesPerSlot(const MemoryPlanRequest& request, const EnginePersonality& p) {
  const LinearStateElements state = LinearStateElementsPerLayer(request.model, request.tensor_parallel);
  const double per_layer = static_cast<double>(state.conv * p.mamba_pool().conv_state_bytes() +
                                               state.recurrent * p.mamba_pool().ssm_state_bytes());
  return per_layer * CountAttentionLayers(request.model).linear;
}

}  // namespace

absl::Status ApplySglangRule(const MemoryPlanRequest& request, MemoryPlanDetail* detail) {
  const EnginePersonality& p = detail->personality;
  detail->fraction_flag = "mem_fraction_static";
  if (request.mem_fraction_static > 0) {
    detail->fraction = request.mem_fraction_static;
    detail->fraction_origin = "given";
  } else {
    DefaultFraction(request, p, detail);
  }
  // SGLang has no profile batch; its request limit is max_running_requests.
  if (request.max_num_seqs == 0 && p.default_max_running_requests() > 0) {
    detail->max_num_seqs = p.default_max_running_requests();
  }
  // A running request holds a Mamba slot: the request pool is capped to them.
  const int64_t mamba_slots = MambaSlots(request, p);
  if (mamba_slots > 0) {
    detail->max_num_seqs = detail->max_num_seqs > 0 ? std::min(detail->max_num_seqs, mamba_slots) : mamba_slots;
    const double slot_bytes = MambaBytesPerSlot(request, p);
    detail->plan.state_pool_slots = mamba_slots;
    detail->plan.state_pool_bytes = static_cast<double>(mamba_slots) * slot_bytes;
    detail->notes.push_back(
        absl::StrCat("linear-attention states: ", mamba_slots, " Mamba-pool slots of ",
                     absl::StrFormat("%.2f", slot_bytes / kMiB), " MiB (", CountAttentionLayers(request.model).linear,
                     " layers, convolution state bf16, recurrent state "
                     "float32), reserved before the KV tokens of the ",
                     CountAttentionLayers(request.model).attention(), " full-attention layers are counted; at most ",
                     detail->max_num_seqs,
                     " requests run; SGLang turns its radix cache off for the model (\"Hybrid GDN model detected\")"));
  }
  for (size_t i = 0; i < detail->stages.size(); ++i) {
    StagePlan& stage = detail->stages[i];
    stage.non_torch_bytes = NonTorchBytes(p, request.tensor_parallel);
    stage.free_before_weights_bytes = detail->plan.total_bytes - stage.non_torch_bytes;
    if (p.subtract_req_to_token_pool()) {
      stage.req_to_token_bytes =
          static_cast<double>(detail->max_num_seqs + 1) * static_cast<double>(detail->max_model_len + 4) * 4.0;
    }
    const double weights = stage.weights.Total();
    const double static_share = stage.free_before_weights_bytes * detail->fraction;
    stage.state_pool_bytes = detail->plan.state_pool_bytes;
    stage.kv_cache_bytes = static_share - weights - stage.req_to_token_bytes - stage.state_pool_bytes;
    if (i == 0) detail->plan.budget_bytes = static_share;
    if (request.kv_cache_memory_bytes > 0) continue;
    if (stage.kv_cache_bytes <= 0) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "%s does not fit: weights %.2f GiB%s exceed mem_fraction_static %.3f x %.2f GiB free = "
          "%.2f GiB by %.2f GiB; raise --mem-fraction-static or --tensor-parallel-size, or "
          "quantize the weights",
          request.model.display_name().empty() ? request.model.name() : request.model.display_name(), weights / kGiB,
          absl::StrCat(stage.req_to_token_bytes > 0
                           ? absl::StrFormat(" + request pool %.2f GiB", stage.req_to_token_bytes / kGiB)
                           : "",
                       stage.state_pool_bytes > 0
                           ? absl::StrFormat(" + Mamba pool %.2f GiB", stage.state_pool_bytes / kGiB)
                           : ""),
          detail->fraction, stage.free_before_weights_bytes / kGiB, static_share / kGiB, -stage.kv_cache_bytes / kGiB));
    }
  }
  return absl::OkStatus();
}

void WriteSglangLog(const MemoryPlanRequest& request, MemoryPlanDetail* detail) {
  const StagePlan& stage = detail->stages[detail->limiting_stage];
  MemoryPlan& plan = detail->plan;
  // SGLang labels these "GB" but computes them in GiB (2^30); we print what it prints.
  plan.log_lines.push_back(absl::StrCat("mem_fraction_static=", absl::StrFormat("%.3f", detail->fraction), " (",
                                        detail->fraction_origin, ")"));
  plan.log_lines.push_back(absl::StrCat("Load weight begin. avail mem=", Gib(stage.free_before_weights_bytes), " GB"));
  plan.log_lines.push_back(
      absl::StrCat("Load weight end. dtype=", DTypeName(UnquantizedDType(request.model, request.weights)),
                   ", avail mem=", Gib(stage.free_before_weights_bytes - stage.weights.Total()),
                   " GB, mem usage=", Gib(stage.weights.Total()), " GB"));
  if (plan.swa_pool_tokens > 0) {
    // SWAKVPool: one token pool per kind, each logging its allocation (the SWA pool first).
    const double per_layer = static_cast<double>(plan.kv_bytes_per_token) / stage.layers;
    const int full_layers = stage.layers - plan.swa_pool_layers;
    for (const auto& [tokens, layers] : {std::pair<int64_t, int>{plan.swa_pool_tokens, plan.swa_pool_layers},
                                         std::pair<int64_t, int>{plan.full_pool_tokens, full_layers}}) {
      const double side = static_cast<double>(tokens) * per_layer * layers / 2;
      plan.log_lines.push_back(absl::StrCat("KV Cache is allocated. #tokens: ", tokens, ", K size: ", Gib(side),
                                            " GB, V size: ", Gib(side), " GB"));
    }
  } else {
    const double side = static_cast<double>(plan.kv_tokens) * static_cast<double>(plan.kv_bytes_per_token) / 2;
    plan.log_lines.push_back(absl::StrCat("KV Cache is allocated. #tokens: ", plan.kv_tokens, ", K size: ", Gib(side),
                                          " GB, V size: ", Gib(side), " GB"));
  }
  if (stage.req_to_token_bytes > 0) {
    plan.log_lines.push_back(absl::StrCat("req_to_token pool: ", Gib(stage.req_to_token_bytes),
                                          " GB (taken off the KV share in this version)"));
  }
  // With the hybrid SWA pool SGLang reports the full-attention pool's tokens.
  const int64_t max_total = plan.swa_pool_tokens > 0 ? plan.full_pool_tokens : plan.kv_tokens;
  plan.log_lines.push_back(absl::StrCat("max_total_num_tokens=", max_total, ", context_len=", detail->max_model_len));
}

}  // namespace infergrid::memory_plan_internal
