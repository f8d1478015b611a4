#include "models/hf_config.h"

#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/dtype.h"
#include "base/json_text.h"
#include "base/textproto.h"
#include "models/hf_config_fields.h"
#include "models/model_catalog.h"

namespace infergrid {
namespace {

using nlohmann::json;
using namespace hf_config_fields;  // NOLINT: the config readers shared with hf_config_layers.cc

// The architectures whose config.json maps onto ModelSpec without losing what decides memory
// and time: decoder-only transformers with (grouped-query) multi-head or latent attention, a
// dense or routed-expert MLP in every layer (DeepSeek: after the first few dense ones), and
// shared experts as Qwen-MoE and DeepSeek declare them.
constexpr const char* kSupportedModelTypes[] = {
    "llama",   "mistral",     "mixtral",     "qwen2",    "qwen2_moe",   "qwen3",       "qwen3_moe",
    "gemma",   "gemma2",      "gemma3_text", "gpt2",     "phi3",        "deepseek_v2", "deepseek_v3",
    "gpt_oss", "llama4_text", "qwen3_next",  "glm4_moe", "deepseek_v32"};

// Keys of architectures whose attention or layer layout InferGrid does not price, each with
// what it declares: refused by name rather than priced as something else.
constexpr struct {
  const char* key;
  const char* what;
} kUnmodelledKeys[] = {
    {"attention_chunk_size", "chunked local attention (Llama-4)"},
    {"index_topk", "sparse attention through a lightning indexer (DeepSeek-V3.2)"},
    {"interleave_moe_layer_step", "expert layers interleaved with dense ones (Llama-4)"},
    {"linear_num_value_heads", "linear attention layers (Qwen3-Next's Gated DeltaNet)"},
    {"full_attention_interval", "hybrid linear and full attention layers (Qwen3-Next)"},
};

// Latent-attention fields: all four must be present together (q_lora_rank may be null, a
// full-rank query as in DeepSeek-V2-Lite).
constexpr const char* kLatentAttentionFields[] = {"kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"};

// A config that declares something ModelSpec cannot represent is refused, never guessed.
absl::Status CheckRepresentable(const json& config, absl::string_view path, const std::string& model_type) {
  // Expert layers only every few layers (DeepSeek's moe_layer_freq, Qwen-MoE's
  // decoder_sparse_step and mlp_only_layers) are not modelled: only leading dense layers are.
  for (const char* key : {"moe_layer_freq", "decoder_sparse_step"}) {
    if (auto it = config.find(key); it != config.end() && it->is_number() && it->get<double>() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": field \"", key, "\" = ", it->dump(),
                       " (expert layers only every few layers) is not modelled; only 1 is"));
    }
  }
  for (const auto& [key, what] : kUnmodelledKeys) {
    // Llama-4's chunked attention and interleaved experts are read (ReadLlama4).
    const absl::string_view k = key;
    const bool llama4_key = k == "attention_chunk_size" || k == "interleave_moe_layer_step";
    if (llama4_key && model_type == "llama4_text") continue;
    // Qwen3-Next's Gated DeltaNet layers are read (ReadQwen3Next).
    if ((k == "linear_num_value_heads" || k == "full_attention_interval") && model_type == "qwen3_next") continue;
    if (k == "index_topk" && model_type == "deepseek_v32") continue;  // ReadSparseAttention
    if (Present(config, key)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": field \"", key, "\" declares ", what, ", which InferGrid does not model"));
    }
  }
  if (auto it = config.find("mlp_only_layers"); it != config.end() && it->is_array() && !it->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": field \"mlp_only_layers\" (dense layers among the expert layers) is not modelled"));
  }
  // Latent attention is read only whole: a lone field would price another model.
  int latent = 0;
  for (const char* key : kLatentAttentionFields) latent += Present(config, key);
  if (latent != 0 && latent != 4) {
    for (const char* key : kLatentAttentionFields) {
      if (!Present(config, key)) {
        return absl::InvalidArgumentError(
            absl::StrCat(path,
                         ": multi-head latent attention (MLA) needs kv_lora_rank, qk_nope_head_dim, "
                         "qk_rope_head_dim and v_head_dim together; field \"",
                         key, "\" is missing"));
      }
    }
  }
  if (latent == 0 && Present(config, "q_lora_rank")) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": field \"q_lora_rank\" without kv_lora_rank: not a latent-attention layout InferGrid knows"));
  }
  if (model_type.empty()) return absl::OkStatus();  // a bare decoder config: read as Llama-style
  for (const char* supported : kSupportedModelTypes) {
    if (model_type == supported) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": model_type \"", model_type,
                   "\" is not supported (supported: ", absl::StrJoin(kSupportedModelTypes, ", "),
                   "); write a ModelSpec textproto (models/catalog/) to describe another architecture"));
}

