// hardware/gpu_catalog.h: capacities as the device reports them, names and families, bad files,
// the datasheet peaks of the newer entries, NVLink domains of whole nodes.

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hardware/gpu_catalog.h"
#include "hardware/lower_bounds.h"
#include "hardware/topology.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

TEST(GpuCatalog, CapacityIsWhatTheDeviceReportsNotTheLabel) {
  absl::StatusOr<GpuSpec> h100 = ResolveGpu("h100-sxm");
  ASSERT_TRUE(h100.ok()) << h100.status();
  EXPECT_EQ(h100->reported_total_mib(), 81559);
  const double bytes = ReportedTotalBytes(*h100);
  EXPECT_NEAR(bytes / 1073741824.0, 79.65, 0.005);  // GiB
  EXPECT_NEAR(bytes / 1e9, 85.52, 0.005);  // GB
  EXPECT_GT(bytes, 80e9);  // more than the "80 GB" on the label, which is 74.5 GiB
  absl::StatusOr<GpuSpec> h200 = ResolveGpu("H200-SXM");
  ASSERT_TRUE(h200.ok());
  EXPECT_EQ(h200->reported_total_mib(), 143771);
  EXPECT_TRUE(ResolveGpu("a100-80gb").ok());
}

// What users type for --gpu: the name the device reports (nvidia-smi, torch), with or without
// "NVIDIA ", or the family alone where the catalog holds one entry of it.
TEST(GpuCatalog, DeviceAndFamilyNamesResolveToTheirEntry) {
  const std::pair<const char*, const char*> cases[] = {{"NVIDIA H100 80GB HBM3", "h100-sxm"},
                                                       {"H100 80GB HBM3", "h100-sxm"},
                                                       {"H100", "h100-sxm"},
                                                       {"nvidia h200", "h200-sxm"},
                                                       {"h200", "h200-sxm"},
                                                       {"NVIDIA A100-SXM4-80GB", "a100-80gb"},
                                                       {"A100", "a100-80gb"},
                                                       {" L40S ", "l40s"},
                                                       {"H20", "h20"},
                                                       {"NVIDIA H100 PCIe", "h100-pcie"},
                                                       {"H100 NVL", "h100-nvl"},
                                                       {"NVIDIA A100-SXM4-40GB", "a100-40gb"},
                                                       {"NVIDIA L4", "l4"},
                                                       {"l4", "l4"}};
  for (const auto& [given, entry] : cases) {
    absl::StatusOr<GpuSpec> gpu = ResolveGpu(given);
    ASSERT_TRUE(gpu.ok()) << given << ": " << gpu.status();
    EXPECT_EQ(gpu->name(), entry) << given;
  }
  // A variant the catalog lacks is not guessed.
  for (const char* other : {"H100 SXM5 64GB", "h1", "A100-PCIE-40GB", "NVIDIA L40"}) {
    EXPECT_FALSE(ResolveGpu(other).ok()) << other;
  }
}

// A family name with several entries ("H100": SXM, PCIe, NVL) names exactly one of them, the
// entry marked family_default; every family of several entries has exactly one.
TEST(GpuCatalog, EveryFamilyOfSeveralEntriesHasOneDefault) {
  std::map<std::string, std::vector<GpuSpec>> families;
  for (const std::string& name : GpuCatalogNames()) {
    absl::StatusOr<GpuSpec> gpu = ResolveGpu(name);
    ASSERT_TRUE(gpu.ok()) << name;
    families[name.substr(0, name.find('-'))].push_back(*gpu);
  }
  EXPECT_GE(families["h100"].size(), 3u);
  for (const auto& [family, members] : families) {
    const auto defaults =
        std::count_if(members.begin(), members.end(), [](const GpuSpec& g) { return g.family_default(); });
    EXPECT_EQ(defaults, members.size() > 1 ? 1 : 0) << family;
    absl::StatusOr<GpuSpec> resolved = ResolveGpu(family);
    ASSERT_TRUE(resolved.ok()) << family << ": " << resolved.status();
    EXPECT_TRUE(members.size() == 1 || resolved->family_default()) << family;
  }
}

TEST(GpuCatalog, UnknownNameAndBadFiles) {
  absl::StatusOr<GpuSpec> unknown = ResolveGpu("h900");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown GPU 'h900'"));
  EXPECT_THAT(unknown.status().message(), HasSubstr("h100-sxm"));
  const std::string path =
      testing::WriteFile(testing::TestDir() / "g.textproto", "name: \"g\"\nreported_total_mib: 0\n");
  absl::StatusOr<GpuSpec> bad = ResolveGpu(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("reported_total_mib must be positive"));
}

