// The built-in model catalog (models/catalog/*.textproto, compiled into the binary) and the
// one entry point that turns a user's --model value into a validated ModelSpec.
#ifndef INFERGRID_MODELS_MODEL_CATALOG_H_
#define INFERGRID_MODELS_MODEL_CATALOG_H_

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "models/model_spec.pb.h"

namespace infergrid {

// Names of the catalog entries, sorted.
std::vector<std::string> ModelCatalogNames();

// A catalog entry by name or by Hugging Face id (case-insensitive; an id with -Instruct, -chat,
// -hf, -it or -FP8 after it names the same architecture), or NotFound listing the names.
absl::StatusOr<ModelSpec> FindCatalogModel(absl::string_view name);

// A catalog name, a Hugging Face config.json path, or a ModelSpec .textproto path.
absl::StatusOr<ModelSpec> ResolveModel(absl::string_view name_or_path);

// Checks that the architecture is self-consistent and within sane bounds; `where` names the
// source in the error ("config.json", "models/catalog/x.textproto").
absl::Status ValidateModelSpec(const ModelSpec& spec, absl::string_view where);

}  // namespace infergrid

#endif  // INFERGRID_MODELS_MODEL_CATALOG_H_