// Reads the latent-attention fields (CheckRepresentable has made sure all four are present).
absl::Status ReadLatentAttention(const json& config, absl::string_view path, LatentAttention* mla) {
  int64_t values[4] = {};
  for (int i = 0; i < 4; ++i) {
    if (absl::Status s = RequireInt(config, {kLatentAttentionFields[i]}, path, &values[i]); !s.ok()) return s;
    if (values[i] < 1 || values[i] > 100000) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": field \"", kLatentAttentionFields[i], "\" must be in 1..100000, got ", values[i]));
    }
  }
  int64_t q_lora = 0;
  bool found = false;
  if (absl::Status s = ReadInt(config, {"q_lora_rank"}, path, &q_lora, &found); !s.ok()) return s;
  if (q_lora > 1000000) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": field \"q_lora_rank\" is ", q_lora, "; expected 0..1000000"));
  }
  mla->set_kv_lora_rank(static_cast<int32_t>(values[0]));
  mla->set_qk_nope_head_dim(static_cast<int32_t>(values[1]));
  mla->set_qk_rope_head_dim(static_cast<int32_t>(values[2]));
  mla->set_v_head_dim(static_cast<int32_t>(values[3]));
  mla->set_q_lora_rank(static_cast<int32_t>(q_lora));
  return absl::OkStatus();
}

// The weight format a quantized checkpoint ships in, as a --weight-dtype name; "" when the
// config declares none. A method InferGrid cannot price is refused: pricing its weights as
// 16-bit would silently double or quadruple them.
absl::StatusOr<std::string> ReadCheckpointQuantization(const json& config, absl::string_view path) {
  auto it = config.find("quantization_config");
  if (it == config.end() || it->is_null()) return std::string();
  std::string method;
  if (it->is_object()) {
    if (auto m = it->find("quant_method"); m != it->end() && m->is_string()) {
      method = absl::AsciiStrToLower(m->get<std::string>());
    }
  }
  if (method == "fp8") return std::string("fp8");
  if (method == "mxfp4") return std::string("mxfp4");
  if (method == "awq" || method == "gptq") {
    auto bits = it->find("bits");
    if (bits == it->end() || (bits->is_number() && bits->get<double>() == 4)) return method;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      path, ": quantization_config ", method.empty() ? it->dump() : absl::StrCat("quant_method \"", method, "\""),
      " is not modelled (fp8, mxfp4, and 4-bit awq or gptq are); remove quantization_config and give the "
      "weight format with --weight-dtype"));
}

// The four sizes every config has, each named with its range ("must be positive" for 1e12
// layers would be wrong).
absl::Status CheckSizes(absl::string_view path, int64_t layers, int64_t hidden, int64_t heads, int64_t vocab) {
  const struct {
    const char* key;
    int64_t value;
    int64_t maximum;
  } sizes[] = {{"num_hidden_layers", layers, kMaxModelLayers},
               {"hidden_size", hidden, kMaxModelHiddenSize},
               {"num_attention_heads", heads, kMaxModelAttentionHeads},
               {"vocab_size", vocab, kMaxModelVocabSize}};
  for (const auto& size : sizes) {
    if (size.value < 1 || size.value > size.maximum) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": ", size.key, " is ", size.value, "; expected 1..", size.maximum));
    }
  }
  return absl::OkStatus();
}

