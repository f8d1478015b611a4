#include "calibration/calibration_checks.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/match.h"
#include "base/proto_numbers.h"
#include "calibration/profile_catalog.h"
#include "hardware/resource_model.h"

namespace infergrid {
namespace {

// A share of a datasheet peak below this is a broken profile, not a slow GPU: the kernel would
// take 10,000 times its datasheet time (and, at 1e-300, infinitely long).
constexpr double kMinPeakShare = 1e-4;
// A fixed GPU-side cost, or a launch, of a second is no kernel (measured ones are microseconds).
constexpr double kMaxOverheadS = 1.0;
// K elements of prologue, epilogue or pipeline fill: a real GEMM's K is at most about 1e5.
constexpr double kMaxKElements = 1e6;
constexpr int kMaxTileSide = 4096;
// One collective of the measured tables taking an hour is no interconnect.
constexpr double kMaxCollectiveS = 3600;
// The fitted kernel-class rates are medians of measurements that can sit a fraction of a
// percent above the datasheet: the a100-80gb residual_add fit (and the classes borrowing it, and
// the profiles extrapolated from it: a100-40gb, l40s, l4) reaches 100.16% of it, as
// FitKernelClass bounds bandwidth_fraction by 3, not by the datasheet. 1% more is noise; a profile claiming more prices kernels the GPU cannot run.
constexpr double kHbmPeakMargin = 1.01;

constexpr absl::string_view kBeatsPeak = "a kernel cannot beat the GPU's datasheet peak";

absl::Status CalibrationRefusal(absl::string_view where, absl::string_view path, double value, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", path, " = ", value, " ", what));
}

// `value` in [lo, hi], else "<where>: <path> = <value> is outside [lo, hi]: <why>".
absl::Status CalibrationInRange(absl::string_view where, absl::string_view path, double value, double lo, double hi,
                                absl::string_view why) {
  if (value >= lo && value <= hi) return absl::OkStatus();
  return CalibrationRefusal(where, path, value, absl::StrCat("is outside [", lo, ", ", hi, "]: ", why));
}

// The GEMM model's parameters that are not rates (rates: CheckCalibrationNumbers' rule).
absl::Status CheckGemmRanges(const GemmModel& g, absl::string_view where) {
  struct Bound {
    absl::string_view path;
    double value, lo, hi;
    absl::string_view why;
  };
  const Bound bounds[] = {
      {"gemm.k_overhead", g.k_overhead(), 0, kMaxKElements, "K elements of prologue and epilogue per tile"},
      {"gemm.fill_drain_k", g.fill_drain_k(), 0, kMaxKElements, "K elements of pipeline fill per kernel"},
      {"gemm.tile_penalty", g.tile_penalty(), 0, kMaxKElements, "a tile's efficiency is 1 / (1 + penalty / intensity)"},
      {"gemm.overlap_penalty", g.overlap_penalty(), 0, 1, "the share of the smaller of tensor and HBM time added"},
      {"gemm.partial_wave_discount", g.partial_wave_discount(), 0, 1,
       "the share of a partial wave's idle SMs recovered"},
      {"gemm.min_split_k", static_cast<double>(g.min_split_k()), 1, kMaxKElements, "K elements per split"},
  };
  for (const Bound& b : bounds) {
    if (absl::Status s = CalibrationInRange(where, b.path, b.value, b.lo, b.hi, b.why); !s.ok()) return s;
  }
  for (int i = 0; i < g.tiles_size(); ++i) {
    for (const auto& [side, value] : {std::pair{"bm", g.tiles(i).bm()}, std::pair{"bn", g.tiles(i).bn()}}) {
      if (absl::Status s = CalibrationInRange(where, absl::StrCat("gemm.tiles[", i, "].", side), value, 1, kMaxTileSide,
                                              "a tile side in elements");
          !s.ok()) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

struct BestTile {
  int bm = 0, bn = 0;
  double efficiency = 0;
};

// The most efficient tile, as the resource model computes it (hardware/resource_calibration.proto).
BestTile BestTileOf(const GemmModel& g) {
  BestTile best;
  for (const GemmTile& t : g.tiles()) {
    const double bm = t.bm(), bn = t.bn();
    const double efficiency = 1.0 / (1.0 + g.tile_penalty() * (bm + bn) / (bm * bn));
    if (efficiency > best.efficiency) best = {t.bm(), t.bn(), efficiency};
  }
  return best;
}

// A GEMM's tensor time is at least its FLOPs over (peak x fraction x the best tile's
// efficiency): the wave and overhead terms only add to it (k_overhead, fill_drain_k >= 0,
// partial_wave_discount <= 1). So that share of the peak must be at most 1.
absl::Status CheckTensorShare(absl::string_view where, absl::string_view path, double fraction, const BestTile& best,
                              absl::string_view peak_name, double peak) {
  const double share = fraction * best.efficiency;
  if (share <= 1 && share >= kMinPeakShare) return absl::OkStatus();
  const std::string tile =
      absl::StrFormat("the best tile (%dx%d, efficiency %.3g) at %.3g of the datasheet %s = %g FLOP/s", best.bm,
                      best.bn, best.efficiency, share, peak_name, peak);
  if (share > 1) return CalibrationRefusal(where, path, fraction, absl::StrCat("prices ", tile, ": ", kBeatsPeak));
  return CalibrationRefusal(where, path, fraction,
                            absl::StrCat("prices ", tile, "; expected at least ", kMinPeakShare));
}

absl::Status CheckTensorPeak(const GemmModel& g, const GpuSpec& gpu, absl::string_view where) {
  const BestTile best = BestTileOf(g);
  if (absl::Status s = CheckTensorShare(where, "gemm.peak_fraction", g.peak_fraction(), best,
                                        "tensor peak tensor_peaks.fp16_flops", gpu.tensor_peaks().fp16_flops());
      !s.ok()) {
    return s;
  }
  if (g.fp8_peak_fraction() == 0) return absl::OkStatus();  // 0: peak_fraction applies
  return CheckTensorShare(where, "gemm.fp8_peak_fraction", g.fp8_peak_fraction(), best,
                          "fp8 tensor peak tensor_peaks.fp8_flops", gpu.tensor_peaks().fp8_flops());
}

// Every HBM point at most the datasheet; returns the curve's highest point in `curve_max`.
absl::Status CheckHbmCurve(const RateTable& hbm, const GpuSpec& gpu, absl::string_view where, double* curve_max) {
  const double limit = gpu.hbm_bytes_per_s() * kHbmPeakMargin;
  *curve_max = 0;
  for (int i = 0; i < hbm.points_size(); ++i) {
    const double rate = hbm.points(i).bytes_per_s();
    *curve_max = std::max(*curve_max, rate);
    if (rate > limit) {
      return CalibrationRefusal(where, absl::StrCat("hbm.points[", i, "].bytes_per_s"), rate,
                                absl::StrCat("is above the datasheet HBM rate (hbm_bytes_per_s = ",
                                             gpu.hbm_bytes_per_s(), " B/s, +1%): ", kBeatsPeak));
    }
  }
  return absl::OkStatus();
}

// A class's rates: bandwidth_fraction of the HBM curve, compute_fraction of the tensor peak.
absl::Status CheckKernelClass(const KernelClassCalibration& c, int i, double curve_max, const GpuSpec& gpu,
                              absl::string_view where) {
  const std::string path = absl::StrCat("kernel_classes[", i, "] (", c.name(), ").");
  if (absl::Status s = CalibrationInRange(where, path + "fixed_s", c.fixed_s(), 0, kMaxOverheadS,
                                          "a kernel's GPU-side fixed cost in seconds");
      !s.ok()) {
    return s;
  }
  const double fastest = c.bandwidth_fraction() * curve_max;
  if (fastest > gpu.hbm_bytes_per_s() * kHbmPeakMargin) {
    return CalibrationRefusal(
        where, path + "bandwidth_fraction", c.bandwidth_fraction(),
        absl::StrFormat("times the HBM curve's highest point (%g B/s) streams at %.3g of the datasheet HBM rate "
                        "(hbm_bytes_per_s = %g B/s, +1%%): %s",
                        curve_max, fastest / gpu.hbm_bytes_per_s(), gpu.hbm_bytes_per_s(), kBeatsPeak));
  }
  if (c.bandwidth_fraction() < kMinPeakShare) {
    return CalibrationRefusal(where, path + "bandwidth_fraction", c.bandwidth_fraction(),
                              absl::StrCat("is below ", kMinPeakShare, " of the HBM curve"));
  }
  if (c.compute_fraction() > 1) {
    return CalibrationRefusal(where, path + "compute_fraction", c.compute_fraction(),
                              absl::StrCat("is above 1 of the datasheet tensor peak: ", kBeatsPeak));
  }
  if (c.compute_fraction() != 0 && c.compute_fraction() < kMinPeakShare) {
    return CalibrationRefusal(where, path + "compute_fraction", c.compute_fraction(),
                              absl::StrCat("is outside {0} and [", kMinPeakShare, ", 1] of the tensor peak"));
  }
  return absl::OkStatus();
}

absl::Status CheckLaunchAndCollectives(const Calibration& p, absl::string_view where) {
  if (absl::Status s = CalibrationInRange(where, "launch.graph_s", p.launch().graph_s(), 0, kMaxOverheadS,
                                          "seconds between kernels replayed from a CUDA graph");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CalibrationInRange(where, "launch.eager_s", p.launch().eager_s(), 0, kMaxOverheadS,
                                          "host seconds per kernel issued eagerly");
      !s.ok()) {
    return s;
  }
  for (int t = 0; t < p.collectives_size(); ++t) {
    const CollectiveTable& table = p.collectives(t);
    for (int i = 0; i < table.points_size(); ++i) {
      if (absl::Status s =
              CalibrationInRange(where, absl::StrCat("collectives[", t, "].points[", i, "].seconds"),
                                 table.points(i).seconds(), 0, kMaxCollectiveS, "seconds of one measured collective");
          !s.ok()) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAgainstGpu(const Calibration& p, const GpuSpec& gpu, absl::string_view where) {
  if (absl::Status s = CheckGemmRanges(p.gemm(), where); !s.ok()) return s;
  if (absl::Status s = CheckTensorPeak(p.gemm(), gpu, where); !s.ok()) return s;
  double curve_max = 0;
  if (absl::Status s = CheckHbmCurve(p.hbm(), gpu, where, &curve_max); !s.ok()) return s;
  for (int i = 0; i < p.kernel_classes_size(); ++i) {
    if (absl::Status s = CheckKernelClass(p.kernel_classes(i), i, curve_max, gpu, where); !s.ok()) return s;
  }
  return CheckLaunchAndCollectives(p, where);
}

// Class 1. zero_input_tensor_gain is the one signed number (the fit bounds it to (-0.5, 1)):
// checked alone, the rest by the shared rule.
absl::Status CheckNumbers(const Calibration& profile, absl::string_view where) {
  Calibration unsigned_part = profile;
  unsigned_part.clear_zero_input_tensor_gain();
  NumberRule rule;
  rule.is_rate = [](absl::string_view field) { return absl::EndsWith(field, "bytes_per_s"); };
  if (absl::Status s = CheckMessageNumbers(unsigned_part, where, rule); !s.ok()) return s;
  const double gain = profile.zero_input_tensor_gain();
  if (!std::isfinite(gain) || gain <= -1 || gain > 1e3) {
    return CalibrationRefusal(where, "zero_input_tensor_gain", gain,
                              "is outside (-1, 1000]: the tensor rate of all-zero inputs is (1 + gain) x the model's");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateCalibration(const Calibration& profile, const GpuSpec& gpu, absl::string_view where) {
  if (absl::Status s = CheckNumbers(profile, where); !s.ok()) return s;
  absl::StatusOr<ResourceModel> model = ResourceModel::Create(gpu, ResourcesOf(profile));
  if (!model.ok()) return absl::InvalidArgumentError(absl::StrCat(where, ": ", model.status().message()));
  return CheckAgainstGpu(profile, gpu, where);
}

}  // namespace infergrid
