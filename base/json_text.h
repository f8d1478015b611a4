// JSON parsing with errors as "path:LINE:COL: what", for config.json and safetensors headers.
#ifndef INFERGRID_BASE_JSON_TEXT_H_
#define INFERGRID_BASE_JSON_TEXT_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace infergrid {

// Parses one JSON document; never throws.
absl::StatusOr<nlohmann::json> ParseJson(absl::string_view text, absl::string_view path);

// "path:LINE:COL: invalid JSON: what" for a parse error `byte` bytes (1-based, as nlohmann
// counts) into `text`; `what` is nlohmann's message, its own prefix dropped.
absl::Status JsonSyntaxError(absl::string_view text, absl::string_view path, size_t byte, absl::string_view what);

}  // namespace infergrid

#endif  // INFERGRID_BASE_JSON_TEXT_H_