std::string ModelNameFromPath(absl::string_view path) {
  std::filesystem::path p{std::string(path)};
  std::string name = p.has_parent_path() ? p.parent_path().filename().string() : "";
  if (name.empty() || name == "." || name == "..") name = p.stem().string();
  return absl::AsciiStrToLower(name);
}

// A spec named after the config's folder (or file), with its source and Hugging Face id.
ModelSpec NamedAfter(const json& config, absl::string_view path) {
  ModelSpec spec;
  spec.set_name(ModelNameFromPath(path));
  spec.set_display_name(spec.name());
  spec.set_source(absl::StrCat("config.json at ", path));
  if (auto it = config.find("_name_or_path"); it != config.end() && it->is_string()) {
    spec.set_hf_id(it->get<std::string>());
  }
  return spec;
}

// Whether the MLP is gated (gate, up, down), from the activation the config names.
bool GatedMlp(const json& config, absl::string_view model_type, bool gpt_style) {
  std::string act = "silu";
  for (const char* key : {"hidden_act", "activation_function", "hidden_activation"}) {
    if (auto it = config.find(key); it != config.end() && it->is_string()) {
      act = absl::AsciiStrToLower(it->get<std::string>());
      break;
    }
  }
  // Gated MLPs (gate, up, down): SiLU/SwiGLU families and Gemma's GeGLU.
  return !gpt_style && (act == "silu" || act == "swiglu" || act == "geglu" || absl::StartsWith(model_type, "gemma"));
}

// The stored weights' dtype (torch_dtype; bf16 when absent) and a quantized checkpoint's format.
absl::Status ReadWeightFormat(const json& config, absl::string_view path, ModelSpec* spec) {
  spec->set_dtype(DType::BF16);
  if (auto it = config.find("torch_dtype"); it != config.end() && it->is_string()) {
    absl::StatusOr<DType> dtype = ParseDType(it->get<std::string>());
    if (!dtype.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": field \"torch_dtype\": ", dtype.status().message()));
    }
    spec->set_dtype(*dtype);
  }

  absl::StatusOr<std::string> quantization = ReadCheckpointQuantization(config, path);
  if (!quantization.ok()) return quantization.status();
  spec->set_checkpoint_quantization(*quantization);
  return absl::OkStatus();
}

