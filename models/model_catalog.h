// The built-in model catalog (models/catalog/*.textproto, compiled into the binary) and the
// one entry point that turns a user's --model value into a validated ModelSpec.
#ifndef INFERGRID_MODELS_MODEL_CATALOG_H_
#define INFERGRID_MODELS_MODEL_CATALOG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "models/model_spec.pb.h"

namespace infergrid {

// Names of the catalog entries, sorted.
std::vector<std::string> ModelCatalogNames();

// A Hugging Face model id as the catalog compares it: lower case; a quantized re-upload's
// suffix ("-FP8", "-FP8-dynamic", "-AWQ", "-AWQ-INT4", "-GPTQ-Int4", "-NVFP4", "-FP4") taken off
// and named as the weight format it ships in (a --quantization name); the words of tuned
// variants ("instruct", "chat", "hf", "it", "base") dropped wherever they stand, so
// "mistralai/Mistral-7B-Instruct-v0.3" is the repository "mistral-7b-v0.3".
struct HfModelId {
  std::string organisation;  // "" when the id has no "org/"
  std::string repository;
  std::string quantization;  // "" when the name gives none
  bool tuned = false;  // a variant word ("instruct", "chat", "it") was dropped
};
HfModelId ParseHfModelId(absl::string_view id);

// A catalog entry by name, or by Hugging Face id (case-insensitive, compared as ParseHfModelId
// reads it): the entry whose hf_id or one of its hf_aliases names the same organisation and
// repository, else the same repository under another organisation (a re-upload: nvidia/,
// RedHatAI/). A quantized re-upload's entry comes back with checkpoint_quantization set to the
// format its name gives, so "nvidia/Llama-3.1-8B-Instruct-FP8" loads fp8 weights as vLLM would;
// a tuned variant's with its own max_position_embeddings where the entry records one.
// Otherwise NotFound listing the names.
absl::StatusOr<ModelSpec> FindCatalogModel(absl::string_view name);

// A catalog name, a Hugging Face config.json path, or a ModelSpec .textproto path.
absl::StatusOr<ModelSpec> ResolveModel(absl::string_view name_or_path);

// Bounds of every model, whether a catalog entry, a ModelSpec textproto or a config.json (whose
// importer checks its keys against the same): they keep every derived product (parameters,
// FLOPs at 1M tokens) far from overflow.
inline constexpr int64_t kMaxModelLayers = 10'000;
inline constexpr int64_t kMaxModelHiddenSize = 1'000'000;
inline constexpr int64_t kMaxModelAttentionHeads = 100'000;
inline constexpr int64_t kMaxModelVocabSize = 100'000'000;

// Checks that the architecture is self-consistent and within sane bounds; `where` names the
// source in the error ("config.json", "models/catalog/<name>.textproto").
absl::Status ValidateModelSpec(const ModelSpec& spec, absl::string_view where);

}  // namespace infergrid

#endif  // INFERGRID_MODELS_MODEL_CATALOG_H_
