// libFuzzer target for the textproto loaders: model specs, GPU specs and workload presets are
// parsed and validated the way the catalogs and --model/--gpu/preset files are; a preset that
// validates is also sampled from.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "base/textproto.h"
#include "hardware/gpu_catalog.h"
#include "hardware/hardware_spec.pb.h"
#include "models/kv_cache_groups.h"
#include "models/kv_cache_size.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "models/model_spec.pb.h"
#include "traces/length_distribution.h"
#include "traces/random_streams.h"
#include "traces/workload_preset.pb.h"

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
