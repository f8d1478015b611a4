// Resolves the deployment every rule shares (personality, device total, batch limits, pipeline
// stages, per-stage weights and KV bytes per token), runs the engine's rule, then turns the KV
// budget into whole blocks, applies the engines' overrides and picks the limiting stage.
#include "sim/core/memory_plan/memory_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/dtype.h"
#include "models/attention_layout.h"
#include "models/kv_cache_groups.h"
#include "models/kv_cache_size.h"
#include "sim/core/memory_plan/engine_rules.h"
#include "sim/core/memory_plan/memory_plan_detail.h"
#include "sim/core/memory_plan/trtllm_window_pools.h"
#include "sim/core/personality/personality_catalog.h"

namespace infergrid {

namespace memory_plan_internal {

std::string Gib(double bytes) { return absl::StrFormat("%.2f", bytes / kGiB); }

std::string Thousands(int64_t value) {
  const std::string digits = absl::StrCat(value < 0 ? -value : value);
  std::string out = value < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

double NonTorchBytes(const EnginePersonality& personality, int tensor_parallel) {
  return (tensor_parallel >= 2 ? personality.non_torch_gib_tp_multi() : personality.non_torch_gib_tp1()) * kGiB;
}

}  // namespace memory_plan_internal

namespace {

absl::Status CheckFraction(absl::string_view flag, double value, bool zero_means_default) {
  if (zero_means_default && value == 0) return absl::OkStatus();
  if (value > 0 && value <= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, "=", value, " is outside (0, 1]: it is a fraction of memory"));
}

// "--flag=V is out of range (min..max)", as the command line words it.
std::string OutOfRange(absl::string_view flag, int64_t value, int64_t minimum, int64_t maximum) {
  return absl::StrCat("--", flag, "=", value, " is out of range (", minimum, "..", maximum, ")");
}

// Attention data-parallel ranks in range, and experts that split over every GPU they span.
absl::Status CheckExpertPlacement(const MemoryPlanRequest& r) {
  const ModelSpec& m = r.model;
  const int dp = r.attention_data_parallel;
  const int gpus = r.tensor_parallel * dp;
  if (dp < 1 || dp > kMaxParallelSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("attention data parallelism of ", dp, " ranks must be in 1..", kMaxParallelSize));
  }
  if (r.expert_parallel && (!m.has_moe() || m.moe().num_experts() % gpus != 0)) {
    return absl::InvalidArgumentError(
        m.has_moe() ? absl::StrCat("--enable-expert-parallel: the ", m.moe().num_experts(), " experts of ", m.name(),
                                   " do not split evenly over ", gpus, " GPUs")
                    : absl::StrCat("--enable-expert-parallel: ", m.name(), " has no experts"));
  }
  return absl::OkStatus();
}

absl::Status ValidateRequest(const MemoryPlanRequest& r) {
  const ModelSpec& m = r.model;
  if (m.num_layers() <= 0 || m.hidden_size() <= 0 || m.num_attention_heads() <= 0 || m.num_kv_heads() <= 0 ||
      m.head_dim() <= 0 || m.vocab_size() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", m.name(), "' lacks layers, hidden size, heads, head_dim or vocab"));
  }
  if (BitsPerElement(r.kv_dtype) < 8) {
    return absl::InvalidArgumentError(
        absl::StrCat("--kv-cache-dtype=", DTypeName(r.kv_dtype), ": the engines store KV in 8, 16 or 32 bits"));
  }
  if (BitsPerElement(r.weights.dtype) == 0) return absl::InvalidArgumentError("the weight dtype is unspecified");
  for (auto [flag, value, zero_default] :
       {std::tuple<absl::string_view, double, bool>{"gpu-memory-utilization", r.gpu_memory_utilization, false},
        {"mem-fraction-static", r.mem_fraction_static, true},
        {"free-gpu-memory-fraction", r.free_gpu_memory_fraction, true}}) {
    if (absl::Status s = CheckFraction(flag, value, zero_default); !s.ok()) return s;
  }
  const int tp = r.tensor_parallel;
  if (tp < 1 || tp > kMaxParallelSize) {
    return absl::InvalidArgumentError(OutOfRange("tensor-parallel-size", tp, 1, kMaxParallelSize));
  }
  if (m.num_attention_heads() % tp != 0) {
    return absl::InvalidArgumentError(absl::StrCat("--tensor-parallel-size=", tp, " does not divide the ",
                                                   m.num_attention_heads(), " attention heads of ", m.name(),
                                                   "; use a divisor of ", m.num_attention_heads()));
  }
  const int kv = m.num_kv_heads();
  if (tp <= kv ? kv % tp != 0 : tp % kv != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tensor-parallel-size=", tp, " cannot shard the ", kv, " KV heads of ", m.name(),
                     ": TP must divide the KV heads, or be a multiple of them (heads are then replicated)"));
  }
  if (absl::Status s = CheckExpertPlacement(r); !s.ok()) return s;
  if (r.pipeline_parallel < 1 || r.pipeline_parallel > kMaxParallelSize) {
    return absl::InvalidArgumentError(OutOfRange("pipeline-parallel-size", r.pipeline_parallel, 1, kMaxParallelSize));
  }
  if (r.pipeline_parallel > m.num_layers()) {
    return absl::InvalidArgumentError(absl::StrCat("--pipeline-parallel-size=", r.pipeline_parallel,
                                                   " is more than the ", m.num_layers(), " layers of ", m.name(),
                                                   " (a stage holds one layer at least)"));
  }
  const std::pair<absl::string_view, int64_t> counts[] = {{"max-num-batched-tokens", r.max_num_batched_tokens},
                                                          {"max-num-seqs", r.max_num_seqs},
                                                          {"max-model-len", r.max_model_len},
                                                          {"num-gpu-blocks-override", r.num_gpu_blocks_override}};
  for (const auto& [flag, value] : counts) {
    if (value < 0 || value > kMaxEngineCount) {
      return absl::InvalidArgumentError(OutOfRange(flag, value, 0, kMaxEngineCount));
    }
  }
  if (r.block_size < 0 || r.block_size > kMaxBlockSize) {
    return absl::InvalidArgumentError(OutOfRange("block-size", r.block_size, 0, kMaxBlockSize));
  }
  if (r.kv_cache_memory_bytes < 0 || !std::isfinite(r.kv_cache_memory_bytes)) {
    return absl::InvalidArgumentError("--kv-cache-memory must be a positive number of bytes");
  }
  return absl::OkStatus();
}

