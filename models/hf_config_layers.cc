// The per-layer readers of the config.json importer: attention kinds per layer (layer_types and
// each family's rule), Llama-4's chunks and interleaved experts, Qwen3-Next's linear-attention
// layers, DeepSeek-V3.2's sparse indexer, and the families' other traits.
#include <cmath>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "models/attention_layout.h"
#include "models/hf_config_fields.h"

namespace infergrid::hf_config_fields {
namespace {

// The kind of each layer from Hugging Face's layer_types ("full_attention",
// "sliding_attention"); any other kind is refused by name.
absl::Status ReadLayerTypes(const json& types, absl::string_view path, int64_t layers, AttentionLayout* layout,
                            bool allow_linear = false) {
  if (!types.is_array() || static_cast<int64_t>(types.size()) != layers) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": field \"layer_types\" must list one kind per layer (", layers, " layers)"));
  }
  for (const json& type : types) {
    const std::string kind = type.is_string() ? type.get<std::string>() : type.dump();
    if (kind == "full_attention") {
      layout->add_layer_pattern(FULL_ATTENTION);
    } else if (kind == "sliding_attention") {
      layout->add_layer_pattern(SLIDING_WINDOW);
    } else if (kind == "linear_attention" && allow_linear) {
      layout->add_layer_pattern(LINEAR_ATTENTION);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(path, ": layer_types holds \"", kind,
                                                     "\", an attention kind InferGrid does not model "
                                                     "(full_attention and sliding_attention are)"));
    }
  }
  return absl::OkStatus();
}

// Qwen3-Next: Gated DeltaNet layers (layer_types "linear_attention", by default three of every
// full_attention_interval) beside gated full-attention layers.
absl::Status ReadQwen3Next(const json& config, absl::string_view path, int64_t layers, ModelSpec* spec) {
  int64_t values[5] = {};
  const char* keys[5] = {"linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
                         "linear_value_head_dim", "linear_conv_kernel_dim"};
  // The bounds ValidateAttentionLayout holds linear attention to.
  const int64_t maxima[5] = {1024, 1024, 4096, 4096, 64};
  for (int i = 0; i < 5; ++i) {
    if (absl::Status s = RequireInt(config, {keys[i]}, path, &values[i]); !s.ok()) return s;
    if (values[i] < 1 || values[i] > maxima[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": field \"", keys[i], "\" is ", values[i], "; expected 1..", maxima[i]));
    }
  }
  LinearAttention* linear = spec->mutable_linear_attention();
  linear->set_num_key_heads(static_cast<int32_t>(values[0]));
  linear->set_num_value_heads(static_cast<int32_t>(values[1]));
  linear->set_key_head_dim(static_cast<int32_t>(values[2]));
  linear->set_value_head_dim(static_cast<int32_t>(values[3]));
  linear->set_conv_kernel(static_cast<int32_t>(values[4]));
  spec->set_gated_attention_output(true);
  AttentionLayout* layout = spec->mutable_attention();
  layout->clear_layer_pattern();
  if (auto it = config.find("layer_types"); it != config.end() && !it->is_null()) {
    return ReadLayerTypes(*it, path, layers, layout, /*allow_linear=*/true);
  }
  int64_t interval = 0;
  bool found = false;
  if (absl::Status s = ReadInt(config, {"full_attention_interval"}, path, &interval, &found); !s.ok()) return s;
  if (!found || interval < 1 || interval > layers) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": a Qwen3-Next config needs layer_types or full_attention_interval in 1..", layers));
  }
  for (int64_t i = 0; i < layers; ++i)
    layout->add_layer_pattern((i + 1) % interval == 0 ? FULL_ATTENTION : LINEAR_ATTENTION);
  return absl::OkStatus();
}

