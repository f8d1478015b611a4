#include "calibration/host_profile.h"

#include <cstdio>
#include <cstdlib>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "base/embedded_catalog.h"
#include "base/atomic_file.h"
#include "base/embedded_file.h"
#include "base/textproto.h"
#include "google/protobuf/text_format.h"

namespace infergrid {
namespace host_profiles {
absl::Span<const EmbeddedFile> EmbeddedFiles();
}  // namespace host_profiles

namespace {

const std::map<std::string, HostCalibration>& HostProfiles() {
  static const auto* catalog = [] {
    auto* profiles = new std::map<std::string, HostCalibration>;
    for (auto& entry : LoadEmbeddedCatalog<HostCalibration>(host_profiles::EmbeddedFiles(), "host calibration",
                                                            NoCatalogCheck<HostCalibration>)) {
      const std::string name = entry.message.name();
      (*profiles)[name] = std::move(entry.message);
    }
    return profiles;
  }();
  return *catalog;
}

}  // namespace

std::vector<std::string> BundledHostCalibrationNames() {
  std::vector<std::string> names;
  for (const auto& [name, profile] : HostProfiles()) names.push_back(name);
  return names;
}

absl::StatusOr<HostCalibration> ResolveHostCalibration(absl::string_view name) {
  auto it = HostProfiles().find(std::string(name));
  if (it == HostProfiles().end()) {
    return absl::NotFoundError(absl::StrCat("no host calibration '", name,
                                            "' (bundled: ", absl::StrJoin(BundledHostCalibrationNames(), ", "), ")"));
  }
  return it->second;
}

const HostPhase* FindHostPhase(const HostCalibration& calibration, absl::string_view name) {
  for (const HostPhase& phase : calibration.phases()) {
    if (phase.name() == name) return &phase;
  }
  return nullptr;
}

absl::Status WriteHostCalibrationFile(const std::string& path, const HostCalibration& calibration) {
  std::string body;
  google::protobuf::TextFormat::PrintToString(calibration, &body);
  return WriteFileAtomically(
      path,
      absl::StrCat("# proto-file: calibration/host_calibration.proto\n", "# proto-message: infergrid.HostCalibration\n",
                   "# Generated; regenerate with: ", calibration.provenance().command(), "\n", body));
}

}  // namespace infergrid