// KV bytes per token and layer as the engine budgets them: vLLM V0 pads a latent entry to a
// multiple of mla_entry_align_bytes counted in the model dtype, then stores it in the cache
// dtype (576 elements -> 640 for a bf16 model, so 1,280 B in bf16 and 640 B in fp8).
int64_t EngineKvBytesPerTokenLayer(const MemoryPlanRequest& r, const EnginePersonality& p) {
  const int64_t payload = KvBytesPerTokenLayer(r.model, r.kv_dtype, r.tensor_parallel);
  if (!r.model.has_mla() || p.mla_entry_align_bytes() <= 0) return payload;
  const int64_t model_bytes = std::max<int64_t>(1, BitsPerElement(r.model.dtype()) / 8);
  const int64_t align = p.mla_entry_align_bytes();
  const int64_t elements = KvElementsPerTokenLayer(r.model, r.tensor_parallel);
  const int64_t padded = (elements * model_bytes + align - 1) / align * align / model_bytes;
  return padded * BitsPerElement(r.kv_dtype) / 8;
}

// Whether SGLang's hybrid SWA pool holds the model's chunked layers apart (only those: its
// sliding windows stay full attention in the releases modelled).
bool SglangSwaPool(const MemoryPlanRequest& r, const EnginePersonality& p) {
  return p.windowed_kv_cache() == SGLANG_HYBRID_SWA_POOL && CountAttentionLayers(r.model).chunked > 0;
}

// SGLang's set_num_token_hybrid (model_runner.py, the layer-count form of the 0.5 releases): the
// profiled tokens T of every layer are re-split so that n_swa x swa + n_full x full = T x L with
// swa = int(full x r), i.e. full = int(T x L / (r x n_swa + n_full)). Admission sees the smaller.
void SplitSglangSwaPool(const MemoryPlanRequest& r, const EnginePersonality& p, MemoryPlanDetail* d, int64_t* blocks) {
  const int swa_layers = CountAttentionLayers(r.model).chunked;
  const int full_layers = r.model.num_layers() - swa_layers;
  const double ratio = r.swa_full_tokens_ratio > 0 ? r.swa_full_tokens_ratio : p.swa_full_tokens_ratio();
  const int64_t tokens = *blocks * d->plan.block_size;
  const double layer_tokens = static_cast<double>(tokens * r.model.num_layers());
  const int64_t full = static_cast<int64_t>(layer_tokens / (ratio * swa_layers + full_layers));
  const int64_t swa = static_cast<int64_t>(static_cast<double>(full) * ratio);
  d->plan.full_pool_tokens = full;
  d->plan.swa_pool_tokens = swa;
  d->plan.swa_pool_layers = swa_layers;
  *blocks = std::min(full, swa) / d->plan.block_size;
  d->notes.push_back(absl::StrCat("hybrid SWA pool: ", tokens, " tokens of every layer re-split into ", full,
                                  " of the ", full_layers, " full-attention layers and ", swa, " of the ", swa_layers,
                                  " chunked ones (int(", tokens, " x ", r.model.num_layers(), " / (", ratio, " x ",
                                  swa_layers, " + ", full_layers, ")) and int(", full, " x ", ratio, "))"));
}