// Which layers are windowed: layer_types where the config lists them, else each family's rule
// (Mistral: every layer; Gemma-2: even layers; Gemma-3: five of every sliding_window_pattern;
// Qwen2/3: layers from max_window_layers on, only with use_sliding_window).
absl::Status ReadAttentionLayout(const json& config, absl::string_view path, absl::string_view model_type,
                                 int64_t layers, ModelSpec* spec) {
  int64_t window = 0, pattern = 0, first_windowed = 0;
  bool found = false;
  if (absl::Status s = ReadInt(config, {"sliding_window"}, path, &window, &found); !s.ok()) return s;
  const bool qwen = absl::StartsWith(model_type, "qwen");
  absl::StatusOr<bool> use_window = ReadBool(config, "use_sliding_window", path, !qwen);
  if (!use_window.ok()) return use_window.status();
  if (!found || window == 0 || !*use_window) return absl::OkStatus();
  if (window > (int64_t{1} << 31)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": field \"sliding_window\" is out of range"));
  }
  AttentionLayout* layout = spec->mutable_attention();
  layout->set_sliding_window(static_cast<int32_t>(window));
  if (auto it = config.find("layer_types"); it != config.end() && !it->is_null()) {
    if (absl::Status s = ReadLayerTypes(*it, path, layers, layout); !s.ok()) return s;
  } else if (model_type == "gemma2") {
    layout->add_layer_pattern(SLIDING_WINDOW);
    layout->add_layer_pattern(FULL_ATTENTION);
  } else if (model_type == "gemma3_text") {
    if (absl::Status s = ReadInt(config, {"sliding_window_pattern"}, path, &pattern, &found); !s.ok()) return s;
    if (!found) pattern = 6;
    if (pattern < 1 || pattern > layers) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": field \"sliding_window_pattern\" must be in 1..", layers));
    }
    for (int64_t i = 0; i < layers; ++i)
      layout->add_layer_pattern((i + 1) % pattern != 0 ? SLIDING_WINDOW : FULL_ATTENTION);
  } else if (qwen) {
    if (absl::Status s = ReadInt(config, {"max_window_layers"}, path, &first_windowed, &found); !s.ok()) return s;
    for (int64_t i = 0; i < layers; ++i)
      layout->add_layer_pattern(i >= first_windowed ? SLIDING_WINDOW : FULL_ATTENTION);
  }
  if (CountAttentionLayers(*spec).window == 0) spec->clear_attention();
  return absl::OkStatus();
}

// Llama-4: dense layers of intermediate_size_mlp between expert layers of intermediate_size
// every interleave_moe_layer_step layers, one shared expert of the experts' width, and its RoPE
// layers (no_rope_layers[i] = 1; by default three of four) attending within
// attention_chunk_size tokens, the NoPE ones to the whole context.
absl::Status ReadLlama4(const json& config, absl::string_view path, int64_t layers, ModelSpec* spec) {
  int64_t dense_ffn = 0, expert_ffn = 0, step = 0, chunk = 0;
  bool found = false;
  if (absl::Status s = RequireInt(config, {"intermediate_size_mlp"}, path, &dense_ffn); !s.ok()) return s;
  if (absl::Status s = RequireInt(config, {"intermediate_size"}, path, &expert_ffn); !s.ok()) return s;
  if (absl::Status s = ReadInt(config, {"interleave_moe_layer_step"}, path, &step, &found); !s.ok()) return s;
  if (absl::Status s = RequireInt(config, {"attention_chunk_size"}, path, &chunk); !s.ok()) return s;
  if (!spec->has_moe() || step > layers || chunk < 1 || chunk > (int64_t{1} << 31)) {
    return absl::InvalidArgumentError(absl::StrCat(path,
                                                   ": a Llama-4 config needs experts, interleave_moe_layer_step in 0..",
                                                   layers, " and a positive attention_chunk_size"));
  }
  spec->set_ffn_dim(dense_ffn);
  MixtureOfExperts* moe = spec->mutable_moe();
  moe->set_expert_ffn_dim(expert_ffn);
  moe->set_num_shared_experts(1);
  moe->set_interleave_step(static_cast<int32_t>(step));
  AttentionLayout* layout = spec->mutable_attention();
  layout->set_attention_chunk_size(static_cast<int32_t>(chunk));
  const auto no_rope = config.find("no_rope_layers");
  const bool listed = no_rope != config.end() && no_rope->is_array() && !no_rope->empty();
  if (listed && static_cast<int64_t>(no_rope->size()) != layers) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": field \"no_rope_layers\" must list one flag per layer"));
  }
  for (int64_t i = 0; i < layers; ++i) {
    const bool rope = listed ? (*no_rope)[static_cast<size_t>(i)] == 1 : (i + 1) % 4 != 0;
    layout->add_layer_pattern(rope ? CHUNKED_LOCAL : FULL_ATTENTION);
  }
  return absl::OkStatus();
}

