// The catalog's ModelSpec of a name, for tests: a failed lookup fails the running test and
// returns an empty spec (so the test's own checks fail too, instead of crashing); the same model
// without its attention layout (every layer full attention).
#ifndef INFERGRID_TESTS_CATALOG_MODEL_H_
#define INFERGRID_TESTS_CATALOG_MODEL_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "models/model_catalog.h"

namespace infergrid::testing {

inline ModelSpec CatalogModel(absl::string_view name) {
  absl::StatusOr<ModelSpec> spec = FindCatalogModel(name);
  EXPECT_TRUE(spec.ok()) << spec.status();
  return spec.ok() ? *spec : ModelSpec();
}

// The same model with every layer full attention.
inline ModelSpec WithoutWindows(ModelSpec spec) {
  spec.clear_attention();
  return spec;
}

}  // namespace infergrid::testing

#endif  // INFERGRID_TESTS_CATALOG_MODEL_H_
