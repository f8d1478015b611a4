#include "sim/app/accounting/roofline_result.h"

#include "absl/strings/str_cat.h"
#include "hardware/lower_bounds.h"
#include "models/kv_cache_size.h"
#include "models/pass_accounting.h"
#include "sim/app/accounting/result_parts.h"
#include "sim/app/accounting/roofline_calibrated.h"
#include "sim/app/format/text_table.h"
#include "sim/app/format/units.h"

namespace infergrid {

using format::Fixed;
using format::Grouped;

RooflineResult BuildRooflineResult(const AccountingSetup& setup, const RooflineQuery& query) {
  RooflineResult result;
  result.set_model(setup.model.name());
  result.set_gpu(setup.gpu.name());
  result.set_phase(query.prefill ? "prefill" : "decode");
  result.set_prompt_tokens(query.prefill ? query.prompt_tokens : 0);
  result.set_context_tokens(query.prefill ? 0 : query.context_tokens);
  result.set_batch(query.batch);
  *result.mutable_parameters() = setup.parameters;
  *result.mutable_weights() = BuildWeightStorage(setup);
  result.set_kv_cache_dtype(std::string(DTypeName(setup.kv_dtype)));
  const int64_t kv_per_token = KvBytesPerToken(setup.model, setup.kv_dtype);
  result.set_kv_bytes_per_token(static_cast<double>(kv_per_token));

  const PassInputs inputs{setup.parameters.active_per_token(), setup.weight_bytes, kv_per_token};
  const PassAccounting pass = query.prefill ? PrefillPass(setup.model, inputs, query.prompt_tokens, query.batch)
                                            : DecodeStep(setup.model, inputs, query.context_tokens, query.batch);
  const bool causal = query.prefill && query.causal;
  FlopCounts& flops = *result.mutable_flops();
  flops.set_linear(pass.linear_flops);
  flops.set_attention(pass.attention_flops);
  flops.set_attention_causal(pass.attention_flops_causal);
  flops.set_attention_mode(causal ? "causal" : "full");
  flops.set_total(pass.TotalFlops(causal));
  flops.set_attention_share((causal ? pass.attention_flops_causal : pass.attention_flops) / flops.total());
  ByteCounts& bytes = *result.mutable_bytes();
  bytes.set_weights(pass.weight_bytes);
  bytes.set_kv_read(pass.kv_read_bytes);
  bytes.set_kv_write(pass.kv_write_bytes);
  bytes.set_payload(pass.payload_bytes);
  bytes.set_total(pass.TotalBytes());
  result.set_intensity(flops.total() / bytes.payload());

  const LowerBounds lb = ComputeLowerBounds(setup.gpu, setup.compute_dtype, flops.total(), bytes.payload());
  TimeBounds& bounds = *result.mutable_bounds();
  bounds.set_compute_dtype(std::string(DTypeName(setup.compute_dtype)));
  bounds.set_peak_flops(lb.peak_flops);
  bounds.set_peak_hbm_bytes_per_s(lb.peak_hbm_bytes_per_s);
  bounds.set_compute_s(lb.compute_s);
  bounds.set_hbm_s(lb.hbm_s);
  bounds.set_larger(std::string(lb.larger()));
  bounds.set_machine_balance(lb.machine_balance);

  AddParameterNotes(setup, result.mutable_notes());
  result.add_notes(
      "bounds are peak-based lower bounds, not predictions: the larger one is a candidate "
      "constraint to confirm with measured DRAM bytes, FLOPs and duration of the same pass");
  if (lb.peak_flops == 0) {
    result.add_notes(absl::StrCat(setup.gpu.name(), " has no tensor-core rate for ", DTypeName(setup.compute_dtype),
                                  ": the compute bound is omitted"));
  }
  return result;
}

std::string RenderRooflineTable(const RooflineResult& r, const AccountingSetup& setup) {
  const bool prefill = r.phase() == "prefill";
  std::string out = absl::StrCat("InferGrid roofline: ", setup.model.display_name(), " on ", setup.gpu.display_name(),
                                 ", ", prefill ? "one prefill pass" : "one decode step", "\n");
  absl::StrAppend(&out, "  shape          batch ", r.batch(), ", ",
                  prefill ? absl::StrCat("prompt ", Grouped(r.prompt_tokens()), " tokens")
                          : absl::StrCat("context ", Grouped(r.context_tokens()), " tokens"),
                  "\n");
  absl::StrAppend(&out, "  parameters     ", ParameterLine(r.parameters()), "\n");
  absl::StrAppend(&out, "  weights        ", WeightLine(r.weights()), "\n");
  absl::StrAppend(&out, "  KV cache       ", r.kv_cache_dtype(), ", ", Grouped(r.kv_bytes_per_token()),
                  " B per token\n\n");

  // The lesson states prefill FLOPs in TFLOP and decode FLOPs in GFLOP.
  const double flop_unit = prefill ? 1e12 : 1e9;
  const std::string unit_name = prefill ? "TFLOP" : "GFLOP";
  const int decimals = prefill ? 3 : 2;
  format::TextTable flop_table({"FLOPs", "FLOP", unit_name, "share"});
  const FlopCounts& f = r.flops();
  auto share = [&](double v) { return absl::StrCat(Fixed(100.0 * v / f.total(), 1), "%"); };
  flop_table.AddRow({prefill ? "linear (2*N*P per sequence)" : "linear (2*N per sequence)", Grouped(f.linear()),
                     Fixed(f.linear() / flop_unit, decimals), share(f.linear())});
  if (prefill) {
    const bool causal = f.attention_mode() == "causal";
    flop_table.AddRow({absl::StrCat("attention (2*L*H_q*D*P^2)", causal ? "" : " [in total]"), Grouped(f.attention()),
                       Fixed(f.attention() / flop_unit, decimals), causal ? "" : share(f.attention())});
    flop_table.AddRow({absl::StrCat("attention, causal-halved", causal ? " [in total]" : ""),
                       Grouped(f.attention_causal()), Fixed(f.attention_causal() / flop_unit, decimals),
                       causal ? share(f.attention_causal()) : ""});
  } else {
    flop_table.AddRow({"attention (4*L*H_q*D*S)", Grouped(f.attention()), Fixed(f.attention() / flop_unit, decimals),
                       share(f.attention())});
  }
  flop_table.AddRow({"total", Grouped(f.total()), Fixed(f.total() / flop_unit, decimals), "100.0%"});
  absl::StrAppend(&out, flop_table.Render(), "\n");

  format::TextTable byte_table({"nominal HBM payload", "bytes", "GB (1e9)", "GiB (2^30)"});
  auto byte_row = [&](std::string label, double b) {
    byte_table.AddRow({std::move(label), Grouped(b), Fixed(b / kGB, 2), Fixed(b / kGiB, 2)});
  };
  const ByteCounts& b = r.bytes();
  byte_row("weights (one pass)", b.weights());
  if (prefill) {
    byte_row("KV write (the prompt's K and V)", b.kv_write());
    byte_row("nominal payload", b.payload());
  } else {
    byte_row("KV read", b.kv_read());
    byte_row("nominal payload (weights + KV read)", b.payload());
    byte_row("+ KV write (one token per sequence)", b.kv_write());
  }
  absl::StrAppend(&out, byte_table.Render(), "\n");

  const TimeBounds& lb = r.bounds();
  absl::StrAppend(&out, "arithmetic intensity  ", Fixed(r.intensity(), 2),
                  " FLOP/byte (machine balance at peaks: ", Fixed(lb.machine_balance(), 0), " FLOP/byte)\n");
  absl::StrAppend(&out, "lower bound, HBM      ", format::Duration(lb.hbm_s()), " = ", Fixed(b.payload() / kGB, 2),
                  " GB / ", Fixed(lb.peak_hbm_bytes_per_s() / 1e12, 2), " TB/s peak\n");
  absl::StrAppend(&out, "lower bound, compute  ", format::Duration(lb.compute_s()), " = ",
                  Fixed(f.total() / flop_unit, decimals), " ", unit_name, " / ", Fixed(lb.peak_flops() / 1e12, 1),
                  " TFLOP/s peak (", lb.compute_dtype(), " dense)\n");
  absl::StrAppend(&out, "larger bound          ", lb.larger() == "hbm" ? "HBM" : "compute", " (",
                  format::Duration(std::max(lb.hbm_s(), lb.compute_s())), ")\n\n");
  absl::StrAppend(&out, RenderCalibratedLines(r));
  for (const std::string& note : r.notes()) absl::StrAppend(&out, "note: ", note, "\n");
  return out;
}

}  // namespace infergrid