// The mixture of experts, when the config has routed experts: counts, widths, shared experts
// and leading dense layers, checked against the model's `layers`.
absl::Status ReadExperts(const json& config, absl::string_view path, int64_t layers, ModelSpec* spec) {
  int64_t experts = 0, top_k = 0, expert_ffn = 0, shared_ffn = 0, shared_count = 0, dense_first = 0;
  bool found = false;
  if (absl::Status s =
          ReadInt(config, {"num_local_experts", "num_experts", "n_routed_experts"}, path, &experts, &found);
      !s.ok())
    return s;
  if (found && experts > 0) {
    if (absl::Status s = RequireInt(config, {"num_experts_per_tok", "moe_top_k"}, path, &top_k); !s.ok()) return s;
    if (absl::Status s = ReadInt(config, {"moe_intermediate_size"}, path, &expert_ffn, &found); !s.ok()) return s;
    if (absl::Status s = ReadInt(config, {"shared_expert_intermediate_size"}, path, &shared_ffn, &found); !s.ok())
      return s;
    if (absl::Status s = ReadInt(config, {"n_shared_experts"}, path, &shared_count, &found); !s.ok()) return s;
    if (absl::Status s = ReadInt(config, {"first_k_dense_replace"}, path, &dense_first, &found); !s.ok()) return s;
    if (experts > 100000) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": ", experts, " routed experts; expected 1..100000"));
    }
    if (top_k < 1 || top_k > experts) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": num_experts_per_tok (", top_k, ") must be in 1..", experts, " experts"));
    }
    if (dense_first >= layers || shared_count > 100000) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": first_k_dense_replace (", dense_first,
                                                     ") must leave expert layers among the ", layers, " layers"));
    }
    MixtureOfExperts* moe = spec->mutable_moe();
    moe->set_num_experts(static_cast<int32_t>(experts));
    moe->set_experts_per_token(static_cast<int32_t>(top_k));
    moe->set_expert_ffn_dim(expert_ffn);
    // A shared expert of a different width is counted in units of the expert width.
    if (shared_ffn > 0 && expert_ffn > 0) {
      moe->set_num_shared_experts(static_cast<int32_t>(shared_ffn / expert_ffn));
    }
    // DeepSeek counts its shared experts directly, each of the routed experts' width.
    if (shared_count > 0) moe->set_num_shared_experts(static_cast<int32_t>(shared_count));
    moe->set_first_dense_layers(static_cast<int32_t>(dense_first));
  }
  return absl::OkStatus();
}

// The config.json keys each ModelSpec field that ValidateModelSpec names is read from, the first
// present one winning as it does when the field is read.
struct FieldKeys {
  const char* field;
  std::vector<const char*> keys;
};
const std::vector<FieldKeys>& ConfigKeysOfFields() {
  static const auto* fields = new std::vector<FieldKeys>{
      {"num_layers", {"num_hidden_layers", "n_layer", "num_layers"}},
      {"hidden_size", {"hidden_size", "n_embd", "d_model"}},
      {"num_attention_heads", {"num_attention_heads", "n_head"}},
      {"num_kv_heads", {"num_key_value_heads", "num_kv_heads"}},
      {"head_dim", {"head_dim"}},
      {"ffn_dim", {"intermediate_size", "n_inner", "ffn_dim"}},
      {"vocab_size", {"vocab_size"}},
      {"max_position_embeddings", {"max_position_embeddings", "n_positions", "seq_length"}},
      {"num_experts", {"num_local_experts", "num_experts", "n_routed_experts"}},
      {"experts_per_token", {"num_experts_per_tok", "moe_top_k"}},
      {"expert_ffn_dim", {"moe_intermediate_size"}},
      {"first_dense_layers", {"first_k_dense_replace"}},
      {"interleave_step", {"interleave_moe_layer_step"}},
      {"num_shared_experts", {"n_shared_experts", "shared_expert_intermediate_size"}},
      {"sliding_window", {"sliding_window"}},
      {"attention_chunk_size", {"attention_chunk_size"}},
      {"attn_logit_softcapping", {"attn_logit_softcapping"}},
      {"layer_pattern", {"layer_types"}},
      {"index_heads", {"index_n_heads"}},
      {"index_head_dim", {"index_head_dim"}},
      {"index_topk", {"index_topk"}},
      {"num_key_heads", {"linear_num_key_heads"}},
      {"num_value_heads", {"linear_num_value_heads"}},
      {"key_head_dim", {"linear_key_head_dim"}},
      {"value_head_dim", {"linear_value_head_dim"}},
      {"conv_kernel", {"linear_conv_kernel_dim"}},
  };
  return *fields;
}

