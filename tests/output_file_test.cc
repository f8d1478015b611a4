// base/output_file.h: how an output file reaches its path: a temporary named for the run beside it.

#include <unistd.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "base/output_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST(OutputFiles, TemporariesAreUniqueToTheRun) {
  const fs::path dir = testing::TestDir();
  absl::StatusOr<OutputPlacement> a = PlaceOutput((dir / "summary.json").string());
  absl::StatusOr<OutputPlacement> b = PlaceOutput((dir / "summary.json").string());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->temporary, b->temporary);  // the random part
  EXPECT_THAT(fs::path(a->temporary).filename().string(), HasSubstr(absl::StrCat(".", getpid(), ".")));
  EXPECT_EQ(fs::path(a->temporary).parent_path(), dir);
  DiscardOutput(*a);
  DiscardOutput(*b);
}

}  // namespace
}  // namespace infergrid
