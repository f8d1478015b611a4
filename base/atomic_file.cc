#include "base/atomic_file.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace infergrid {

absl::Status WriteFileAtomically(const std::string& path, absl::string_view text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return absl::InvalidArgumentError(absl::StrCat(path, ": cannot write"));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) return absl::InvalidArgumentError(absl::StrCat(path, ": write failed"));
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    return absl::InvalidArgumentError(absl::StrCat(path, ": cannot rename the written file"));
  }
  return absl::OkStatus();
}

}  // namespace infergrid