// `message` (ValidateModelSpec's, about ModelSpec fields) in the keys the config was written
// with: "num_kv_heads must be in 1..num_attention_heads" becomes "num_key_value_heads must be in
// 1..num_attention_heads", "moe.first_dense_layers" "first_k_dense_replace", nested under
// "text_config." where the config keeps its fields there.
std::string InConfigKeys(absl::string_view message, const json& config, absl::string_view prefix) {
  std::map<std::string, std::string> names;
  for (const FieldKeys& f : ConfigKeysOfFields()) {
    std::string key = f.keys.front();
    for (const char* candidate : f.keys) {
      if (Present(config, candidate)) {
        key = candidate;
        break;
      }
    }
    names[f.field] = absl::StrCat(prefix, key);
  }
  // ModelSpec's message names, as a config says them.
  names["moe"] = "the experts";
  names["mla"] = "latent attention";
  const auto is_name = [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  };
  std::string out;
  for (size_t i = 0; i < message.size();) {
    if (!is_name(message[i])) {
      out.push_back(message[i++]);
      continue;
    }
    size_t end = i;
    while (end < message.size() && is_name(message[end])) ++end;
    absl::string_view token = message.substr(i, end - i);
    for (absl::string_view owner : {"attention.", "moe.", "mla.", "sparse_attention.", "linear_attention."}) {
      if (absl::StartsWith(token, owner) && names.count(std::string(token.substr(owner.size())))) {
        token.remove_prefix(owner.size());
      }
    }
    const auto it = names.find(std::string(token));
    absl::StrAppend(&out, it != names.end() ? it->second : token);
    i = end;
  }
  return out;
}

// What the checks of every model refuse, said in the keys the config was written with (under
// text_config. when `nested`).
absl::Status ValidateInConfigKeys(const ModelSpec& spec, const json& config, bool nested, absl::string_view path) {
  const absl::Status status = ValidateModelSpec(spec, path);
  if (status.ok()) return status;
  absl::string_view what = status.message();
  const std::string where = absl::StrCat(path, ": ");
  if (absl::StartsWith(what, where)) what.remove_prefix(where.size());
  return absl::InvalidArgumentError(absl::StrCat(where, InConfigKeys(what, config, nested ? "text_config." : "")));
}

// The family conventions a config may leave implicit: tied embeddings, QKV biases, a gated MLP.
struct Conventions {
  bool tied = false;
  bool bias = false;
  bool gated = false;
};

absl::StatusOr<Conventions> ReadConventions(const json& config, absl::string_view path, const std::string& model_type) {
  // Llama-family configs default to untied embeddings; GPT-2-style and Gemma ones tie them.
  const bool gpt_style = model_type == "gpt2" || config.contains("n_embd");
  absl::StatusOr<bool> tied =
      ReadBool(config, "tie_word_embeddings", path, gpt_style || absl::StartsWith(model_type, "gemma"));
  if (!tied.ok()) return tied.status();
  // Qwen2 always carries QKV biases; Llama-style configs say so in attention_bias.
  absl::StatusOr<bool> bias =
      ReadBool(config, "attention_bias", path, model_type == "qwen2" || model_type == "qwen2_moe");
  if (!bias.ok()) return bias.status();

  const bool gated = GatedMlp(config, model_type, gpt_style);
  return Conventions{.tied = *tied, .bias = *bias, .gated = gated};
}

}  // namespace