// The groups the engine cuts the KV cache of layers [first, first + count) into: one group of
// every layer unless the model has sliding windows and the engine's rule keeps them apart
// (EnginePersonality.windowed_kv_cache). `notes` (once per plan) says which rule applied.
absl::StatusOr<KvCacheGroups> EngineKvGroups(const MemoryPlanRequest& r, const EnginePersonality& p, int first,
                                             int count, std::vector<std::string>* notes) {
  const AttentionLayerCounts kinds = CountAttentionLayers(r.model);
  if (SglangSwaPool(r, p)) {
    if (r.pipeline_parallel > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--pipeline-parallel-size=", r.pipeline_parallel, " with ", r.model.name(), " on ", PersonalityName(p),
          ": SGLang's hybrid SWA pool across pipeline stages is not modelled; use tensor parallelism"));
    }
    if (notes != nullptr) {
      notes->push_back(absl::StrCat(
          kinds.chunked, " of ", r.model.num_layers(), " layers attend within ",
          r.model.attention().attention_chunk_size(), "-token chunks; ", PersonalityName(p),
          " keeps them in a pool of their own (the hybrid SWA pool, the chunk "
          "as its window) of swa_full_tokens_ratio ",
          r.swa_full_tokens_ratio > 0 ? r.swa_full_tokens_ratio : p.swa_full_tokens_ratio(),
          " x the full-attention layers' "
          "tokens; a running sequence's tokens take slots in both pools, so the smaller is the capacity (exact "
          "for sequences within the chunk; longer prompts may free part of theirs through the radix cache) (",
          p.windowed_kv_cache_source(), ")"));
    }
    return OneGroup(count);
  }
  if (kinds.chunked > 0 && notes != nullptr) {
    notes->push_back(absl::StrCat(kinds.chunked, " of ", r.model.num_layers(), " layers attend within ",
                                  r.model.attention().attention_chunk_size(),
                                  "-token chunks; their KV is allocated as full attention (vLLM turns its hybrid "
                                  "KV cache manager off for chunked local attention by default; ",
                                  PersonalityName(p), ": ", p.windowed_kv_cache_source(), ")"));
  }
  if (kinds.linear > 0 && p.windowed_kv_cache() != HYBRID_GROUPS) {
    if (!p.has_mamba_pool()) {
      return absl::InvalidArgumentError(
          absl::StrCat(r.model.name(),
                       "'s linear-attention layers need a per-sequence state pool, which InferGrid models for "
                       "vLLM V1's hybrid KV cache manager and SGLang 0.5.3's Mamba pool only; --engine=",
                       PersonalityName(p), " is not modelled for it"));
    }
    if (r.pipeline_parallel > 1) {
      return absl::InvalidArgumentError(absl::StrCat("--pipeline-parallel-size=", r.pipeline_parallel, " with ",
                                                     r.model.name(), " on ", PersonalityName(p),
                                                     ": SGLang's Mamba pool across pipeline stages is not modelled"));
    }
    // The state lives in the Mamba pool (ApplySglangRule); the token pool holds the full layers.
    return OneGroup(count - kinds.linear);
  }
  if (kinds.window == 0 && kinds.linear == 0) return OneGroup(count);
  const std::string window = kinds.window > 0
                                 ? absl::StrCat(kinds.window, " of ", r.model.num_layers(), " layers attend to a ",
                                                r.model.attention().sliding_window(), "-token window")
                                 : absl::StrCat(kinds.linear, " of ", r.model.num_layers(),
                                                " layers are linear attention with a fixed state per sequence");
  const bool apart = p.windowed_kv_cache() == HYBRID_GROUPS ||
                     (p.windowed_kv_cache() == UNIFORM_WINDOW_ONLY && kinds.full + kinds.chunked == 0);
  if (!apart) {
    // With max_attention_window TensorRT-LLM's pools decide (SplitWindowPools notes them).
    if (notes != nullptr && (r.max_attention_window.empty() || p.max_attention_window_source().empty())) {
      notes->push_back(absl::StrCat(window, "; ", PersonalityName(p),
                                    " allocates their KV as full attention (attention still reads only the "
                                    "window): ",
                                    p.windowed_kv_cache_source()));
    }
    return OneGroup(count);
  }
  if (r.pipeline_parallel > 1 && kinds.full + kinds.chunked > 0 && kinds.window + kinds.linear > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--pipeline-parallel-size=", r.pipeline_parallel, " with ", r.model.name(),
                     "'s mixed sliding-window and full layers: the hybrid KV cache groups across pipeline stages are "
                     "not modelled; use tensor parallelism"));
  }
  KvCacheGroups groups = VllmHybridGroups(r.model, first, count);
  if (notes != nullptr) {
    notes->push_back(absl::StrCat(window, "; ", PersonalityName(p),
                                  kinds.window > 0 ? " keeps only the window's blocks for them: "
                                                   : " keeps one state block per sequence for them: ",
                                  groups.Describe(), " (", p.windowed_kv_cache_source(), ")"));
  }
  return groups;
}

