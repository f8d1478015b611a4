#include "models/hf_config_fields.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace infergrid::hf_config_fields {

// Reads the first present key among `keys` as a positive integer; `*found` tells whether any
// key was present. Errors name the file and the key.
absl::Status ReadInt(const json& config, std::initializer_list<const char*> keys, absl::string_view path,
                     int64_t* value, bool* found) {
  *found = false;
  for (const char* key : keys) {
    auto it = config.find(key);
    if (it == config.end() || it->is_null()) continue;
    if (!it->is_number_integer() && !(it->is_number_float() && std::floor(it->get<double>()) == it->get<double>())) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": field \"", key, "\" must be an integer, got ", it->dump()));
    }
    const double v = it->get<double>();
    if (v < 0 || v > 9.0e15) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": field \"", key, "\" is out of range: ", it->dump()));
    }
    *value = it->get<int64_t>();
    *found = true;
    return absl::OkStatus();
  }
  return absl::OkStatus();
}

absl::Status RequireInt(const json& config, std::initializer_list<const char*> keys, absl::string_view path,
                        int64_t* value) {
  bool found = false;
  if (absl::Status s = ReadInt(config, keys, path, value, &found); !s.ok()) return s;
  if (!found) {
    std::vector<std::string> names(keys.begin(), keys.end());
    return absl::InvalidArgumentError(absl::StrCat(path, ": missing field \"", absl::StrJoin(names, "\" or \""), "\""));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> ReadBool(const json& config, const char* key, absl::string_view path, bool default_value) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return default_value;
  if (!it->is_boolean()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": field \"", key, "\" must be true or false, got ", it->dump()));
  }
  return it->get<bool>();
}

bool Present(const json& config, const char* key) {
  auto it = config.find(key);
  return it != config.end() && !it->is_null();
}

}  // namespace infergrid::hf_config_fields