// Every number is checked where the spec is read, nested ones included: an infinite, NaN or
// vanishing rate never reaches the event engine (it aborts on infinite work).
TEST(GpuCatalog, NonFiniteAndVanishingRatesAreRefusedByName) {
  const std::string base = "name: \"g\"\nreported_total_mib: 81559\nhbm_bytes_per_s: 3.35e12\n";
  const struct {
    const char* line;
    const char* expected;
  } cases[] = {
      {"tensor_peaks { fp16_flops: inf }", "tensor_peaks.fp16_flops is inf"},
      {"tensor_peaks { fp16_flops: 1e-300 }", "tensor_peaks.fp16_flops is 1e-300"},
      {"tensor_peaks { fp16_flops: 9.9e14 fp8_flops: nan }", "tensor_peaks.fp8_flops is nan"},
      {"tensor_peaks { fp16_flops: 9.9e14 } nvlink_bytes_per_s: -1", "nvlink_bytes_per_s is -1"},
      {"tensor_peaks { fp16_flops: 9.9e14 } price_usd_per_gpu_hour: 1e300", "price_usd_per_gpu_hour is 1e+300"},
  };
  for (const auto& c : cases) {
    const std::string path = testing::WriteFile(testing::TestDir() / "g.textproto", absl::StrCat(base, c.line, "\n"));
    absl::StatusOr<GpuSpec> bad = ResolveGpu(path);
    ASSERT_FALSE(bad.ok()) << c.line;
    EXPECT_THAT(bad.status().message(), HasSubstr(c.expected)) << c.line;
    EXPECT_THAT(bad.status().message(), HasSubstr(path)) << c.line;
  }
  const std::string good = testing::WriteFile(testing::TestDir() / "g.textproto",
                                              absl::StrCat(base, "tensor_peaks { fp16_flops: 9.9e14 }\n"));
  EXPECT_TRUE(ResolveGpu(good).ok());
}

// The newest GPUs: what the device reports, and FP4 tensor cores on Blackwell only.
TEST(GpuCatalog, BlackwellAndH20EntriesWithTheirDatasheetPeaks) {
  absl::StatusOr<GpuSpec> b200 = ResolveGpu("b200");
  absl::StatusOr<GpuSpec> gb200 = ResolveGpu("gb200");
  absl::StatusOr<GpuSpec> h20 = ResolveGpu("h20");
  absl::StatusOr<GpuSpec> h100 = ResolveGpu("h100-sxm");
  ASSERT_TRUE(b200.ok() && gb200.ok() && h20.ok() && h100.ok());
  EXPECT_EQ(b200->reported_total_mib(), 183359);
  EXPECT_DOUBLE_EQ(b200->framework_total_gib(), 178.36);
  EXPECT_EQ(h20->reported_total_mib(), 97871);
  EXPECT_EQ(gb200->reported_total_mib(), 189471);
  // Dense peaks: half the sparsity figures.
  EXPECT_DOUBLE_EQ(PeakTensorFlops(*b200, DType::BF16), 2.25e15);
  EXPECT_DOUBLE_EQ(PeakTensorFlops(*b200, DType::FP4_E2M1), 9e15);
  EXPECT_DOUBLE_EQ(PeakTensorFlops(*gb200, DType::FP4_E2M1), 10e15);
  EXPECT_DOUBLE_EQ(PeakTensorFlops(*h20, DType::FP8_E4M3), 296e12);
  EXPECT_DOUBLE_EQ(PeakTensorFlops(*h20, DType::FP4_E2M1), 0);
  EXPECT_DOUBLE_EQ(PeakTensorFlops(*h100, DType::FP4_E2M1), 0);
  // NVLink domains: a GB200 NVL72 rack of 4-GPU trays; an HGX board is its own domain.
  EXPECT_EQ(GpusPerNode(*gb200), 4);
  EXPECT_EQ(NvlinkDomainGpus(*gb200), 72);
  EXPECT_EQ(NvlinkDomainGpus(*b200), 8);
  EXPECT_EQ(NvlinkDomainGpus(*h100), 8);
  EXPECT_EQ(NvlinkDomainGpus(*ResolveGpu("l40s")), 8);  // no NVLink: one server
}

TEST(GpuCatalog, NvlinkDomainMustHoldWholeNodes) {
  const std::string path =
      testing::WriteFile(testing::TestDir() / "d.textproto",
                         "name: \"d\" reported_total_mib: 1000 tensor_peaks { fp16_flops: 1e12 } hbm_bytes_per_s: 1e12 "
                         "nvlink_bytes_per_s: 1e11 gpus_per_node: 4 nvlink_domain_gpus: 10\n");
  absl::StatusOr<GpuSpec> bad = ResolveGpu(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("nvlink_domain_gpus must be 0 or a multiple of gpus_per_node"));
}

}  // namespace
}  // namespace infergrid