// vLLM makes a state block and an attention block the same size
// (HybridAttentionMambaModelConfig.verify_and_update_config): the attention block grows to
// 16 x ceil(state bytes / (16 x attention bytes per token and layer)) tokens unless the user's is
// larger, and the state page is padded to it (Qwen3-Next at TP 1: 1,097,728 B of state, 2,048 B
// a token: 544-token blocks).
void AlignStateBlocks(const MemoryPlanRequest& r, int64_t per_layer_token, MemoryPlanDetail* d) {
  const int64_t state = LinearStateBytesPerLayer(r.model, r.tensor_parallel);
  const int64_t aligned = 16 * ((state + 16 * per_layer_token - 1) / (16 * per_layer_token));
  if (d->plan.block_size >= aligned) return;
  d->plan.block_size = static_cast<int>(aligned);
  d->notes.push_back(absl::StrCat("linear-attention state: ", state,
                                  " B per sequence and layer; vLLM sets the attention "
                                  "block size to ",
                                  aligned, " tokens so that an attention block holds at least one state"));
}

// vLLM's get_pp_indices: L / PP layers each, the remainder going to the stages before the last.
std::vector<int> StageLayers(int layers, int stages) {
  std::vector<int> result(static_cast<size_t>(stages), layers / stages);
  for (int i = 2; i < layers % stages + 2; ++i) ++result[static_cast<size_t>(stages - i)];
  return result;
}

bool GpuNameContains(const GpuSpec& gpu, absl::string_view needle) {
  for (const std::string& name : {gpu.name(), gpu.display_name(), gpu.reported_name()}) {
    if (absl::StrContains(absl::AsciiStrToLower(name), needle)) return true;
  }
  return false;
}

// Device memory as the engine reads it: torch's total where the GPU spec has it.
double EngineTotalBytes(const GpuSpec& gpu) {
  return gpu.framework_total_gib() > 0 ? gpu.framework_total_gib() * kGiB
                                       : static_cast<double>(gpu.reported_total_mib()) * 1048576.0;
}

// The personality's batch defaults for a GPU with `total_bytes`: the first class that matches.
const BatchDefaults& DefaultsForGpu(const EnginePersonality& p, const GpuSpec& gpu, double total_bytes) {
  const double total_gib = total_bytes / kGiB;
  for (const BatchDefaults& b : p.batch_defaults()) {
    if (total_gib >= b.min_total_gib() &&
        (b.excluded_gpu_substring().empty() || !GpuNameContains(gpu, b.excluded_gpu_substring()))) {
      return b;
    }
  }
  return p.batch_defaults(p.batch_defaults_size() - 1);
}

// What the engine itself refuses at startup (the personality's argument checks, by version).
absl::Status CheckEngineArguments(const MemoryPlanRequest& r, const EnginePersonality& p, const MemoryPlanDetail& d) {
  if (p.refuse_max_model_len_above_positions() && r.model.max_position_embeddings() > 0 &&
      d.max_model_len > r.model.max_position_embeddings()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max-model-len=", d.max_model_len, " is greater than ", r.model.name(), "'s max_position_embeddings (",
        r.model.max_position_embeddings(), "): ", d.plan.engine, " refuses it at startup"));
  }
  if (p.refuse_batched_tokens_below_seqs() && d.max_num_batched_tokens < d.max_num_seqs) {
    return absl::InvalidArgumentError(absl::StrCat("--max-num-batched-tokens=", d.max_num_batched_tokens,
                                                   " is smaller than --max-num-seqs=", d.max_num_seqs, ": ",
                                                   d.plan.engine, " refuses it at startup"));
  }
  if (r.block_size > 0 && p.block_size_choices_size() > 0 &&
      std::find(p.block_size_choices().begin(), p.block_size_choices().end(), r.block_size) ==
          p.block_size_choices().end()) {
    return absl::InvalidArgumentError(absl::StrCat("--block-size=", r.block_size, ": ", d.plan.engine, " accepts ",
                                                   absl::StrJoin(p.block_size_choices(), ", ")));
  }
  return absl::OkStatus();
}

