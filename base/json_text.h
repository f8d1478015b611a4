// JSON parsing with errors as "path:LINE:COL: what", for config.json and safetensors headers.
#ifndef INFERGRID_BASE_JSON_TEXT_H_
#define INFERGRID_BASE_JSON_TEXT_H_

#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace infergrid {

// Parses one JSON document; never throws.
absl::StatusOr<nlohmann::json> ParseJson(absl::string_view text, absl::string_view path);

}  // namespace infergrid

#endif  // INFERGRID_BASE_JSON_TEXT_H_
