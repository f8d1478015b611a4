#include "calibration/profile_catalog.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "base/embedded_catalog.h"
#include "base/atomic_file.h"
#include "base/embedded_file.h"
#include "base/textproto.h"
#include "calibration/calibration_checks.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "hardware/gpu_catalog.h"

namespace infergrid {
namespace calibration_profiles {
absl::Span<const EmbeddedFile> EmbeddedFiles();
}  // namespace calibration_profiles

namespace {

struct Bundled {
  std::string path;
  Calibration profile;
};

const std::map<std::string, Bundled>& BundledProfiles() {
  static const auto* catalog = [] {
    auto* profiles = new std::map<std::string, Bundled>;
    for (auto& entry : LoadEmbeddedCatalog<Calibration>(calibration_profiles::EmbeddedFiles(), "calibration profile",
                                                        NoCatalogCheck<Calibration>)) {
      const std::string name = entry.message.gpu();
      (*profiles)[name] = Bundled{std::move(entry.path), std::move(entry.message)};
    }
    return profiles;
  }();
  return *catalog;
}

absl::Status Check(const GpuSpec& gpu, const Calibration& profile, absl::string_view where) {
  if (profile.gpu() != gpu.name()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": profile is for GPU '", profile.gpu(), "', not '", gpu.name(), "'"));
  }
  return ValidateCalibration(profile, gpu, where);
}

// A bundled profile measured the catalog's GPU of that name: a spec file that keeps the name
// but changes a number is another GPU, and pricing it with the measured profile would ignore
// the change. NotFound (so `auto` falls back to the roofline model and says why).
absl::Status SameAsCatalog(const GpuSpec& gpu) {
  absl::StatusOr<GpuSpec> catalog = ResolveGpu(gpu.name());
  if (!catalog.ok()) return absl::OkStatus();
  std::string differences;
  google::protobuf::util::MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&differences);
  if (differencer.Compare(*catalog, gpu)) return absl::OkStatus();
  std::string first(absl::StripAsciiWhitespace(differences.substr(0, differences.find('\n'))));
  return absl::NotFoundError(absl::StrCat(
      "the GPU spec named '", gpu.name(), "' differs from the catalog's (", first,
      "): the bundled calibration measured the catalog GPU, not this one; give a profile with --calibration=FILE "
      "(infergrid calibrate extrapolate) or price it with --cost-model=roofline"));
}

}  // namespace

ResourceCalibration ResourcesOf(const Calibration& calibration) {
  ResourceCalibration resources;
  resources.set_gpu(calibration.gpu());
  *resources.mutable_gemm() = calibration.gemm();
  *resources.mutable_hbm() = calibration.hbm();
  *resources.mutable_l2() = calibration.l2();
  resources.set_l2_usable_fraction(calibration.l2_usable_fraction());
  *resources.mutable_kernel_classes() = calibration.kernel_classes();
  *resources.mutable_launch() = calibration.launch();
  *resources.mutable_collectives() = calibration.collectives();
  return resources;
}

std::vector<std::string> BundledProfileNames() {
  std::vector<std::string> names;
  for (const auto& [name, bundled] : BundledProfiles()) names.push_back(name);
  return names;
}

absl::StatusOr<Calibration> ResolveCalibration(const GpuSpec& gpu, absl::string_view path) {
  if (path.empty()) {
    auto it = BundledProfiles().find(gpu.name());
    if (it == BundledProfiles().end()) {
      return absl::NotFoundError(absl::StrCat("no calibration profile for GPU '", gpu.name(),
                                              "' (bundled: ", absl::StrJoin(BundledProfileNames(), ", "),
                                              "); extrapolate one with: infergrid calibrate extrapolate "
                                              "--profile=calibration/profiles/h100-sxm.textproto --gpu=",
                                              gpu.name(), " --out=FILE, then pass --calibration=FILE"));
    }
    if (absl::Status s = SameAsCatalog(gpu); !s.ok()) return s;
    if (absl::Status s = Check(gpu, it->second.profile, it->second.path); !s.ok()) return s;
    return it->second.profile;
  }
  Calibration profile;
  const std::string file(path);
  if (absl::Status s = ReadTextProtoFile(file, &profile); !s.ok()) return s;
  if (absl::Status s = Check(gpu, profile, file); !s.ok()) return s;
  return profile;
}

std::string CalibrationToText(const Calibration& calibration) {
  std::string body;
  google::protobuf::TextFormat::PrintToString(calibration, &body);
  return absl::StrCat("# proto-file: calibration/calibration.proto\n", "# proto-message: infergrid.Calibration\n",
                      "# Generated; regenerate with: ", calibration.provenance().command(), "\n", body);
}

absl::Status WriteCalibrationFile(const std::string& path, const Calibration& calibration) {
  return WriteFileAtomically(path, CalibrationToText(calibration));
}

std::string CalibrationLabel(const Calibration& calibration) {
  if (calibration.extrapolated()) {
    return absl::StrCat(calibration.gpu(), " (extrapolated from ", calibration.extrapolated_from(), " by ",
                        calibration.extrapolation_method(), ")");
  }
  return absl::StrCat(calibration.gpu(), " (measured)");
}

}  // namespace infergrid
