// base/textproto.h: errors name the file, line and column.

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

TEST(TextProto, ErrorsNameFileLineAndColumn) {
  ModelSpec spec;
  absl::Status status = ParseTextProto("name: \"x\"\nnum_layers: 3\nbogus: 1\n", "m.textproto", &spec);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("m.textproto:3:"));
  EXPECT_THAT(status.message(), HasSubstr("bogus"));
}

}  // namespace
}  // namespace infergrid
