// Runs the built `infergrid` binary (INFERGRID_BIN, compiled in by CMake) and captures its
// stdout, stderr and exit code, so tests check the command exactly as a user runs it.
#ifndef INFERGRID_TESTS_COMMAND_RUNNER_H_
#define INFERGRID_TESTS_COMMAND_RUNNER_H_

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace infergrid::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// `args` is appended to the binary path as is (shell syntax).
inline CommandResult RunInfergrid(const std::string& args) {
  const char* bin = INFERGRID_BIN;
  // One folder per process and call: ctest runs tests in parallel processes.
  static int calls = 0;
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    ("infergrid_run." + std::to_string(getpid()) + "." + std::to_string(++calls));
  std::filesystem::create_directories(dir);
  const std::filesystem::path out = dir / "stdout";
  const std::filesystem::path err = dir / "stderr";
  const std::string command =
      std::string(bin) + " " + args + " >" + out.string() + " 2>" + err.string() + " </dev/null";
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = ReadAll(out);
  result.err = ReadAll(err);
  return result;
}

// One command that must fail: its exit code, a piece of the one line it writes on stderr.
struct CliErrorCase {
  std::string args;
  int exit_code;
  std::string message;
};

// The project's rule for bad input: the expected exit code, exactly one line on stderr that
// contains the message, and nothing on stdout.
inline void ExpectOneLineError(const CliErrorCase& c) {
  const CommandResult r = RunInfergrid(c.args);
  EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.err;
  EXPECT_THAT(r.err, ::testing::HasSubstr(c.message)) << c.args;
  EXPECT_EQ(r.out, "") << c.args;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.args << "\n" << r.err;
}

inline std::string SourcePath(const std::string& relative) {
  return std::string(INFERGRID_SOURCE_DIR) + "/" + relative;
}

}  // namespace infergrid::testing

#endif  // INFERGRID_TESTS_COMMAND_RUNNER_H_