// TensorRT-LLM's pools per window from --max-attention-window, before the budget sizes them.
absl::Status PlanWindowPools(const MemoryPlanRequest& r, int64_t per_layer_token, MemoryPlanDetail* d) {
  absl::StatusOr<std::vector<KvWindowPool>> pools =
      memory_plan_internal::PlanWindowPools(r, d->personality, d->max_model_len, per_layer_token);
  if (!pools.ok()) return pools.status();
  d->plan.window_pools = *std::move(pools);
  if (!r.max_attention_window.empty() && d->plan.window_pools.empty()) {
    d->notes.push_back(
        absl::StrCat("max_attention_window gives every layer max_model_len (", d->max_model_len, ") tokens: one pool"));
  }
  return absl::OkStatus();
}

// The KV block size: the user's, else the engine's (FlashMLA's for latent attention); a
// token-granular SGLang pool ignores it.
void ResolveBlockSize(const MemoryPlanRequest& r, const EnginePersonality& p, MemoryPlanDetail* d) {
  d->plan.block_size = r.block_size > 0 ? r.block_size : p.default_block_size();
  if (r.model.has_mla() && r.block_size <= 0 && p.mla_block_size() > 0) {
    d->plan.block_size = p.mla_block_size();
    d->notes.push_back(
        absl::StrCat("latent attention: the FlashMLA backend forces ", p.mla_block_size(), "-token blocks"));
  }
  if (p.rule() == SGLANG_STATIC_FRACTION && !p.round_to_page() && d->plan.block_size != 1) {
    d->notes.push_back(
        absl::StrCat("this SGLang version has a token-granular pool: block size ", d->plan.block_size, " ignored"));
    d->plan.block_size = 1;
  }
}

absl::Status ResolveDeployment(const MemoryPlanRequest& r, MemoryPlanDetail* d) {
  const EnginePersonality& p = d->personality;
  d->plan.engine = PersonalityName(p);
  d->plan.total_bytes = EngineTotalBytes(r.gpu);
  if (r.gpu.framework_total_gib() > 0) {
    d->total_origin = "framework total (torch.cuda.mem_get_info) from the GPU spec";
  } else {
    d->total_origin = "nvidia-smi total (the GPU spec has no framework_total_gib)";
    d->notes.push_back(
        "the GPU spec has no framework_total_gib: the nvidia-smi total is used, an upper "
        "bound (torch reads 0-0.9 GiB less on the cards we know)");
  }
  if (d->plan.total_bytes <= 0)
    return absl::InvalidArgumentError(absl::StrCat("GPU '", r.gpu.name(), "' has no memory total"));

  d->max_model_len = r.max_model_len > 0 ? r.max_model_len : r.model.max_position_embeddings();
  if (d->max_model_len <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("model '", r.model.name(), "' has no max_position_embeddings: give --max-model-len"));
  }
  const BatchDefaults* defaults = &DefaultsForGpu(p, r.gpu, d->plan.total_bytes);
  const int64_t default_seqs =
      r.offline && defaults->offline_max_num_seqs() > 0 ? defaults->offline_max_num_seqs() : defaults->max_num_seqs();
  const int64_t default_tokens = r.offline && defaults->offline_max_num_batched_tokens() > 0
                                     ? defaults->offline_max_num_batched_tokens()
                                     : defaults->max_num_batched_tokens();
  d->max_num_seqs = r.max_num_seqs > 0 ? r.max_num_seqs : default_seqs;
  if (r.max_num_batched_tokens > 0) {
    d->max_num_batched_tokens = r.max_num_batched_tokens;
  } else if (default_tokens > 0) {
    d->max_num_batched_tokens = default_tokens;
  } else if (p.chunked_prefill_above() > 0 && d->max_model_len > p.chunked_prefill_above()) {
    d->max_num_batched_tokens = p.chunked_prefill_tokens();
    d->notes.push_back(absl::StrCat("max_model_len ", d->max_model_len, " > ", p.chunked_prefill_above(),
                                    ": the server enables chunked prefill with ", p.chunked_prefill_tokens(),
                                    " tokens per step"));
  } else {
    d->max_num_batched_tokens = std::max(d->max_model_len, p.min_batched_tokens());
  }
  if (d->max_num_seqs <= 0) d->max_num_seqs = d->max_num_batched_tokens;
  if (absl::Status s = CheckEngineArguments(r, p, *d); !s.ok()) return s;

  if (r.model.has_sparse_attention() && p.engine() == "vllm-v0") {
    return absl::InvalidArgumentError(absl::StrCat("--engine=", p.engine(), "@", p.version(),
                                                   " predates DeepSeek Sparse Attention (", r.model.name(),
                                                   "); choose vllm-v1, sglang or trtllm"));
  }
  if (r.model.has_mla() && p.lacks_mla()) {
    return absl::InvalidArgumentError(absl::StrCat("--engine=", p.engine(), "@", p.version(),
                                                   " predates multi-head latent attention support "
                                                   "and cached ",
                                                   r.model.name(),
                                                   " as full per-head K and V; choose a newer version"));
  }
  ResolveBlockSize(r, p, d);

  const std::vector<int> layers = StageLayers(r.model.num_layers(), r.pipeline_parallel);
  const int64_t per_layer_token = EngineKvBytesPerTokenLayer(r, p);
  int first_layer = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    StagePlan stage;
    stage.layers = layers[i];
    stage.weights = ComputeEngineWeightBytes(r.model, r.weights, r.tensor_parallel,
                                             StageShape{layers[i], i == 0, i + 1 == layers.size(), first_layer}, p,
                                             r.expert_parallel, r.attention_data_parallel);
    absl::StatusOr<KvCacheGroups> groups = EngineKvGroups(r, p, first_layer, layers[i], i == 0 ? &d->notes : nullptr);
    if (!groups.ok()) return groups.status();
    stage.kv_groups = *groups;
    stage.kv_bytes_per_token = per_layer_token * groups->layers_per_group;
    first_layer += layers[i];
    d->stages.push_back(stage);
  }
  if (d->stages.front().kv_groups.state_groups > 0) AlignStateBlocks(r, per_layer_token, d);
  return PlanWindowPools(r, per_layer_token, d);
}

