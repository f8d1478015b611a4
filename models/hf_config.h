// Import of a Hugging Face config.json into a ModelSpec, so that any model on the Hub runs
// without a catalog entry. Reads the keys of the Llama/Mistral/Mixtral/Qwen2(-MoE) families
// and the GPT-style aliases (n_layer, n_embd, n_head, n_inner); a multimodal config's
// "text_config" is used when the top level has no layers. A config it cannot represent is
// refused with the reason, never approximated: a model_type outside the supported families
// (llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gpt2, phi3; a
// config without model_type is read as Llama-style), or a field that changes the attention or
// the layer structure (multi-head latent attention's kv_lora_rank and rope dims, DeepSeek's
// first_k_dense_replace and n_shared_experts, Qwen-MoE's dense layers).
#ifndef INFERGRID_MODELS_HF_CONFIG_H_
#define INFERGRID_MODELS_HF_CONFIG_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "models/model_spec.pb.h"

namespace infergrid {

// `path` names the source in errors and gives the model its name (the parent folder's).
absl::StatusOr<ModelSpec> ImportHfConfig(absl::string_view json_text, absl::string_view path);

absl::StatusOr<ModelSpec> ReadHfConfigFile(const std::string& path);

}  // namespace infergrid

#endif  // INFERGRID_MODELS_HF_CONFIG_H_
