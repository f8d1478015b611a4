// sim/app/output/output_dir.h: a run's files committed all or nothing: a failed commit leaves the
// previous run whole.

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/app/output/output_dir.h"
#include "tests/command_runner.h"
#include "tests/output_files_helpers.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::ReadAll;

TEST(OutputFiles, AFailedCommitLeavesThePreviousRunWhole) {
  const fs::path dir = testing::TestDir();
  Write(dir / "summary.json", "old summary");
  Write(dir / "requests.csv", "old requests");
  {
    absl::StatusOr<OutputDir> out = OutputDir::Open(dir.string());
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_TRUE(out->WriteFile("summary.json", "new summary").ok());
    ASSERT_TRUE(out->WriteFile("timeline.pftrace", "new timeline").ok());
    // The last rename (alphabetical order: summary.json, then timeline.pftrace) fails: a folder
    // with a file in it took the name after the run placed it.
    fs::create_directories(dir / "timeline.pftrace" / "x");
    const absl::Status commit = out->Commit();
    EXPECT_FALSE(commit.ok());
    EXPECT_THAT(std::string(commit.message()), HasSubstr("timeline.pftrace: cannot rename into place"));
  }
  EXPECT_EQ(ReadAll(dir / "summary.json"), "old summary");
  EXPECT_EQ(ReadAll(dir / "requests.csv"), "old requests");  // set aside as stale, then put back
  EXPECT_EQ(Names(dir), (std::vector<std::string>{"requests.csv", "summary.json", "timeline.pftrace"}));
}

}  // namespace
}  // namespace infergrid
