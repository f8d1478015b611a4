// Helpers for tests that write their own small input files.
#ifndef INFERGRID_TESTS_TEST_FILES_H_
#define INFERGRID_TESTS_TEST_FILES_H_

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include "absl/strings/string_view.h"

#include "gtest/gtest.h"

namespace infergrid::testing {

// A fresh folder under the test temp dir, named after the running test.
inline std::filesystem::path TestDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string WriteFile(const std::filesystem::path& path, absl::string_view contents) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  return path.string();
}

}  // namespace infergrid::testing

#endif  // INFERGRID_TESTS_TEST_FILES_H_
