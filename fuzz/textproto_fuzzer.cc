// libFuzzer target for the textproto loaders: model specs, GPU specs, workload presets and
// calibration profiles are parsed and validated the way the catalogs and --model/--gpu/preset/
// --calibration files are; a preset that validates is also sampled from, and a profile that
// validates (against the h100-sxm spec) prices a GEMM and a norm, which must take finite time.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "base/textproto.h"
#include "calibration/calibration_checks.h"
#include "calibration/profile_catalog.h"
#include "hardware/gpu_catalog.h"
#include "hardware/hardware_spec.pb.h"
#include "hardware/resource_model.h"
#include "models/kv_cache_groups.h"
#include "models/iteration_kernels.h"
#include "models/kv_cache_size.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "models/model_spec.pb.h"
#include "traces/length_distribution.h"
#include "traces/random_streams.h"
#include "traces/workload_preset.pb.h"

namespace {

// A profile parsed as --calibration=FILE is, named for the h100-sxm spec and validated against
// it; one that validates must price a large GEMM and a norm in finite time, or the event engine
// would be handed infinite work.
void FuzzCalibration(absl::string_view text) {
  infergrid::Calibration profile;
  if (!infergrid::ParseTextProto(text, "fuzz.textproto", &profile).ok()) return;
  static const infergrid::GpuSpec* h100 = new infergrid::GpuSpec(*infergrid::ResolveGpu("h100-sxm"));
  profile.set_gpu("h100-sxm");
  if (!infergrid::ValidateCalibration(profile, *h100, "fuzz.textproto").ok()) return;
  auto resources = infergrid::ResourceModel::Create(*h100, infergrid::ResourcesOf(profile));
  infergrid::Kernel gemm;
  gemm.m = 4096, gemm.n = 4096, gemm.k = 4096;
  gemm.tensor_flops = 2.0 * 4096 * 4096 * 4096;
  gemm.hbm_bytes = 3.0 * 2 * 4096 * 4096;
  infergrid::Kernel norm;
  norm.kind = infergrid::KernelKind::kNorm;
  norm.hbm_bytes = 1e9;
  norm.parallel_work_items = 4096;
  if (!resources.ok() || !std::isfinite(resources->Time(gemm).seconds) ||
      !std::isfinite(resources->Time(norm).seconds)) {
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  infergrid::ModelSpec model;
  if (infergrid::ParseTextProto(text, "fuzz.textproto", &model).ok() &&
      infergrid::ValidateModelSpec(model, "fuzz.textproto").ok()) {
    // A spec that validates is counted and laid out: parameters, KV and state bytes, the KV
    // groups vLLM would cut (the bounds must keep all of it free of overflow).
    (void)infergrid::CountParameters(model).Total();
    (void)infergrid::KvBytes(model, infergrid::DType::BF16, 1 << 20, 64);
    (void)infergrid::VllmHybridGroups(model, 0, model.num_layers()).BlocksFor(1 << 20, 16);
  }
  infergrid::GpuSpec gpu;
  if (infergrid::ParseTextProto(text, "fuzz.textproto", &gpu).ok()) {
    (void)infergrid::ValidateGpuSpec(gpu, "fuzz.textproto");
  }
  FuzzCalibration(text);
  infergrid::WorkloadPreset preset;
  if (infergrid::ParseTextProto(text, "fuzz.textproto", &preset).ok()) {
    auto sampler = infergrid::MakePresetLengths(preset);
    if (sampler.ok()) {
      infergrid::RandomStream random(0, "fuzz");
      int32_t in = 0, out = 0;
      for (int i = 0; i < 64; ++i) (*sampler)->Sample(random, &in, &out);
    }
  }
  return 0;
}
