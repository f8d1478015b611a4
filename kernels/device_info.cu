// Provenance: what the CUDA runtime, cuBLASLt, NCCL and (when its library loads) NVML report
// about the device. NVML is opened with dlopen so the binary links no driver library and runs
// where NVML is missing; its fields then stay empty.
#include <cublasLt.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "kernels/benchmarks.h"
#include "kernels/cuda_check.h"

#if INFERGRID_HAVE_NCCL
#include <nccl.h>
#endif

namespace infergrid::calib {
namespace {

// The few NVML entry points used, declared here (nvml.h is not needed to build).
using NvmlDevice = void*;
using NvmlInit = int (*)();
using NvmlDriverVersion = int (*)(char*, unsigned);
using NvmlHandleByPci = int (*)(const char*, NvmlDevice*);
using NvmlClockInfo = int (*)(NvmlDevice, int, unsigned*);
using NvmlPowerLimit = int (*)(NvmlDevice, unsigned*);
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlClockMem = 2;

struct Nvml {
  void* lib = nullptr;
  NvmlDriverVersion driver_version = nullptr;
  NvmlHandleByPci handle_by_pci = nullptr;
  NvmlClockInfo clock_info = nullptr;
  NvmlPowerLimit power_limit = nullptr;

  static Nvml& Get() {
    static Nvml nvml = Open();
    return nvml;
  }

  static Nvml Open() {
    Nvml n;
    n.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (n.lib == nullptr) return n;
    auto init = reinterpret_cast<NvmlInit>(dlsym(n.lib, "nvmlInit_v2"));
    n.driver_version = reinterpret_cast<NvmlDriverVersion>(dlsym(n.lib, "nvmlSystemGetDriverVersion"));
    n.handle_by_pci = reinterpret_cast<NvmlHandleByPci>(dlsym(n.lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    n.clock_info = reinterpret_cast<NvmlClockInfo>(dlsym(n.lib, "nvmlDeviceGetClockInfo"));
    n.power_limit = reinterpret_cast<NvmlPowerLimit>(dlsym(n.lib, "nvmlDeviceGetEnforcedPowerLimit"));
    if (init == nullptr || init() != kNvmlSuccess) {
      n.driver_version = nullptr;
      n.handle_by_pci = nullptr;
      n.clock_info = nullptr;
      n.power_limit = nullptr;
    }
    return n;
  }

  // The NVML handle of CUDA device `device` (matched by PCI bus id), or nullptr.
  NvmlDevice Device(int device) const {
    if (handle_by_pci == nullptr) return nullptr;
    char bus_id[64];
    if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), device) != cudaSuccess) return nullptr;
    NvmlDevice handle = nullptr;
    return handle_by_pci(bus_id, &handle) == kNvmlSuccess ? handle : nullptr;
  }

  double ClockMhz(int device, int clock) const {
    NvmlDevice handle = Device(device);
    unsigned mhz = 0;
    if (handle == nullptr || clock_info == nullptr || clock_info(handle, clock, &mhz) != kNvmlSuccess) {
      return 0;
    }
    return mhz;
  }
};

int Attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

std::string FormatUuid(const cudaUUID_t& uuid) {
  // nvidia-smi's form: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx
  std::string out = "GPU-";
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    std::snprintf(hex, sizeof(hex), "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    out += hex;
  }
  return out;
}

}  // namespace

int VisibleDeviceCount() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return count;
}

Provenance ReadProvenance(int device) {
  Provenance p;
  p.gpu_count = VisibleDeviceCount();
  if (p.gpu_count == 0) {
    std::fprintf(stderr, "infergrid-calibrate: no CUDA device visible\n");
    std::exit(1);
  }
  if (device >= p.gpu_count) {
    std::fprintf(stderr, "infergrid-calibrate: --device=%d but only %d device(s) visible\n", device, p.gpu_count);
    std::exit(2);
  }
  CUDA_CHECK(cudaSetDevice(device));
  CUDA_CHECK(cudaFree(nullptr));  // create the context now, not inside the first timing
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  p.gpu_name = prop.name;
  p.gpu_uuid = FormatUuid(prop.uuid);
  p.memory_total_mib = static_cast<int64_t>(prop.totalGlobalMem >> 20);
  p.compute_capability_major = prop.major;
  p.compute_capability_minor = prop.minor;
  p.sm_count = Attribute(cudaDevAttrMultiProcessorCount, device);
  p.l2_bytes = Attribute(cudaDevAttrL2CacheSize, device);
  p.shared_memory_per_sm_bytes = Attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  p.memory_bus_width_bits = Attribute(cudaDevAttrGlobalMemoryBusWidth, device);
  p.sm_clock_max_mhz = Attribute(cudaDevAttrClockRate, device) / 1000.0;  // kHz
  p.memory_clock_max_mhz = Attribute(cudaDevAttrMemoryClockRate, device) / 1000.0;  // kHz
  CUDA_CHECK(cudaDriverGetVersion(&p.cuda_driver_api_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&p.cuda_runtime_version));
  p.cublaslt_version = static_cast<int64_t>(cublasLtGetVersion());
#if INFERGRID_HAVE_NCCL
  int nccl_version = 0;
  if (ncclGetVersion(&nccl_version) == ncclSuccess) p.nccl_version = nccl_version;
#endif
  const Nvml& nvml = Nvml::Get();
  if (nvml.driver_version != nullptr) {
    char version[96] = {0};
    if (nvml.driver_version(version, sizeof(version)) == kNvmlSuccess) p.driver_version = version;
  } else {
    p.notes.push_back("NVML not available: driver version string, clocks and power limit unread");
  }
  p.sm_clock_start_mhz = nvml.ClockMhz(device, kNvmlClockSm);
  p.memory_clock_start_mhz = nvml.ClockMhz(device, kNvmlClockMem);
  NvmlDevice handle = nvml.Device(device);
  unsigned milliwatts = 0;
  if (handle != nullptr && nvml.power_limit != nullptr && nvml.power_limit(handle, &milliwatts) == kNvmlSuccess) {
    p.power_limit_watts = milliwatts / 1000.0;
  }
  return p;
}

double CurrentSmClockMhz(int device) { return Nvml::Get().ClockMhz(device, kNvmlClockSm); }

}  // namespace infergrid::calib
