#include "sim/app/accounting/memory_result.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hardware/gpu_catalog.h"
#include "models/attention_layout.h"
#include "models/kv_cache_size.h"
#include "sim/app/accounting/result_parts.h"
#include "sim/app/format/text_table.h"
#include "sim/app/format/units.h"

namespace infergrid {

using format::Fixed;
using format::Grouped;

MemoryResult BuildMemoryResult(const AccountingSetup& setup, int64_t context_tokens, int64_t batch) {
  MemoryResult result;
  result.set_model(setup.model.name());
  *result.mutable_parameters() = setup.parameters;
  *result.mutable_weights() = BuildWeightStorage(setup);

  KvCacheBytes& kv = *result.mutable_kv_cache();
  kv.set_dtype(std::string(DTypeName(setup.kv_dtype)));
  kv.set_bytes_per_token(static_cast<double>(KvBytesPerToken(setup.model, setup.kv_dtype)));
  kv.set_context_tokens(context_tokens);
  kv.set_batch(batch);
  kv.set_bytes(KvBytes(setup.model, setup.kv_dtype, context_tokens, batch));

  result.set_payload_bytes(setup.weight_bytes + kv.bytes());
  DeviceMemory& device = *result.mutable_device();
  device.set_name(setup.gpu.name());
  device.set_reported_name(setup.gpu.reported_name());
  device.set_reported_total_mib(setup.gpu.reported_total_mib());
  device.set_total_bytes(ReportedTotalBytes(setup.gpu));
  device.set_nameplate_gb(setup.gpu.nameplate_gb());
  result.set_remainder_bytes(device.total_bytes() - result.payload_bytes());

  AddParameterNotes(setup, result.mutable_notes());
  const AttentionLayerCounts kinds = CountAttentionLayers(setup.model);
  if (kinds.window > 0 || kinds.chunked > 0) {
    result.add_notes(absl::StrCat("attention: ", DescribeAttentionLayout(setup.model),
                                  "; a windowed layer keeps only its window's K and V, so the KV bytes are "
                                  "those of the other layers at the context plus the windowed ones at "
                                  "min(context, window); chunked layers are counted whole, as the engines "
                                  "allocate them; bytes_per_token counts every layer for one token"));
  }
  result.add_notes(
      "remainder = device total - payload: an upper bound on everything else (other sequences' "
      "KV blocks, activations, workspace, allocator caches, CUDA context), not free memory and "
      "not a capacity plan");
  if (result.remainder_bytes() < 0) {
    result.add_notes(
        absl::StrCat("the payload exceeds the device total by ", Fixed(-result.remainder_bytes() / kGiB, 2), " GiB"));
  }
  return result;
}

std::string RenderMemoryTable(const MemoryResult& result, const AccountingSetup& setup) {
  const ModelSpec& m = setup.model;
  const KvCacheBytes& kv = result.kv_cache();
  std::string out = absl::StrCat("InferGrid memory: ", m.display_name(), " on ", setup.gpu.display_name(), "\n");
  absl::StrAppend(&out, "  parameters     ", ParameterLine(result.parameters()), "\n");
  absl::StrAppend(&out, "  weights        ", WeightLine(result.weights()), "\n");
  const std::string elements =
      m.has_mla() ? absl::StrCat(m.num_layers(), " layers x (", m.mla().kv_lora_rank(), " latent + ",
                                 m.mla().qk_rope_head_dim(), " rotary key)")
                  : absl::StrCat("2 x ", m.num_layers(), " layers x ", m.num_kv_heads(), " KV heads x ", m.head_dim());
  absl::StrAppend(&out, "  KV cache       ", kv.dtype(), ", ", Grouped(kv.bytes_per_token()),
                  " B = ", Fixed(kv.bytes_per_token() / kKiB, 0), " KiB per token (", elements, " x ",
                  Fixed(BytesPerElement(setup.kv_dtype), 1), " B)\n\n");

  format::TextTable table({"quantity", "bytes", "GB (1e9)", "GiB (2^30)"});
  auto row = [&](std::string label, double bytes) {
    table.AddRow({std::move(label), Grouped(bytes), Fixed(bytes / kGB, 2), Fixed(bytes / kGiB, 2)});
  };
  row("weights", result.weights().bytes());
  row(absl::StrCat("KV cache (", Grouped(static_cast<double>(kv.context_tokens())), " tokens x ", kv.batch(),
                   kv.batch() == 1 ? " sequence)" : " sequences)"),
      kv.bytes());
  row("nominal payload (weights + KV)", result.payload_bytes());
  row(absl::StrCat("device total (", Grouped(static_cast<double>(result.device().reported_total_mib())),
                   " MiB reported)"),
      result.device().total_bytes());
  row("arithmetic remainder", result.remainder_bytes());
  absl::StrAppend(&out, table.Render(), "\n");
  for (const std::string& note : result.notes()) absl::StrAppend(&out, "note: ", note, "\n");
  return out;
}

}  // namespace infergrid
