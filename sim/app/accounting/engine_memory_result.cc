#include "sim/app/accounting/engine_memory_result.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/app/format/text_table.h"
#include "sim/app/format/units.h"
#include "sim/core/memory_plan/engine_rules.h"

namespace infergrid {

using format::Fixed;
using format::Grouped;

namespace {

// Bytes of KV the blocks hold per GPU: blocks x block size x bytes per token, or with SGLang's
// hybrid SWA pool each pool's tokens over its own layers.
double AllocatedKvBytes(const MemoryPlan& plan, const MemoryPlanDetail& detail) {
  if (!plan.window_pools.empty()) {
    double bytes = 0;
    for (const KvWindowPool& pool : plan.window_pools) {
      bytes += pool.AllocatedBytes(plan.block_size);
    }
    return bytes;
  }
  if (plan.swa_pool_tokens == 0) {
    return static_cast<double>(plan.num_blocks) * plan.block_size * static_cast<double>(plan.kv_bytes_per_token);
  }
  const int layers = detail.stages[static_cast<size_t>(detail.limiting_stage)].layers;
  const double per_layer = static_cast<double>(plan.kv_bytes_per_token) / layers;
  return per_layer * (static_cast<double>(plan.full_pool_tokens) * (layers - plan.swa_pool_layers) +
                      static_cast<double>(plan.swa_pool_tokens) * plan.swa_pool_layers);
}

}  // namespace

EngineMemoryResult BuildEngineMemoryResult(const MemoryPlanRequest& request, const MemoryPlanDetail& detail) {
  const MemoryPlan& plan = detail.plan;
  EngineMemoryResult result;
  result.set_model(request.model.name());
  result.set_gpu(request.gpu.name());
  result.set_engine(plan.engine);
  result.set_engine_covers(detail.personality.covers());
  result.set_weight_format(request.weights.label.empty() ? std::string(DTypeName(request.weights.dtype))
                                                         : request.weights.label);
  result.set_kv_cache_dtype(std::string(DTypeName(request.kv_dtype)));
  result.set_tensor_parallel(request.tensor_parallel);
  result.set_pipeline_parallel(request.pipeline_parallel);
  result.set_attention_data_parallel(request.attention_data_parallel);
  result.set_fraction_flag(detail.fraction_flag);
  result.set_fraction(detail.fraction);
  result.set_fraction_origin(detail.fraction_origin);
  result.set_max_num_batched_tokens(static_cast<int32_t>(detail.max_num_batched_tokens));
  result.set_max_num_seqs(static_cast<int32_t>(detail.max_num_seqs));
  result.set_max_model_len(static_cast<int32_t>(detail.max_model_len));
  result.set_total_bytes(plan.total_bytes);
  result.set_total_origin(detail.total_origin);
  result.set_budget_bytes(plan.budget_bytes);
  result.set_weight_bytes(plan.weight_bytes);
  result.set_activation_peak_bytes(plan.activation_peak_bytes);
  result.set_non_torch_bytes(plan.non_torch_bytes);
  result.set_cuda_graph_bytes(plan.cuda_graph_bytes);
  result.set_cuda_graph_subtracted(detail.cuda_graph_subtracted);
  EngineKvCapacity& kv = *result.mutable_kv_cache();
  kv.set_bytes(plan.kv_cache_bytes);
  kv.set_allocated_bytes(AllocatedKvBytes(plan, detail));
  kv.set_tokens(static_cast<double>(plan.kv_tokens));  // the figure simulate reports too
  kv.set_groups(plan.kv_groups.groups());
  kv.set_blocks(static_cast<double>(plan.num_blocks));
  kv.set_block_size(plan.block_size);
  kv.set_bytes_per_token(static_cast<double>(plan.kv_bytes_per_token));
  const KvCacheGroups& groups = plan.kv_groups;
  const int64_t per_request = groups.hybrid() ? memory_plan_internal::HybridBlocksPerRequest(detail)
                                              : (detail.max_model_len + plan.block_size - 1) / plan.block_size;
  kv.set_max_concurrency(groups.hybrid()
                             ? static_cast<double>(plan.num_blocks) / static_cast<double>(per_request)
                             : static_cast<double>(plan.kv_tokens) / static_cast<double>(detail.max_model_len));
  kv.set_layers_per_block(plan.window_pools.empty() ? groups.layers_per_group : plan.window_pools.front().layers);
  kv.set_full_groups(groups.full_groups);
  kv.set_window_groups(groups.window_groups);
  kv.set_window_tokens(static_cast<double>(groups.window_tokens));
  kv.set_padded_slots(groups.padded_slots);
  kv.set_blocks_per_request(static_cast<double>(per_request));
  kv.set_full_pool_tokens(static_cast<double>(plan.full_pool_tokens));
  kv.set_swa_pool_tokens(static_cast<double>(plan.swa_pool_tokens));
  kv.set_swa_pool_layers(plan.swa_pool_layers);
  kv.set_state_pool_slots(static_cast<double>(plan.state_pool_slots));
  for (const KvWindowPool& pool : plan.window_pools) {
    EngineKvWindowPool& out = *kv.add_window_pools();
    out.set_window_tokens(static_cast<double>(pool.window_tokens));
    out.set_layers(pool.layers);
    out.set_share(pool.share);
    out.set_blocks(static_cast<double>(pool.num_blocks));
    out.set_bytes_per_token(static_cast<double>(pool.bytes_per_token));
    const int64_t blocks = (std::min(detail.max_model_len, pool.window_tokens) + plan.block_size - 1) / plan.block_size;
    out.set_blocks_per_request(static_cast<double>(blocks));
    kv.set_max_concurrency(
        std::min(kv.max_concurrency(), static_cast<double>(pool.num_blocks) / static_cast<double>(blocks)));
  }
  for (const StagePlan& s : detail.stages) {
    EngineStageMemory& stage = *result.add_stages();
    stage.set_layers(s.layers);
    stage.set_weight_bytes(s.weights.Total());
    stage.set_activation_peak_bytes(s.activation.peak);
    stage.set_non_torch_bytes(s.non_torch_bytes);
    stage.set_cuda_graph_bytes(s.cuda_graph_bytes);
    stage.set_kv_cache_bytes(s.kv_cache_bytes);
    stage.set_kv_bytes_per_token(static_cast<double>(s.kv_bytes_per_token));
    stage.set_num_blocks(static_cast<double>(s.num_blocks));
    stage.set_state_pool_bytes(s.state_pool_bytes);
  }
  result.set_limiting_stage(detail.limiting_stage);
  for (const std::string& line : plan.log_lines) result.add_log_lines(line);
  for (const std::string& note : detail.notes) result.add_notes(note);
  return result;
}

namespace {

// The memory terms, total to KV, as the engine computes them (its fraction flag decides the
// rows), with the KV the blocks (or SGLang's two pools) hold.
std::string RenderTermTable(const EngineMemoryResult& r) {
  format::TextTable table({"term (per GPU)", "GiB (2^30)", "bytes"});
  auto row = [&](std::string label, double bytes) {
    table.AddRow({std::move(label), Fixed(bytes / kGiB, 2), Grouped(bytes)});
  };
  const EngineStageMemory& stage = r.stages(r.limiting_stage());
  const std::string fraction = absl::StrFormat("%.3g", r.fraction());
  row("total memory (as the engine reads it)", r.total_bytes());
  if (r.fraction_flag() == "gpu_memory_utilization") {
    row(absl::StrCat("budget = total x ", fraction), r.budget_bytes());
    row("- weights", r.weight_bytes());
    row("- activation peak (profile run)", r.activation_peak_bytes());
    row("- non-torch increase", r.non_torch_bytes());
    row(r.cuda_graph_subtracted() ? "- CUDA-graph estimate" : "  CUDA-graph estimate (not subtracted)",
        r.cuda_graph_bytes());
  } else if (r.fraction_flag() == "mem_fraction_static") {
    row("- CUDA context and NCCL before loading", r.non_torch_bytes());
    const double free_before = r.total_bytes() - r.non_torch_bytes();
    row("= free before weights", free_before);
    row(absl::StrCat("static share = free x ", fraction), r.budget_bytes());
    row("- weights (as loaded)", r.weight_bytes());
    const double pool = r.budget_bytes() - r.weight_bytes() - stage.kv_cache_bytes() - stage.state_pool_bytes();
    if (pool > 1) row("- request-to-token pool", pool);
    if (stage.state_pool_bytes() > 0) {
      row(absl::StrCat("- Mamba pool (", Grouped(r.kv_cache().state_pool_slots()), " linear-attention states)"),
          stage.state_pool_bytes());
    }
  } else {
    row("- weights", r.weight_bytes());
    row("- context and runtime buffers", r.non_torch_bytes());
    row("- activation profile", r.activation_peak_bytes());
    row("= available", r.total_bytes() - r.weight_bytes() - r.non_torch_bytes() - r.activation_peak_bytes());
  }
  row(r.fraction_flag() == "free_gpu_memory_fraction" ? absl::StrCat("KV cache = available x ", fraction)
                                                      : "= KV cache",
      r.kv_cache().bytes());
  const EngineKvCapacity& kv = r.kv_cache();
  if (kv.swa_pool_tokens() > 0) {
    const double per_layer = kv.bytes_per_token() / stage.layers();
    const int full_layers = stage.layers() - kv.swa_pool_layers();
    row(absl::StrCat("KV allocated: full-attention pool (", Grouped(kv.full_pool_tokens()), " tokens x ", full_layers,
                     " layers)"),
        static_cast<double>(kv.full_pool_tokens()) * per_layer * full_layers);
    row(absl::StrCat("KV allocated: SWA pool (", Grouped(kv.swa_pool_tokens()), " tokens x ", kv.swa_pool_layers(),
                     " layers)"),
        static_cast<double>(kv.swa_pool_tokens()) * per_layer * kv.swa_pool_layers());
  } else if (kv.window_pools_size() > 0) {
    for (const EngineKvWindowPool& pool : kv.window_pools()) {
      row(absl::StrCat("KV allocated: ", Grouped(pool.window_tokens()), "-token window pool (", Grouped(pool.blocks()),
                       " blocks x ", pool.layers(), " layers, share ", absl::StrFormat("%.4g", pool.share()), ")"),
          static_cast<double>(pool.blocks()) * kv.block_size() * pool.bytes_per_token());
    }
  } else {
    row(absl::StrCat("KV allocated (", Grouped(kv.blocks()), " blocks)"), kv.allocated_bytes());
  }
  return table.Render();
}

// The KV capacity in tokens and requests, and how the cache is cut when windows or pools apply.
std::string RenderCapacity(const EngineMemoryResult& r) {
  const EngineKvCapacity& kv = r.kv_cache();
  std::string out;
  const int groups = kv.groups();
  absl::StrAppend(&out, "KV capacity: ", Grouped(r.kv_cache().tokens()),
                  " tokens per replica = ", Grouped(r.kv_cache().blocks()), " blocks",
                  groups > 1 ? absl::StrCat(" / ", groups, " groups") : "", " x ", r.kv_cache().block_size(),
                  " tokens (", Grouped(r.kv_cache().bytes_per_token()), " B per token per GPU); ",
                  Fixed(r.kv_cache().max_concurrency(), 2), " requests of ", Grouped(r.max_model_len()), " tokens\n");
  if (kv.swa_pool_tokens() > 0) {
    absl::StrAppend(
        &out, "KV pools: ", Grouped(kv.full_pool_tokens()), " tokens of the full-attention layers, ",
        Grouped(kv.swa_pool_tokens()), " of the ", kv.swa_pool_layers(),
        " chunked layers; a running sequence's token takes a slot in both, so the capacity is the smaller\n");
  }
  if (kv.window_pools_size() > 0) {
    absl::StrAppend(&out, "KV pools (max_attention_window): a sequence holds ceil(min(tokens, window) / ",
                    kv.block_size(), ") blocks of each;");
    for (const EngineKvWindowPool& pool : kv.window_pools()) {
      absl::StrAppend(&out, " ", Grouped(pool.window_tokens()), "-token window: ", Grouped(pool.blocks()), " blocks, ",
                      Fixed(static_cast<double>(pool.blocks()) / pool.blocks_per_request(), 2), " requests;");
    }
    out.back() = '\n';
  }
  if (kv.window_groups() > 0) {
    absl::StrAppend(&out, "KV groups: a block spans ", kv.layers_per_block(), " layers of one group; ",
                    kv.full_groups(), " full-attention group(s) hold every token, ", kv.window_groups(),
                    " sliding-window group(s) only the last ", Grouped(kv.window_tokens()), " tokens",
                    kv.padded_slots() > 0 ? absl::StrCat(" (", kv.padded_slots(), " slots padded)") : "", "; one ",
                    Grouped(r.max_model_len()), "-token request takes at most ", Grouped(kv.blocks_per_request()),
                    " blocks\n");
  }
  return out;
}

}  // namespace

std::string RenderEngineMemoryTable(const EngineMemoryResult& r, const ModelSpec& model, const GpuSpec& gpu) {
  std::string out = absl::StrCat("InferGrid engine memory plan: ", model.display_name(), " on ", gpu.display_name(),
                                 " as ", r.engine(), "\n");
  absl::StrAppend(&out, "  engine         ", r.engine_covers(), "\n");
  const std::string ranks = r.attention_data_parallel() > 1 ? absl::StrCat("attention DP", r.attention_data_parallel(),
                                                                           " (each rank its own KV cache below) x ")
                                                            : "";
  absl::StrAppend(&out, "  deployment     ", ranks, "TP", r.tensor_parallel(), " x PP", r.pipeline_parallel(),
                  ", weights ", r.weight_format(), ", KV cache ", r.kv_cache_dtype(), ", block size ",
                  r.kv_cache().block_size(), "\n");
  absl::StrAppend(&out, "  limits         max_num_batched_tokens ", Grouped(r.max_num_batched_tokens()),
                  ", max_num_seqs ", Grouped(r.max_num_seqs()), ", max_model_len ", Grouped(r.max_model_len()), "\n");
  absl::StrAppend(&out, "  fraction       ", r.fraction_flag(), " ", absl::StrFormat("%.3g", r.fraction()), " (",
                  r.fraction_origin(), ")\n\n");

  absl::StrAppend(&out, RenderTermTable(r), "\n");
  absl::StrAppend(&out, RenderCapacity(r));
  if (r.stages_size() > 1) {
    absl::StrAppend(&out, "pipeline stages (layers: blocks):");
    for (int i = 0; i < r.stages_size(); ++i) {
      absl::StrAppend(&out, i == 0 ? " " : ", ", r.stages(i).layers(), ": ", Grouped(r.stages(i).num_blocks()),
                      i == r.limiting_stage() ? " (limits)" : "");
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, "\nengine log, as predicted:\n");
  for (const std::string& line : r.log_lines()) absl::StrAppend(&out, "  ", line, "\n");
  if (r.notes_size() > 0) absl::StrAppend(&out, "\n");
  for (const std::string& note : r.notes()) absl::StrAppend(&out, "note: ", note, "\n");
  return out;
}

}  // namespace infergrid
