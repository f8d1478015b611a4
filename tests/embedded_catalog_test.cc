// base/embedded_catalog.h: the one catalog loader.

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "base/embedded_catalog.h"
#include "base/textproto.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "models/hf_config.h"
#include "models/kv_cache_size.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "models/pass_accounting.h"
#include "models/safetensors_header.h"
#include "tests/catalog_model.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// The one catalog loader: entries in file order with their paths; a file that does not parse,
// or that its catalog's validator refuses, is a build defect that stops the program naming it.
TEST(EmbeddedCatalog, LoadsInFileOrderAndStopsOnABrokenEntry) {
  const ModelSpec llama = *ResolveModel("llama-3-8b");
  const std::string text = llama.DebugString();
  const EmbeddedFile good[] = {{"catalog/b.textproto", text}, {"catalog/a.textproto", text}};
  const std::vector<CatalogEntry<ModelSpec>> entries =
      LoadEmbeddedCatalog<ModelSpec>(good, "catalog", ValidateModelSpec);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].path, "catalog/b.textproto");
  EXPECT_EQ(entries[1].path, "catalog/a.textproto");
  EXPECT_EQ(entries[1].message.num_layers(), 32);

  const EmbeddedFile unparsable[] = {{"catalog/broken.textproto", "name: \"x\"\nnum_layers: many\n"}};
  EXPECT_DEATH(LoadEmbeddedCatalog<ModelSpec>(unparsable, "catalog", ValidateModelSpec),
               "infergrid: internal catalog error: catalog/broken.textproto:2");
  ModelSpec no_layers = llama;
  no_layers.set_num_layers(0);
  const std::string invalid_text = no_layers.DebugString();
  const EmbeddedFile invalid[] = {{"catalog/invalid.textproto", invalid_text}};
  EXPECT_DEATH(LoadEmbeddedCatalog<ModelSpec>(invalid, "model", ValidateModelSpec),
               "infergrid: internal model error: catalog/invalid.textproto");
  // Without a validator the parse is the only check.
  EXPECT_EQ(LoadEmbeddedCatalog<ModelSpec>(invalid, "model", NoCatalogCheck<ModelSpec>).size(), 1u);
}

}  // namespace
}  // namespace infergrid
