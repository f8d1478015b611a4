// Internal to models/: reading config.json fields with errors that name the file and the key,
// shared by the importer (hf_config.cc) and its per-layer readers (hf_config_layers.cc).
#ifndef INFERGRID_MODELS_HF_CONFIG_FIELDS_H_
#define INFERGRID_MODELS_HF_CONFIG_FIELDS_H_

#include <cstdint>
#include <initializer_list>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "models/model_spec.pb.h"
#include "nlohmann/json.hpp"

namespace infergrid::hf_config_fields {

using json = nlohmann::json;

// Reads the first present key among `keys` as a non-negative integer below 9e15; `*found` tells
// whether any key was present.
absl::Status ReadInt(const json& config, std::initializer_list<const char*> keys, absl::string_view path,
                     int64_t* value, bool* found);
// As ReadInt, and a missing key is an error.
absl::Status RequireInt(const json& config, std::initializer_list<const char*> keys, absl::string_view path,
                        int64_t* value);
// A boolean field, `default_value` when absent or null.
absl::StatusOr<bool> ReadBool(const json& config, const char* key, absl::string_view path, bool default_value);
// The key is present and not null.
bool Present(const json& config, const char* key);

// Which layers attend how (windows, chunks, linear attention), DeepSeek-V3.2's sparse indexer,
// and the families' other per-layer traits (gpt-oss's sinks and biases, Gemma's norms and
// soft-cap, Llama-4's interleaved experts, Qwen3's query/key norms), into `spec`, whose sizes
// and experts are already read (hf_config_layers.cc).
absl::Status ReadLayerLayout(const json& config, absl::string_view path, absl::string_view model_type, int64_t layers,
                             ModelSpec* spec);

}  // namespace infergrid::hf_config_fields

#endif  // INFERGRID_MODELS_HF_CONFIG_FIELDS_H_
