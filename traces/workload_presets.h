// The named workload presets (traces/presets/*.textproto, compiled into the binary): azure-conv,
// azure-code, mooncake-conv, sharegpt, arxiv, each fitted to the trace of the same name in
// ../shared/data/traces by `infergrid trace fit`.
#ifndef INFERGRID_TRACES_WORKLOAD_PRESETS_H_
#define INFERGRID_TRACES_WORKLOAD_PRESETS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "traces/workload_preset.pb.h"

namespace infergrid {

std::vector<std::string> WorkloadPresetNames();

// A preset by name, or read from a WorkloadPreset .textproto path.
absl::StatusOr<WorkloadPreset> ResolveWorkloadPreset(absl::string_view name_or_path);

}  // namespace infergrid

#endif  // INFERGRID_TRACES_WORKLOAD_PRESETS_H_