// TensorRT-LLM's pools per window: the budget split by their shares; the first pool (every
// token) stands for the cache in num_blocks and kv_bytes_per_token.
absl::Status SplitWindowPools(const StagePlan& stage, MemoryPlanDetail* d, int64_t* blocks) {
  std::vector<KvWindowPool>& pools = d->plan.window_pools;
  memory_plan_internal::SizeWindowPools(stage.kv_cache_bytes, d->plan.block_size, &pools);
  for (const KvWindowPool& pool : pools) {
    if (pool.num_blocks <= 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the ", pool.window_tokens, "-token window's pool gets no whole block: ",
          memory_plan_internal::DescribeWindowPools(pools), "; raise --free-gpu-memory-fraction or widen the window"));
    }
  }
  *blocks = pools.front().num_blocks;
  d->notes.push_back(
      absl::StrCat("max_attention_window: ", memory_plan_internal::DescribeWindowPools(pools),
                   "; a pool's share is window x layers x "
                   "bytes per token over the same for every pool, and a sequence holds ceil(min(tokens, window) / ",
                   d->plan.block_size, ") blocks of each (", d->personality.max_attention_window_source(), ")"));
  return absl::OkStatus();
}

// vLLM's startup check with window groups (kv_cache_utils.py check_enough_kv_cache_memory over
// max_memory_usage_bytes): a full group needs max_model_len's blocks, a window group
// cdiv(min(W - 1 + max_num_batched_tokens, max_model_len), B) + 1.
absl::Status CheckHybridFitsMaxModelLen(const EnginePersonality& p, MemoryPlanDetail* d) {
  if (!p.require_max_model_len_fits()) return absl::OkStatus();
  const MemoryPlan& plan = d->plan;
  const KvCacheGroups& g = plan.kv_groups;
  const int64_t b = plan.block_size;
  const int64_t needed = memory_plan_internal::HybridBlocksPerRequest(*d);
  if (plan.num_blocks >= needed) return absl::OkStatus();
  const double block_bytes = static_cast<double>(b) * static_cast<double>(plan.kv_bytes_per_token);
  return absl::FailedPreconditionError(absl::StrFormat(
      "to serve one request of max_model_len %d tokens the KV cache needs %d blocks (%.2f GiB per GPU: %s), "
      "but it holds %d (%.2f GiB short); vLLM refuses to start: lower --max-model-len or raise "
      "--gpu-memory-utilization",
      d->max_model_len, needed, static_cast<double>(needed) * block_bytes / kGiB, g.Describe(), plan.num_blocks,
      static_cast<double>(needed - plan.num_blocks) * block_bytes / kGiB));
}

