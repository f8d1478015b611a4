#include "sim/app/accounting/memory_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hardware/gpu_catalog.h"
#include "models/attention_layout.h"
#include "models/kv_cache_size.h"
#include "sim/app/accounting/report_parts.h"
#include "sim/app/format/text_table.h"
#include "sim/app/format/units.h"

namespace infergrid {

using format::Fixed;
using format::Grouped;

MemoryReport BuildMemoryReport(const AccountingSetup& setup, int64_t context_tokens, int64_t batch) {
  MemoryReport report;
  report.set_model(setup.model.name());
  *report.mutable_parameters() = setup.parameters;
  *report.mutable_weights() = BuildWeightReport(setup);

  KvReport& kv = *report.mutable_kv_cache();
  kv.set_dtype(std::string(DTypeName(setup.kv_dtype)));
  kv.set_bytes_per_token(static_cast<double>(KvBytesPerToken(setup.model, setup.kv_dtype)));
  kv.set_context_tokens(context_tokens);
  kv.set_batch(batch);
  kv.set_bytes(KvBytes(setup.model, setup.kv_dtype, context_tokens, batch));

  report.set_payload_bytes(setup.weight_bytes + kv.bytes());
  DeviceReport& device = *report.mutable_device();
  device.set_name(setup.gpu.name());
  device.set_reported_name(setup.gpu.reported_name());
  device.set_reported_total_mib(setup.gpu.reported_total_mib());
  device.set_total_bytes(ReportedTotalBytes(setup.gpu));
  device.set_nameplate_gb(setup.gpu.nameplate_gb());
  report.set_remainder_bytes(device.total_bytes() - report.payload_bytes());

  AddParameterNotes(setup, report.mutable_notes());
  const AttentionLayerCounts kinds = CountAttentionLayers(setup.model);
  if (kinds.window > 0 || kinds.chunked > 0) {
    report.add_notes(absl::StrCat("attention: ", DescribeAttentionLayout(setup.model),
                                  "; a windowed layer keeps only its window's K and V, so the KV bytes are "
                                  "those of the other layers at the context plus the windowed ones at "
                                  "min(context, window); chunked layers are counted whole, as the engines "
                                  "allocate them; bytes_per_token counts every layer for one token"));
  }
  report.add_notes(
      "remainder = device total - payload: an upper bound on everything else (other sequences' "
      "KV blocks, activations, workspace, allocator caches, CUDA context), not free memory and "
      "not a capacity plan");
  if (report.remainder_bytes() < 0) {
    report.add_notes(
        absl::StrCat("the payload exceeds the device total by ", Fixed(-report.remainder_bytes() / kGiB, 2), " GiB"));
  }
  return report;
}

std::string RenderMemoryTable(const MemoryReport& report, const AccountingSetup& setup) {
  const ModelSpec& m = setup.model;
  const KvReport& kv = report.kv_cache();
  std::string out = absl::StrCat("InferGrid memory: ", m.display_name(), " on ", setup.gpu.display_name(), "\n");
  absl::StrAppend(&out, "  parameters     ", ParameterLine(report.parameters()), "\n");
  absl::StrAppend(&out, "  weights        ", WeightLine(report.weights()), "\n");
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
  row("weights", report.weights().bytes());
  row(absl::StrCat("KV cache (", Grouped(static_cast<double>(kv.context_tokens())), " tokens x ", kv.batch(),
                   kv.batch() == 1 ? " sequence)" : " sequences)"),
      kv.bytes());
  row("nominal payload (weights + KV)", report.payload_bytes());
  row(absl::StrCat("device total (", Grouped(static_cast<double>(report.device().reported_total_mib())),
                   " MiB reported)"),
      report.device().total_bytes());
  row("arithmetic remainder", report.remainder_bytes());
  absl::StrAppend(&out, table.Render(), "\n");
  for (const std::string& note : report.notes()) absl::StrAppend(&out, "note: ", note, "\n");
  return out;
}

}  // namespace infergrid
