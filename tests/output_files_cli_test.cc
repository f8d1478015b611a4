// The commands' output files are written safely, as users run them: a device or a symbolic link
// given as an output is never replaced, one run per --out folder at a time, a rerun leaves no file
// of the previous run, SIGINT/SIGTERM leave nothing behind. Temporaries unique to the run:
// output_file_test.cc; a failed commit: output_dir_test.cc.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/output_file.h"
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
using testing::RunInfergrid;

const char kOutputRun[] = "simulate --max-requests=30 --rate=6 --record-wall-time=false --quiet";

TEST(OutputFiles, DevicesAreWrittenThroughNeverReplaced) {
  // Before anything is written: the path must be one the code writes through, not renames over.
  for (const char* device : {"/dev/null", "/dev/full"}) {
    ASSERT_TRUE(fs::is_character_file(device)) << device;
    absl::StatusOr<OutputPlacement> placement = PlaceOutput(device);
    ASSERT_TRUE(placement.ok()) << placement.status();
    ASSERT_TRUE(placement->write_through) << device;
    EXPECT_EQ(placement->target, device);
    EXPECT_EQ(fs::path(placement->temporary).parent_path(), fs::temp_directory_path());
    DiscardOutput(*placement);
  }
  const testing::CommandResult null_run = RunInfergrid(absl::StrCat(kOutputRun, " --report=/dev/null"));
  EXPECT_EQ(null_run.exit_code, 0) << null_run.err;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  testing::ExpectOneLineError(
      {absl::StrCat(kOutputRun, " --report=/dev/full"), 1, "/dev/full: write failed: No space left on device"});
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  testing::ExpectOneLineError(
      {absl::StrCat(kOutputRun, " --out=/dev/null"), 1, "--out=/dev/null: exists and is not a directory"});
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  // The trace writer (trace convert --output) and whole-file writes (trace fit --output) too.
  const fs::path trace = testing::TestDir() / "t.csv";
  Write(trace, "arrived_at,num_prefill_tokens,num_decode_tokens\n1,2,3\n2,3,4\n");
  const testing::CommandResult converted =
      RunInfergrid(absl::StrCat("trace convert --trace=", trace.string(), " --output=/dev/null"));
  EXPECT_EQ(converted.exit_code, 0) << converted.err;
  testing::ExpectOneLineError({absl::StrCat("trace convert --trace=", trace.string(), " --output=/dev/full"), 1,
                               "/dev/full: write failed: No space left on device"});
  testing::ExpectOneLineError({absl::StrCat("trace fit --trace=", trace.string(), " --output=/dev/full"), 1,
                               "/dev/full: write failed: No space left on device"});
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST(OutputFiles, SymbolicLinksAreFollowedAndStayLinks) {
  const fs::path dir = testing::TestDir();
  fs::create_directories(dir / "pages");
  fs::create_symlink("pages/real.html", dir / "link.html");
  Write(dir / "pages" / "real.html", "old");
  const testing::CommandResult r = RunInfergrid(absl::StrCat(kOutputRun, " --report=", (dir / "link.html").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "link.html"));
  EXPECT_EQ(fs::read_symlink(dir / "link.html"), fs::path("pages/real.html"));
  EXPECT_THAT(ReadAll(dir / "pages" / "real.html"), HasSubstr("<html"));
  EXPECT_EQ(Names(dir / "pages"), std::vector<std::string>{"real.html"});  // no temporary left
  // A dangling link creates the file it names.
  fs::create_symlink("pages/new.html", dir / "dangling.html");
  ASSERT_EQ(RunInfergrid(absl::StrCat(kOutputRun, " --report=", (dir / "dangling.html").string())).exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(dir / "dangling.html"));
  EXPECT_TRUE(fs::is_regular_file(dir / "pages" / "new.html"));
}

TEST(OutputFiles, OneRunPerFolderAtATime) {
  const fs::path dir = testing::TestDir() / "run";
  ASSERT_EQ(RunInfergrid(absl::StrCat(kOutputRun, " --out=", dir.string())).exit_code, 0);
  const std::string summary = ReadAll(dir / "summary.json");
  // Another run holds the folder's lock.
  const int fd = open((dir / OutputDir::kLockFile).c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  testing::ExpectOneLineError({absl::StrCat(kOutputRun, " --seed=2 --out=", dir.string()), 1,
                               absl::StrCat("--out=", dir.string(), ": another infergrid run is writing this folder")});
  close(fd);
  EXPECT_EQ(ReadAll(dir / "summary.json"), summary);
  // Released: the next run writes the folder, and takes its lock file away with it.
  fs::remove(dir / OutputDir::kLockFile);
  ASSERT_EQ(RunInfergrid(absl::StrCat(kOutputRun, " --seed=2 --out=", dir.string())).exit_code, 0);
  EXPECT_NE(ReadAll(dir / "summary.json"), summary);
  EXPECT_FALSE(fs::exists(dir / OutputDir::kLockFile));
}

TEST(OutputFiles, ARerunLeavesNoFileOfThePreviousRun) {
  const fs::path dir = testing::TestDir() / "run";
  ASSERT_EQ(RunInfergrid(absl::StrCat(kOutputRun, " --out=", dir.string())).exit_code, 0);
  EXPECT_EQ(Names(dir),
            (std::vector<std::string>{"iterations.csv", "requests.csv", "summary.json", "timeline.pftrace"}));
  Write(dir / "notes.txt", "the user's own");
  const testing::CommandResult r =
      RunInfergrid(absl::StrCat(kOutputRun, " --seed=2 --outputs=summary --out=", dir.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Names(dir), (std::vector<std::string>{"notes.txt", "summary.json"}));
  // So report draws this run only, never its summary beside the other run's requests.
  EXPECT_EQ(
      RunInfergrid(absl::StrCat("report ", dir.string(), " --out=", (dir.parent_path() / "r.html").string())).exit_code,
      0);
}

// Starts `args` in the background, waits until its temporaries exist, sends `signal_number`.
testing::CommandResult Interrupt(const fs::path& dir, const std::string& args, int signal_number) {
  const fs::path err = dir / "stderr";
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string command = absl::StrCat("exec ", INFERGRID_BIN, " ", args, " >/dev/null 2>", err.string());
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool started = false;
  while (!started && std::chrono::steady_clock::now() < deadline) {
    std::error_code error;
    for (const fs::directory_entry& e : fs::directory_iterator(dir / "run", error)) {
      started |= e.path().filename().string().find(".tmp.") != std::string::npos;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(started);
  kill(pid, signal_number);
  int status = 0;
  waitpid(pid, &status, 0);
  testing::CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.err = ReadAll(err);
  return result;
}

TEST(OutputFiles, AnInterruptedRunRemovesItsTemporariesAndSaysSo) {
  const fs::path dir = testing::TestDir();
  const std::string args =
      absl::StrCat("simulate --max-requests=2000000 --rate=100 --quiet --out=", (dir / "run").string());
  const testing::CommandResult interrupted = Interrupt(dir, args, SIGINT);
  EXPECT_EQ(interrupted.exit_code, 130);
  EXPECT_EQ(interrupted.err, "infergrid simulate: interrupted by SIGINT; nothing was written\n");
  EXPECT_FALSE(fs::exists(dir / "run"));  // the folder it created, empty again
  // In a folder that held a run: that run stays, no temporary beside it.
  ASSERT_EQ(RunInfergrid(absl::StrCat(kOutputRun, " --out=", (dir / "run").string())).exit_code, 0);
  const std::string summary = ReadAll(dir / "run" / "summary.json");
  const testing::CommandResult terminated = Interrupt(dir, args, SIGTERM);
  EXPECT_EQ(terminated.exit_code, 143);
  EXPECT_EQ(terminated.err, "infergrid simulate: interrupted by SIGTERM; nothing was written\n");
  EXPECT_EQ(Names(dir / "run"),
            (std::vector<std::string>{"iterations.csv", "requests.csv", "summary.json", "timeline.pftrace"}));
  EXPECT_EQ(ReadAll(dir / "run" / "summary.json"), summary);
}

}  // namespace
}  // namespace infergrid
