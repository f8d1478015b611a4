#include "hardware/gpu_catalog.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "base/embedded_catalog.h"
#include "base/embedded_file.h"
#include "base/proto_numbers.h"
#include "base/textproto.h"

namespace infergrid::gpu_catalog {
absl::Span<const EmbeddedFile> EmbeddedFiles();
}  // namespace infergrid::gpu_catalog

namespace infergrid {
namespace {

const std::vector<GpuSpec>& Catalog() {
  static const std::vector<GpuSpec>* catalog = [] {
    auto* gpus = new std::vector<GpuSpec>;
    for (auto& entry : LoadEmbeddedCatalog<GpuSpec>(gpu_catalog::EmbeddedFiles(), "catalog", ValidateGpuSpec)) {
      gpus->push_back(std::move(entry.message));
    }
    std::sort(gpus->begin(), gpus->end(), [](const GpuSpec& a, const GpuSpec& b) { return a.name() < b.name(); });
    return gpus;
  }();
  return *catalog;
}

}  // namespace

std::vector<std::string> GpuCatalogNames() {
  std::vector<std::string> names;
  for (const GpuSpec& spec : Catalog()) names.push_back(spec.name());
  return names;
}

absl::StatusOr<GpuSpec> ResolveGpu(absl::string_view name_or_path) {
  const std::string key = absl::AsciiStrToLower(absl::StripAsciiWhitespace(name_or_path));
  for (const GpuSpec& spec : Catalog()) {
    if (spec.name() == key) return spec;
  }
  // The name the device reports (nvidia-smi, torch.cuda.get_device_name), with or without
  // "NVIDIA ": one model, one memory size, so one entry.
  for (const GpuSpec& spec : Catalog()) {
    const std::string reported = absl::AsciiStrToLower(spec.reported_name());
    if (!reported.empty() && (reported == key || reported == absl::StrCat("nvidia ", key))) return spec;
  }
  // The family alone ("H100", "a100"): its one entry, or the one marked family_default (the
  // SXM board) when the catalog holds several.
  const GpuSpec* family = nullptr;
  const GpuSpec* family_default = nullptr;
  int members = 0;
  for (const GpuSpec& spec : Catalog()) {
    if (spec.name() == key || absl::StartsWith(spec.name(), absl::StrCat(key, "-"))) {
      family = &spec;
      ++members;
      if (spec.family_default()) family_default = &spec;
    }
  }
  if (members == 1) return *family;
  if (members > 1 && family_default != nullptr) return *family_default;
  const std::string path(name_or_path);
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    return absl::NotFoundError(absl::StrCat("unknown GPU '", name_or_path,
                                            "' (catalog: ", absl::StrJoin(GpuCatalogNames(), ", "),
                                            "; or give a path to a GpuSpec .textproto)"));
  }
  GpuSpec spec;
  if (absl::Status status = ReadTextProtoFile(path, &spec); !status.ok()) return status;
  if (absl::Status status = ValidateGpuSpec(spec, path); !status.ok()) return status;
  return spec;
}

absl::Status ValidateGpuSpec(const GpuSpec& spec, absl::string_view where) {
  // Every number, nested messages included: finite, not negative, at most 1e21; a rate or clock
  // (..._flops, ..._ops, ..._bytes_per_s, ..._hz) 0 (unknown) or at least 1,000 a second, so
  // that no work item reaches the event engine with an infinite or unbounded duration.
  NumberRule rule;
  rule.is_rate = [](absl::string_view f) {
    return absl::EndsWith(f, "flops") || absl::EndsWith(f, "_ops") || absl::EndsWith(f, "bytes_per_s") ||
           absl::EndsWith(f, "_hz");
  };
  if (absl::Status s = CheckMessageNumbers(spec, where, rule); !s.ok()) return s;
  const std::pair<bool, absl::string_view> checks[] = {
      {!spec.name().empty(), "name must be set"},
      {spec.reported_total_mib() > 0 && spec.reported_total_mib() < (int64_t{1} << 30),
       "reported_total_mib must be positive (read it from nvidia-smi, not the label)"},
      {spec.tensor_peaks().fp16_flops() > 0, "tensor_peaks.fp16_flops must be positive"},
      {spec.hbm_bytes_per_s() > 0, "hbm_bytes_per_s must be positive"},
      {spec.l2_bytes() >= 0 && spec.sm_count() >= 0, "l2_bytes and sm_count must not be negative"},
      {spec.framework_total_gib() >= 0, "framework_total_gib must not be negative"},
      {spec.gpus_per_node() >= 0 && spec.gpus_per_node() <= 4096, "gpus_per_node must be in 0..4096"},
      {spec.nvlink_domain_gpus() == 0 ||
           (spec.nvlink_domain_gpus() <= 4096 && spec.nvlink_domain_gpus() % GpusPerNode(spec) == 0),
       "nvlink_domain_gpus must be 0 or a multiple of gpus_per_node up to 4096"},
      {spec.tensor_peaks().fp4_flops() >= 0, "tensor_peaks.fp4_flops must not be negative"},
  };
  for (const auto& [ok, what] : checks) {
    if (!ok) return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
  }
  return absl::OkStatus();
}

}  // namespace infergrid
