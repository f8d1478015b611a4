#include "traces/workload_presets.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/embedded_catalog.h"
#include "base/embedded_file.h"
#include "base/textproto.h"

namespace infergrid::workload_presets {
absl::Span<const EmbeddedFile> EmbeddedFiles();
}  // namespace infergrid::workload_presets

namespace infergrid {
namespace {

const std::vector<WorkloadPreset>& Presets() {
  static const std::vector<WorkloadPreset>* presets = [] {
    auto* all = new std::vector<WorkloadPreset>;
    for (auto& entry : LoadEmbeddedCatalog<WorkloadPreset>(workload_presets::EmbeddedFiles(), "preset",
                                                           NoCatalogCheck<WorkloadPreset>)) {
      all->push_back(std::move(entry.message));
    }
    return all;
  }();
  return *presets;
}

}  // namespace

std::vector<std::string> WorkloadPresetNames() {
  std::vector<std::string> names;
  for (const WorkloadPreset& p : Presets()) names.push_back(p.name());
  return names;
}

absl::StatusOr<WorkloadPreset> ResolveWorkloadPreset(absl::string_view name_or_path) {
  for (const WorkloadPreset& p : Presets()) {
    if (p.name() == name_or_path) return p;
  }
  if (absl::EndsWith(name_or_path, ".textproto") || absl::StrContains(name_or_path, "/")) {
    WorkloadPreset preset;
    if (absl::Status s = ReadTextProtoFile(std::string(name_or_path), &preset); !s.ok()) return s;
    return preset;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown workload preset '", name_or_path, "': expected one of ",
                                                 absl::StrJoin(WorkloadPresetNames(), ", "),
                                                 " or a WorkloadPreset .textproto path"));
}

}  // namespace infergrid