// The KV overrides, checked against the device and the engine: bytes or blocks no GPU of the
// deployment holds, or a cap the engine would ignore, are refused rather than planned or dropped.
absl::Status CheckKvOverrides(const MemoryPlanRequest& r, const MemoryPlanDetail& d, int64_t computed_blocks) {
  using memory_plan_internal::Gib;
  const double total = d.plan.total_bytes;
  if (r.kv_cache_memory_bytes > total) {
    return absl::InvalidArgumentError(absl::StrCat("--kv-cache-memory=", Gib(r.kv_cache_memory_bytes),
                                                   " GiB is more than the GPU's ", Gib(total), " GiB (", r.gpu.name(),
                                                   ")"));
  }
  if (r.num_gpu_blocks_override <= 0) return absl::OkStatus();
  const EnginePersonality& p = d.personality;
  if (p.rule() != VLLM_PROFILE) {
    if (r.num_gpu_blocks_override <= computed_blocks) return absl::OkStatus();
    // SGLang's --max-total-tokens and TensorRT-LLM's max_tokens, which the flag stands for there,
    // only lower the count: a larger one would be ignored.
    const char* cap = p.rule() == SGLANG_STATIC_FRACTION ? "--max-total-tokens" : "max_tokens";
    return absl::InvalidArgumentError(absl::StrCat("--num-gpu-blocks-override=", r.num_gpu_blocks_override,
                                                   " is more than the ", computed_blocks, " blocks ", p.engine(), "@",
                                                   p.version(), " computes; its cap (", cap,
                                                   ") only lowers the count, so give at most ", computed_blocks));
  }
  int64_t widest = 0;  // bytes per token of the stage that holds the most
  for (const StagePlan& stage : d.stages) widest = std::max(widest, stage.kv_bytes_per_token);
  const double bytes = static_cast<double>(r.num_gpu_blocks_override) * d.plan.block_size * static_cast<double>(widest);
  if (bytes > total) {
    return absl::InvalidArgumentError(absl::StrCat("--num-gpu-blocks-override=", r.num_gpu_blocks_override,
                                                   ": that many blocks of ", d.plan.block_size, " tokens x ", widest,
                                                   " B take ", Gib(bytes), " GiB per GPU, more than the GPU's ",
                                                   Gib(total), " GiB (", r.gpu.name(), ")"));
  }
  return absl::OkStatus();
}

// Whole blocks per stage, the overrides, and the stage with the fewest blocks.
absl::Status FinishBlocks(const MemoryPlanRequest& r, MemoryPlanDetail* d) {
  const EnginePersonality& p = d->personality;
  int64_t fewest = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < d->stages.size(); ++i) {
    StagePlan& stage = d->stages[i];
    if (r.kv_cache_memory_bytes > 0) stage.kv_cache_bytes = r.kv_cache_memory_bytes;
    const double block_bytes = static_cast<double>(d->plan.block_size) * static_cast<double>(stage.kv_bytes_per_token);
    stage.num_blocks = static_cast<int64_t>(std::floor(std::max(0.0, stage.kv_cache_bytes) / block_bytes));
    if (stage.num_blocks < fewest) {
      fewest = stage.num_blocks;
      d->limiting_stage = static_cast<int>(i);
    }
  }
  d->computed_num_blocks = fewest;
  if (absl::Status s = CheckKvOverrides(r, *d, fewest); !s.ok()) return s;
  if (r.kv_cache_memory_bytes > 0) {
    d->notes.push_back(absl::StrCat("--kv-cache-memory: ", memory_plan_internal::Gib(r.kv_cache_memory_bytes),
                                    " GiB of KV per GPU as given; the profiled terms are shown for reference"));
  }
  int64_t blocks = fewest;
  if (r.num_gpu_blocks_override > 0) {
    // vLLM replaces its count; SGLang (--max-total-tokens) and TensorRT-LLM (max_tokens) keep the smaller.
    blocks = p.rule() == VLLM_PROFILE ? r.num_gpu_blocks_override : std::min(fewest, r.num_gpu_blocks_override);
    d->notes.push_back(absl::StrCat("block count override ", r.num_gpu_blocks_override, " (computed ", fewest,
                                    p.rule() == VLLM_PROFILE ? "; vLLM uses the override)" : "; the smaller wins)"));
  }
  // SGLang splits the tokens after --max-total-tokens has capped them.
  if (SglangSwaPool(r, p)) SplitSglangSwaPool(r, p, d, &blocks);
  if (!d->plan.window_pools.empty()) {
    if (absl::Status s = SplitWindowPools(d->stages[static_cast<size_t>(d->limiting_stage)], d, &blocks); !s.ok()) {
      return s;
    }
  }
  if (blocks <= 0) {
    return absl::FailedPreconditionError(
        absl::StrFormat("the KV cache budget (%.3f GiB per GPU) holds no whole block of %d tokens x %d B",
                        d->stages[static_cast<size_t>(d->limiting_stage)].kv_cache_bytes / kGiB, d->plan.block_size,
                        d->stages[static_cast<size_t>(d->limiting_stage)].kv_bytes_per_token));
  }
  const StagePlan& limit = d->stages[static_cast<size_t>(d->limiting_stage)];
  MemoryPlan& plan = d->plan;
  plan.weight_bytes = limit.weights.Total();
  plan.activation_peak_bytes = limit.activation.peak;
  plan.non_torch_bytes = limit.non_torch_bytes;
  plan.cuda_graph_bytes = limit.cuda_graph_bytes;
  plan.kv_cache_bytes = limit.kv_cache_bytes;
  plan.kv_bytes_per_token =
      plan.window_pools.empty() ? limit.kv_bytes_per_token : plan.window_pools.front().bytes_per_token;
  plan.kv_groups = limit.kv_groups;
  plan.kv_dtype = r.kv_dtype;
  plan.num_blocks = blocks;
  plan.kv_tokens = plan.kv_groups.CapacityTokens(blocks, plan.block_size);
  if (plan.kv_groups.hybrid()) return CheckHybridFitsMaxModelLen(p, d);
  if (p.require_max_model_len_fits() && plan.kv_tokens < d->max_model_len) {
    const double per_token = static_cast<double>(plan.kv_bytes_per_token);
    return absl::FailedPreconditionError(
        absl::StrFormat("to serve one request of max_model_len %d tokens the KV cache needs %.2f GiB per GPU, but "
                        "it holds %d tokens (%.2f GiB, %.2f GiB short); vLLM refuses to start: lower "
                        "--max-model-len to at most %d or raise --gpu-memory-utilization",
                        d->max_model_len, static_cast<double>(d->max_model_len) * per_token / kGiB, plan.kv_tokens,
                        static_cast<double>(plan.kv_tokens) * per_token / kGiB,
                        static_cast<double>(d->max_model_len - plan.kv_tokens) * per_token / kGiB, plan.kv_tokens));
  }
  return absl::OkStatus();
}

}  // namespace

