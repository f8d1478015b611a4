// The built-in GPU catalog (hardware/catalog/*.textproto, compiled in) and resolution of a
// user's --gpu value (a catalog or device name, or a GpuSpec .textproto path) into a validated
// GpuSpec.
#ifndef INFERGRID_HARDWARE_GPU_CATALOG_H_
#define INFERGRID_HARDWARE_GPU_CATALOG_H_

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hardware/hardware_spec.pb.h"

namespace infergrid {

std::vector<std::string> GpuCatalogNames();
// A catalog entry by its name ("h100-sxm"), by the name the device reports ("NVIDIA H100 80GB
// HBM3", "NVIDIA H200", with or without "NVIDIA "), or by its family alone ("H100", "h200"):
// the family's one entry, or the one marked family_default (h100-sxm, a100-80gb) where the
// catalog holds several; all case-insensitive. Otherwise a GpuSpec
// .textproto path; otherwise NotFound listing the names.
absl::StatusOr<GpuSpec> ResolveGpu(absl::string_view name_or_path);
absl::Status ValidateGpuSpec(const GpuSpec& spec, absl::string_view where);

// Device memory as the device reports it (nvidia-smi memory.total), in bytes.
inline double ReportedTotalBytes(const GpuSpec& spec) {
  return static_cast<double>(spec.reported_total_mib()) * 1048576.0;
}

// GPUs per server: the spec's gpus_per_node, or 8 (an HGX/DGX board) when it gives none.
inline int GpusPerNode(const GpuSpec& spec) { return spec.gpus_per_node() > 0 ? spec.gpus_per_node() : 8; }

// GPUs of one NVLink domain: the spec's nvlink_domain_gpus, or one node when it gives none or
// the GPU has no NVLink (PCIe cards talk over PCIe inside their server only).
inline int NvlinkDomainGpus(const GpuSpec& spec) {
  if (spec.nvlink_bytes_per_s() <= 0 || spec.nvlink_domain_gpus() <= 0) return GpusPerNode(spec);
  return spec.nvlink_domain_gpus();
}

}  // namespace infergrid

#endif  // INFERGRID_HARDWARE_GPU_CATALOG_H_
