// Helpers shared by the output files' test files (the sim_engine_test binary): the sorted names in
// a folder, and a file written with given text.
#ifndef INFERGRID_TESTS_OUTPUT_FILES_HELPERS_H_
#define INFERGRID_TESTS_OUTPUT_FILES_HELPERS_H_

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace infergrid {

inline std::vector<std::string> Names(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const std::filesystem::directory_entry& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

inline void Write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace infergrid

#endif  // INFERGRID_TESTS_OUTPUT_FILES_HELPERS_H_