int64_t memory_plan_internal::HybridBlocksPerRequest(const MemoryPlanDetail& d) {
  const KvCacheGroups& g = d.plan.kv_groups;
  const int64_t b = d.plan.block_size;
  const int64_t window_tokens = std::min(g.window_tokens - 1 + d.max_num_batched_tokens, d.max_model_len);
  return g.full_groups * ((d.max_model_len + b - 1) / b) + g.window_groups * ((window_tokens + b - 1) / b + 1) +
         g.state_groups;
}

absl::StatusOr<MemoryPlanDetail> ExplainEngineMemory(const MemoryPlanRequest& request) {
  if (absl::Status s = ValidateRequest(request); !s.ok()) return s;
  absl::StatusOr<ResolvedEngine> resolved = ResolveEngine(request.engine);
  if (!resolved.ok()) return resolved.status();
  MemoryPlanDetail detail;
  detail.personality = std::move(resolved->personality);
  if (!resolved->note.empty()) detail.notes.push_back(resolved->note);
  for (const std::string& note : detail.personality.notes()) detail.notes.push_back(note);
  if (absl::Status s = ResolveDeployment(request, &detail); !s.ok()) return s;

  namespace rules = memory_plan_internal;
  absl::Status status;
  switch (detail.personality.rule()) {
    case VLLM_PROFILE: status = rules::ApplyVllmRule(request, &detail); break;
    case SGLANG_STATIC_FRACTION: status = rules::ApplySglangRule(request, &detail); break;
    case TRTLLM_FREE_FRACTION: status = rules::ApplyTrtllmRule(request, &detail); break;
    default: status = absl::InternalError(absl::StrCat("personality ", detail.plan.engine, " has no rule"));
  }
  if (!status.ok()) return status;
  if (absl::Status s = FinishBlocks(request, &detail); !s.ok()) return s;
  switch (detail.personality.rule()) {
    case VLLM_PROFILE: rules::WriteVllmLog(request, &detail); break;
    case SGLANG_STATIC_FRACTION: rules::WriteSglangLog(request, &detail); break;
    default: rules::WriteTrtllmLog(request, &detail); break;
  }
  return detail;
}

absl::StatusOr<MemoryPlan> PlanEngineMemory(const MemoryPlanRequest& request) {
  absl::StatusOr<MemoryPlanDetail> detail = ExplainEngineMemory(request);
  if (!detail.ok()) return detail.status();
  return std::move(detail->plan);
}

}  // namespace infergrid
