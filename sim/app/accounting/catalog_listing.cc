#include "sim/app/accounting/catalog_listing.h"

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/dtype.h"
#include "base/units.h"
#include "calibration/profile_catalog.h"
#include "hardware/gpu_catalog.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "sim/app/format/text_table.h"
#include "sim/app/format/units.h"

namespace infergrid {
namespace {

// "GQA", "MLA", "GQA + sliding window", ...: how the model's layers attend.
std::string AttentionLabel(const ModelSpec& m) {
  std::string label = m.has_mla()                                   ? "MLA"
                      : m.num_kv_heads() == m.num_attention_heads() ? "MHA"
                      : m.num_kv_heads() == 1                       ? "MQA"
                                                                    : "GQA";
  if (m.has_sparse_attention()) absl::StrAppend(&label, " + sparse top-k");
  if (m.has_linear_attention()) absl::StrAppend(&label, " + linear");
  if (m.attention().sliding_window() > 0) absl::StrAppend(&label, " + sliding window");
  if (m.attention().attention_chunk_size() > 0) absl::StrAppend(&label, " + chunked");
  return label;
}

}  // namespace

absl::StatusOr<ModelListing> ListModels() {
  ModelListing listing;
  for (const std::string& name : ModelCatalogNames()) {
    absl::StatusOr<ModelSpec> found = FindCatalogModel(name);
    if (!found.ok()) return found.status();
    const ModelSpec& m = *found;
    ModelListingEntry& e = *listing.add_models();
    e.set_name(m.name());
    e.set_display_name(m.display_name());
    e.set_hf_id(m.hf_id());
    for (const std::string& alias : m.hf_aliases()) e.add_hf_aliases(alias);
    e.set_parameters(static_cast<double>(CountParameters(m).Total()));
    e.set_active_parameters(static_cast<double>(ActiveParametersPerToken(m)));
    e.set_num_layers(m.num_layers());
    e.set_hidden_size(static_cast<int32_t>(m.hidden_size()));
    e.set_num_attention_heads(m.num_attention_heads());
    e.set_num_kv_heads(m.num_kv_heads());
    e.set_num_experts(m.has_moe() ? m.moe().num_experts() : 0);
    e.set_experts_per_token(m.has_moe() ? m.moe().experts_per_token() : 0);
    e.set_attention(AttentionLabel(m));
    e.set_max_position_embeddings(static_cast<int32_t>(m.max_position_embeddings()));
    e.set_dtype(std::string(DTypeName(m.dtype())));
    e.set_checkpoint_quantization(m.checkpoint_quantization());
  }
  return listing;
}

namespace {

// 8.03, 70.6, 671: three significant digits of billions.
std::string Billions(double count) {
  const double b = count / 1e9;
  return format::Fixed(b, b < 10 ? 2 : b < 100 ? 1 : 0);
}

}  // namespace

std::string RenderModels(const ModelListing& listing) {
  format::TextTable table({"model", "params (B)", "active (B)", "layers", "hidden", "heads (KV)", "experts (top-k)",
                           "attention", "context", "weights", "Hugging Face id"});
  for (const ModelListingEntry& e : listing.models()) {
    table.AddRow({e.name(), Billions(e.parameters()), Billions(e.active_parameters()), absl::StrCat(e.num_layers()),
                  absl::StrCat(e.hidden_size()), absl::StrCat(e.num_attention_heads(), " (", e.num_kv_heads(), ")"),
                  e.num_experts() > 0 ? absl::StrCat(e.num_experts(), " (", e.experts_per_token(), ")") : "-",
                  e.attention(), format::Grouped(static_cast<double>(e.max_position_embeddings())),
                  e.checkpoint_quantization().empty() ? e.dtype() : e.checkpoint_quantization(), e.hf_id()});
  }
  return absl::StrCat("InferGrid models: ", listing.models_size(),
                      " catalog entries (--model takes the name, the Hugging Face id, a config.json or a ModelSpec "
                      "textproto)\n\n",
                      table.Render());
}

absl::StatusOr<GpuListing> ListGpus() {
  GpuListing listing;
  for (const std::string& name : GpuCatalogNames()) {
    absl::StatusOr<GpuSpec> found = ResolveGpu(name);
    if (!found.ok()) return found.status();
    const GpuSpec& g = *found;
    GpuListingEntry& e = *listing.add_gpus();
    e.set_name(g.name());
    e.set_display_name(g.display_name());
    e.set_architecture(g.architecture());
    e.set_memory_bytes(ReportedTotalBytes(g));
    e.set_hbm_bytes_per_s(g.hbm_bytes_per_s());
    e.set_bf16_flops(g.tensor_peaks().fp16_flops());
    e.set_fp8_flops(g.tensor_peaks().fp8_flops());
    e.set_fp4_flops(g.tensor_peaks().fp4_flops());
    e.set_sm_count(g.sm_count());
    e.set_nvlink_bytes_per_s(g.nvlink_bytes_per_s());
    e.set_gpus_per_node(GpusPerNode(g));
    e.set_nvlink_domain_gpus(NvlinkDomainGpus(g));
    e.set_price_usd_per_gpu_hour(g.price_usd_per_gpu_hour());
    absl::StatusOr<Calibration> profile = ResolveCalibration(g, "");
    if (profile.ok()) {
      e.set_calibration(profile->extrapolated() ? absl::StrCat("extrapolated from ", profile->extrapolated_from())
                                                : std::string("measured"));
      e.set_calibration_extrapolated(profile->extrapolated());
    } else {
      e.set_calibration("none");
    }
  }
  return listing;
}

std::string RenderGpus(const GpuListing& listing) {
  format::TextTable table({"gpu", "memory GiB", "HBM TB/s", "bf16 TFLOP/s", "fp8", "fp4", "SMs", "NVLink GB/s",
                           "domain", "$/GPU-h", "cost model"});
  auto tera = [](double flops) { return flops > 0 ? format::Fixed(flops / 1e12, 0) : std::string("-"); };
  for (const GpuListingEntry& e : listing.gpus()) {
    table.AddRow({e.name(), format::Fixed(e.memory_bytes() / kGiB, 1), format::Fixed(e.hbm_bytes_per_s() / 1e12, 2),
                  tera(e.bf16_flops()), tera(e.fp8_flops()), tera(e.fp4_flops()), absl::StrCat(e.sm_count()),
                  e.nvlink_bytes_per_s() > 0 ? format::Fixed(e.nvlink_bytes_per_s() / 1e9, 0) : "-",
                  absl::StrCat(e.nvlink_domain_gpus()),
                  e.price_usd_per_gpu_hour() > 0 ? format::Fixed(e.price_usd_per_gpu_hour(), 2) : "-",
                  e.calibration()});
  }
  return absl::StrCat("InferGrid gpus: ", listing.gpus_size(),
                      " catalog entries (dense datasheet peaks; --gpu takes the name, the name nvidia-smi reports, "
                      "or a GpuSpec textproto)\n\n",
                      table.Render(),
                      "\nAn extrapolated cost model scales the measured profile by datasheet ratios: expect larger "
                      "errors on it (docs/calibration.md).\n");
}

}  // namespace infergrid