absl::StatusOr<ModelSpec> ImportHfConfig(absl::string_view json_text, absl::string_view path) {
  absl::StatusOr<json> parsed = ParseJson(json_text, path);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": config.json must be a JSON object"));
  }
  const json* config = &*parsed;
  const bool has_layers =
      config->contains("num_hidden_layers") || config->contains("n_layer") || config->contains("num_layers");
  if (!has_layers && config->contains("text_config") && (*config)["text_config"].is_object()) {
    config = &(*config)["text_config"];
  }

  ModelSpec spec = NamedAfter(*config, path);

  int64_t layers = 0, hidden = 0, heads = 0, vocab = 0;
  if (absl::Status s = RequireInt(*config, {"num_hidden_layers", "n_layer", "num_layers"}, path, &layers); !s.ok())
    return s;
  if (absl::Status s = RequireInt(*config, {"hidden_size", "n_embd", "d_model"}, path, &hidden); !s.ok()) return s;
  if (absl::Status s = RequireInt(*config, {"num_attention_heads", "n_head"}, path, &heads); !s.ok()) return s;
  if (absl::Status s = RequireInt(*config, {"vocab_size"}, path, &vocab); !s.ok()) return s;
  if (absl::Status s = CheckSizes(path, layers, hidden, heads, vocab); !s.ok()) return s;
  std::string model_type;
  if (auto it = config->find("model_type"); it != config->end() && it->is_string()) {
    model_type = absl::AsciiStrToLower(it->get<std::string>());
  }
  if (absl::Status s = CheckRepresentable(*config, path, model_type); !s.ok()) return s;

  int64_t kv_heads = heads, head_dim = 0, ffn = 0, max_positions = 0;
  bool found = false;
  if (absl::Status s = ReadInt(*config, {"num_key_value_heads", "num_kv_heads"}, path, &kv_heads, &found); !s.ok())
    return s;
  if (!found) kv_heads = heads;
  if (absl::Status s = ReadInt(*config, {"head_dim"}, path, &head_dim, &found); !s.ok()) return s;
  if (Present(*config, "kv_lora_rank")) {
    // Latent attention: queries and keys have qk_nope + qk_rope dimensions per head; the cache
    // holds one latent per token, which vLLM counts as a single KV head.
    if (absl::Status s = ReadLatentAttention(*config, path, spec.mutable_mla()); !s.ok()) return s;
    head_dim = spec.mla().qk_nope_head_dim() + spec.mla().qk_rope_head_dim();
    kv_heads = 1;
  } else if (!found) {
    if (hidden % heads != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": no \"head_dim\" and hidden_size ", hidden, " is not a multiple of ", heads, " heads"));
    }
    head_dim = hidden / heads;
  }
  if (absl::Status s = ReadInt(*config, {"intermediate_size", "n_inner", "ffn_dim"}, path, &ffn, &found); !s.ok())
    return s;
  if (!found) ffn = 4 * hidden;  // GPT-2 convention when n_inner is null
  if (absl::Status s =
          ReadInt(*config, {"max_position_embeddings", "n_positions", "seq_length"}, path, &max_positions, &found);
      !s.ok())
    return s;

  absl::StatusOr<Conventions> conventions = ReadConventions(*config, path, model_type);
  if (!conventions.ok()) return conventions.status();

  spec.set_num_layers(static_cast<int32_t>(layers));
  spec.set_hidden_size(hidden);
  spec.set_ffn_dim(ffn);
  spec.set_num_attention_heads(static_cast<int32_t>(heads));
  spec.set_num_kv_heads(static_cast<int32_t>(std::min<int64_t>(kv_heads, 1 << 30)));
  spec.set_head_dim(static_cast<int32_t>(std::min<int64_t>(head_dim, 1 << 30)));
  spec.set_vocab_size(vocab);
  spec.set_tie_word_embeddings(conventions->tied);
  spec.set_gated_mlp(conventions->gated);
  spec.set_attention_bias(conventions->bias);
  spec.set_max_position_embeddings(max_positions);
  if (absl::Status s = ReadWeightFormat(*config, path, &spec); !s.ok()) return s;
  if (absl::Status s = ReadExperts(*config, path, layers, &spec); !s.ok()) return s;
  if (absl::Status s = ReadLayerLayout(*config, path, model_type, layers, &spec); !s.ok()) return s;
  if (absl::Status s = ValidateInConfigKeys(spec, *config, config != &*parsed, path); !s.ok()) return s;
  return spec;
}

absl::StatusOr<ModelSpec> ReadHfConfigFile(const std::string& path) {
  std::string text;
  if (absl::Status s = ReadFileToString(path, &text, size_t{16} << 20); !s.ok()) return s;
  return ImportHfConfig(text, path);
}

}  // namespace infergrid