// What else of a family's layer decides its size or time: gpt-oss's sinks, output and expert
// biases and experts-only MXFP4; Gemma's four norms a layer, soft-capping and tied embeddings;
// the per-head query and key norms of Qwen3 and Gemma-3.
absl::Status ReadFamilyExtras(const json& config, absl::string_view path, absl::string_view model_type,
                              ModelSpec* spec) {
  if (model_type == "gpt_oss") {
    spec->mutable_attention()->set_attention_sinks(true);
    spec->set_attention_output_bias(spec->attention_bias());
    spec->set_expert_bias(true);
    spec->set_checkpoint_quantizes_experts_only(spec->checkpoint_quantization() == "mxfp4");
  }
  if (absl::StartsWith(model_type, "gemma2") || absl::StartsWith(model_type, "gemma3")) spec->set_norms_per_layer(4);
  if (absl::StartsWith(model_type, "gemma3") || absl::StartsWith(model_type, "qwen3")) spec->set_qk_norm(true);
  if (auto it = config.find("attn_logit_softcapping"); it != config.end() && !it->is_null()) {
    if (!it->is_number() || !(it->get<double>() >= 0) || !std::isfinite(it->get<double>())) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": field \"attn_logit_softcapping\" must be a number >= 0, got ", it->dump()));
    }
    if (it->get<double>() > 0) spec->mutable_attention()->set_attn_logit_softcapping(it->get<double>());
  }
  return absl::OkStatus();
}

// DeepSeek-V3.2's sparse attention: the indexer's heads, head size and top-k.
absl::Status ReadSparseAttention(const json& config, absl::string_view path, ModelSpec* spec) {
  int64_t values[3] = {};
  const char* keys[3] = {"index_n_heads", "index_head_dim", "index_topk"};
  // The bounds ValidateModelSpec holds the indexer to.
  const int64_t maxima[3] = {1024, 4096, int64_t{1} << 30};
  for (int i = 0; i < 3; ++i) {
    if (absl::Status s = RequireInt(config, {keys[i]}, path, &values[i]); !s.ok()) return s;
    if (values[i] < 1 || values[i] > maxima[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": field \"", keys[i], "\" is ", values[i], "; expected 1..", maxima[i]));
    }
  }
  if (!spec->has_mla()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": sparse attention (index_topk) without latent attention is not modelled"));
  }
  SparseAttention* sparse = spec->mutable_sparse_attention();
  sparse->set_index_heads(static_cast<int32_t>(values[0]));
  sparse->set_index_head_dim(static_cast<int32_t>(values[1]));
  sparse->set_index_topk(static_cast<int32_t>(values[2]));
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadLayerLayout(const json& config, absl::string_view path, absl::string_view model_type, int64_t layers,
                             ModelSpec* spec) {
  if (absl::Status s = ReadAttentionLayout(config, path, model_type, layers, spec); !s.ok()) return s;
  if (model_type == "llama4_text") {
    if (absl::Status s = ReadLlama4(config, path, layers, spec); !s.ok()) return s;
  }
  if (model_type == "qwen3_next") {
    if (absl::Status s = ReadQwen3Next(config, path, layers, spec); !s.ok()) return s;
  }
  if (model_type == "deepseek_v32") {
    if (absl::Status s = ReadSparseAttention(config, path, spec); !s.ok()) return s;
  }
  return ReadFamilyExtras(config, path, model_type, spec);
}

}  // namespace infergrid::hf_config_fields
