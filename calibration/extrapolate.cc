#include "calibration/extrapolate.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace infergrid {
namespace {

// One direction of the GPU-to-GPU link: NVLink figures are quoted with both directions summed,
// PCIe figures per direction.
double LinkBytesPerS(const GpuSpec& gpu) {
  if (gpu.nvlink_bytes_per_s() > 0) return gpu.nvlink_bytes_per_s() / 2;
  return gpu.pcie_bytes_per_s();
}

}  // namespace

absl::StatusOr<Calibration> ExtrapolateProfile(const Calibration& source, const GpuSpec& source_gpu,
                                               const GpuSpec& target, const std::string& command) {
  if (source.extrapolated()) {
    return absl::InvalidArgumentError(absl::StrCat("profile '", source.gpu(), "' is itself extrapolated (from ",
                                                   source.extrapolated_from(),
                                                   "); extrapolate from a measured profile"));
  }
  if (source.gpu() != source_gpu.name()) {
    return absl::InvalidArgumentError(
        absl::StrCat("profile is for '", source.gpu(), "', not '", source_gpu.name(), "'"));
  }
  if (target.sm_count() <= 0 || target.hbm_bytes_per_s() <= 0 || source_gpu.sm_count() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("GPU '", target.name(), "' needs sm_count and hbm_bytes_per_s to extrapolate to"));
  }
  Calibration out = source;
  out.set_gpu(target.name());
  out.set_architecture(target.architecture());
  out.set_extrapolated(true);
  out.set_extrapolated_from(source.gpu());
  out.set_extrapolation_method("datasheet ratios");
  out.clear_fit_quality();
  out.clear_gemm_reference();
  out.clear_notes();

  const double hbm_ratio = target.hbm_bytes_per_s() / source_gpu.hbm_bytes_per_s();
  for (RatePoint& p : *out.mutable_hbm()->mutable_points()) p.set_bytes_per_s(p.bytes_per_s() * hbm_ratio);
  out.mutable_hbm()->set_source(absl::StrCat("extrapolated: ", source.gpu(), "'s curve x ",
                                             absl::StrFormat("%.4f", hbm_ratio), " (HBM peak ratio)"));
  const double sm_ratio = static_cast<double>(source_gpu.sm_count()) / target.sm_count();
  out.mutable_gemm()->set_per_sm_bytes_per_s(source.gemm().per_sm_bytes_per_s() * hbm_ratio * sm_ratio);
  const double clock_ratio = source_gpu.boost_clock_hz() > 0 && target.boost_clock_hz() > 0
                                 ? target.boost_clock_hz() / source_gpu.boost_clock_hz()
                                 : 1.0;
  const double l2_ratio = static_cast<double>(target.sm_count()) / source_gpu.sm_count() * clock_ratio;
  for (RatePoint& p : *out.mutable_l2()->mutable_points()) p.set_bytes_per_s(p.bytes_per_s() * l2_ratio);
  out.mutable_gemm()->set_l2_bytes_per_s(source.gemm().l2_bytes_per_s() * l2_ratio);
  out.mutable_l2()->set_source(absl::StrCat("extrapolated: ", source.gpu(), "'s L2 rate x ",
                                            absl::StrFormat("%.4f", l2_ratio), " (SMs x clock)"));
  if (target.tensor_peaks().fp8_flops() <= 0) out.mutable_gemm()->set_fp8_peak_fraction(0);

  const double link_src = LinkBytesPerS(source_gpu), link_dst = LinkBytesPerS(target);
  const double link_ratio = link_src > 0 && link_dst > 0 ? link_src / link_dst : 1.0;
  for (CollectiveTable& t : *out.mutable_collectives()) {
    for (CollectivePoint& p : *t.mutable_points()) p.set_seconds(p.seconds() * link_ratio);
    t.set_source(absl::StrCat("extrapolated: ", source.gpu(), "'s measured table x ",
                              absl::StrFormat("%.4f", link_ratio), " (interconnect ratio)"));
  }
  // Fixed costs (ramp, tail) and one block's streaming rate are latency-bound: they follow the
  // core clock.
  for (KernelClassCalibration& c : *out.mutable_kernel_classes()) {
    c.set_fixed_s(c.fixed_s() / clock_ratio);
    c.set_per_item_bytes_per_s(c.per_item_bytes_per_s() * clock_ratio);
    c.set_source(
        absl::StrCat("from ", source.gpu(), " (fixed cost and per-item rate scaled by the clock ratio): ", c.source()));
  }
  out.add_notes(absl::StrFormat(
      "extrapolated from %s (measured) by datasheet ratios: HBM %.3fx, L2 %.3fx (SMs %d -> %d, "
      "clock %.3fx), interconnect time %.3fx; GEMM and kernel-class efficiencies are %s's, as "
      "shares of %s's own peaks (tensor %.1f TFLOP/s bf16, HBM %.2f TB/s)",
      source.gpu(), hbm_ratio, l2_ratio, source_gpu.sm_count(), target.sm_count(), clock_ratio, link_ratio,
      source.gpu(), target.name(), target.tensor_peaks().fp16_flops() / 1e12, target.hbm_bytes_per_s() / 1e12));
  if (target.architecture() != source_gpu.architecture()) {
    out.add_notes(absl::StrCat("architecture differs (", source_gpu.architecture(), " -> ", target.architecture(),
                               "): tile shapes and efficiencies may not transfer; measure with "
                               "kernels/ when the GPU is available"));
  }
  CalibrationProvenance* p = out.mutable_provenance();
  p->set_gpu_reported_name(target.reported_name());
  p->set_driver("");
  p->set_cuda("");
  p->set_clocks("");
  p->set_source(absl::StrCat("extrapolated from ", source.gpu(), " (", source.provenance().source(), ") with ",
                             target.name(), "'s datasheet (", target.source(), ")"));
  p->set_command(command);
  p->set_tool("infergrid calibrate extrapolate v1");
  return out;
}

}  // namespace infergrid
