#include "hardware/resource_model.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "hardware/lower_bounds.h"

namespace infergrid {
namespace {

double CeilDiv(double a, double b) { return std::ceil(a / b); }

absl::Status BuildTable(const RateTable& source, absl::string_view what, std::vector<double>* log_x,
                        std::vector<double>* y) {
  double previous = 0;
  for (const RatePoint& p : source.points()) {
    if (!(p.bytes() > previous) || !(p.bytes_per_s() > 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": points need increasing positive bytes and positive bytes_per_s (at bytes ", p.bytes(), ")"));
    }
    previous = p.bytes();
    log_x->push_back(std::log(p.bytes()));
    y->push_back(p.bytes_per_s());
  }
  if (log_x->empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": no points"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ResourceModel> ResourceModel::Create(const GpuSpec& gpu, const ResourceCalibration& calibration) {
  const std::string where = absl::StrCat("calibration '", calibration.gpu(), "'");
  static std::atomic<uint64_t> next_id{1};
  ResourceModel model;
  model.id_ = next_id.fetch_add(1, std::memory_order_relaxed);
  model.gpu_ = gpu;
  model.calibration_ = calibration;
  if (gpu.sm_count() <= 0 || gpu.l2_bytes() <= 0 || gpu.hbm_bytes_per_s() <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("GPU '", gpu.name(),
                                                   "' needs sm_count, l2_bytes and hbm_bytes_per_s for the "
                                                   "calibrated cost model"));
  }
  model.sms_ = gpu.sm_count();
  model.cuda_peak_ = gpu.cuda_core_fp32_flops() > 0 ? gpu.cuda_core_fp32_flops() : gpu.tensor_peaks().fp16_flops() / 16;
  if (absl::Status s = model.SetGemmTiles(calibration.gemm(), where); !s.ok()) return s;
  if (absl::Status s = BuildTable(calibration.hbm(), absl::StrCat(where, ": hbm"), &model.hbm_.log_x, &model.hbm_.y);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = BuildTable(calibration.l2(), absl::StrCat(where, ": l2"), &model.l2_.log_x, &model.l2_.y);
      !s.ok()) {
    return s;
  }
  model.l2_peak_ = *std::max_element(model.l2_.y.begin(), model.l2_.y.end());
  if (!(calibration.l2_usable_fraction() > 0 && calibration.l2_usable_fraction() <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": l2_usable_fraction must be in (0, 1]"));
  }
  model.l2_usable_ = calibration.l2_usable_fraction() * static_cast<double>(gpu.l2_bytes());
  if (absl::Status s = model.SetKernelClasses(calibration, where); !s.ok()) return s;
  if (absl::Status s = model.SetAllReduceTables(calibration, where); !s.ok()) return s;
  return model;
}

absl::Status ResourceModel::SetGemmTiles(const GemmModel& g, const std::string& where) {
  if (!(g.peak_fraction() > 0) || g.tiles().empty() || !(g.per_sm_bytes_per_s() > 0) || g.min_split_k() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(where,
                     ": gemm needs peak_fraction > 0, per_sm_bytes_per_s > 0, min_split_k >= 1 and at "
                     "least one tile"));
  }
  if (!(g.partial_wave_discount() >= 0 && g.partial_wave_discount() <= 1) || !(g.fill_drain_k() >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": gemm needs partial_wave_discount in [0, 1] and fill_drain_k >= 0"));
  }
  for (const GemmTile& t : g.tiles()) {
    if (t.bm() <= 0 || t.bn() <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": gemm tiles must be positive"));
    }
    const double bm = t.bm(), bn = t.bn();
    tiles_.push_back({t.bm(), t.bn(), 1.0 / (1.0 + g.tile_penalty() * (bm + bn) / (bm * bn))});
  }
  double best_efficiency = 0;
  for (const TileEfficiency& t : tiles_) best_efficiency = std::max(best_efficiency, t.efficiency);
  best_tile_fraction_ = g.peak_fraction() * best_efficiency;
  return absl::OkStatus();
}

absl::Status ResourceModel::SetKernelClasses(const ResourceCalibration& calibration, const std::string& where) {
  std::array<bool, kNumKernelKinds> seen{};
  for (const KernelClassCalibration& c : calibration.kernel_classes()) {
    int index = -1;
    for (int i = 0; i < kNumKernelKinds; ++i) {
      if (KernelKindName(static_cast<KernelKind>(i)) == c.name()) index = i;
    }
    if (index < 0) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": unknown kernel class '", c.name(), "'"));
    }
    if (c.fixed_s() < 0 || c.bandwidth_fraction() <= 0 || c.compute_fraction() < 0 || c.per_item_bytes_per_s() < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": kernel class '", c.name(),
                       "' needs fixed_s >= 0, bandwidth_fraction > 0 and compute_fraction >= 0"));
    }
    classes_[static_cast<size_t>(index)] = {c.fixed_s(), c.bandwidth_fraction(), c.compute_fraction(),
                                            c.per_item_bytes_per_s()};
    seen[static_cast<size_t>(index)] = true;
  }
  for (int i = 0; i < kNumKernelKinds; ++i) {
    const KernelKind kind = static_cast<KernelKind>(i);
    if (IsCollective(kind)) continue;
    if (!seen[static_cast<size_t>(i)]) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": no kernel class '", KernelKindName(kind), "'"));
    }
  }
  return absl::OkStatus();
}

absl::Status ResourceModel::SetAllReduceTables(const ResourceCalibration& calibration, const std::string& where) {
  for (const CollectiveTable& table : calibration.collectives()) {
    if (table.collective() != "all_reduce") continue;
    Collective c;
    c.ranks = table.ranks();
    double previous = -1;
    for (const CollectivePoint& p : table.points()) {
      if (!(p.bytes() > previous) || !(p.seconds() > 0)) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": all_reduce table for ", table.ranks(),
                                                       " ranks needs increasing bytes and positive seconds"));
      }
      previous = p.bytes();
      c.bytes.push_back(p.bytes());
      c.seconds.push_back(p.seconds());
    }
    if (c.bytes.size() < 2 || c.ranks < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": an all_reduce table needs ranks >= 2 and at least two points"));
    }
    all_reduce_.push_back(std::move(c));
  }
  std::sort(all_reduce_.begin(), all_reduce_.end(),
            [](const Collective& a, const Collective& b) { return a.ranks < b.ranks; });
  return absl::OkStatus();
}

double ResourceModel::Interpolate(const Table& table, double x) {
  const double lx = std::log(std::max(x, 1.0));
  const size_t n = table.log_x.size();
  if (lx <= table.log_x[0]) return table.y[0];
  if (lx >= table.log_x[n - 1]) return table.y[n - 1];
  // The first point at or above lx (binary search: asked for every kernel of every iteration).
  const size_t i =
      static_cast<size_t>(std::lower_bound(table.log_x.begin() + 1, table.log_x.end(), lx) - table.log_x.begin());
  const double f = (lx - table.log_x[i - 1]) / (table.log_x[i] - table.log_x[i - 1]);
  return table.y[i - 1] + f * (table.y[i] - table.y[i - 1]);
}

double ResourceModel::HbmRate(double bytes) const { return Interpolate(hbm_, bytes); }
double ResourceModel::L2Rate(double working_set) const { return Interpolate(l2_, working_set); }

double ResourceModel::Spill(double reread, double footprint) const {
  if (reread <= 0 || footprint <= l2_usable_) return 0;
  return reread * (1.0 - l2_usable_ / footprint);
}

double ResourceModel::ResidentHits(double resident) const {
  if (resident <= 0) return 0;
  return resident <= l2_usable_ ? resident : l2_usable_;
}

double ResourceModel::CollectiveSeconds(KernelKind kind, int ranks, double bytes) const {
  if (ranks < 2 || bytes <= 0) return 0;
  if (all_reduce_.empty()) return 0;
  double size = bytes;
  double scale = 1;
  if (kind == KernelKind::kAllGather) {
    size = bytes * ranks;
    scale = 0.5;
  }
  // An all-to-all of S bytes a rank sends (W - 1) / W x S over each GPU's links, as a ring
  // all-reduce of S / 2 does (2 (W - 1) / W x S / 2), with one round of synchronisation: the
  // all-reduce table at S / 2. No all-to-all was measured.
  if (kind == KernelKind::kAllToAll) size = bytes / 2;
  // The table for this rank count, else the nearest larger one (or the largest).
  const Collective* table = &all_reduce_.back();
  for (const Collective& c : all_reduce_) {
    if (c.ranks >= ranks) {
      table = &c;
      break;
    }
  }
  const std::vector<double>& x = table->bytes;
  const std::vector<double>& y = table->seconds;
  const size_t n = x.size();
  double t;
  if (size <= x[0]) {
    t = y[0];
  } else if (size >= x[n - 1]) {
    const double slope = (y[n - 1] - y[n - 2]) / (x[n - 1] - x[n - 2]);
    t = y[n - 1] + std::max(0.0, slope) * (size - x[n - 1]);
  } else {
    size_t i = 1;
    while (x[i] < size) ++i;
    t = y[i - 1] + (size - x[i - 1]) / (x[i] - x[i - 1]) * (y[i] - y[i - 1]);
  }
  return scale * t;
}

namespace {

// What GemmTime reads of a Kernel, plus the model's id.
struct GemmKey {
  uint64_t model_id = 0;  // 0: an empty slot (ids start at 1)
  int64_t m = 0, n = 0, k = 0;
  int32_t groups = 0;
  DType dtype = DType::BF16;
  double weight_bytes = 0, activation_bytes = 0, hbm_bytes = 0, resident_bytes = 0, cuda_flops = 0;

  bool operator==(const GemmKey&) const = default;
};

GemmKey KeyOf(uint64_t model_id, const Kernel& kernel) {
  return {model_id,
          kernel.m,
          kernel.n,
          kernel.k,
          kernel.groups,
          kernel.tensor_dtype,
          kernel.weight_bytes_per_element,
          kernel.activation_bytes_per_element,
          kernel.hbm_bytes,
          kernel.resident_input_bytes,
          kernel.cuda_flops};
}

size_t SlotOf(const GemmKey& key, size_t slots) {
  // The shape and the row count decide which GEMM this is; the byte fields follow from them.
  uint64_t h = key.model_id * 0x9E3779B97F4A7C15ull;
  for (const int64_t v : {key.m, key.n, key.k, static_cast<int64_t>(key.groups)}) {
    h = (h ^ static_cast<uint64_t>(v)) * 0xBF58476D1CE4E5B9ull;
  }
  return static_cast<size_t>(h >> 32) & (slots - 1);
}

struct GemmCacheEntry {
  GemmKey key;
  KernelTime time;
};

// What GemmTime's tile search reads of the GEMM and of the profile: the same for every tile.
struct GemmInputs {
  double m = 0, n = 0, k = 0, groups = 0;
  double a = 0, w = 0;  // activation and weight bytes per element
  double peak_per_sm = 0;  // tensor FLOP/s of one SM at the profile's peak fraction
  double compulsory = 0;  // HBM bytes of any tiling (less the resident input L2 serves)
  double cuda_s = 0;
  double sms = 0, side = 0;  // side: sqrt(sms), the tiles of a square wave along M or N
  double l2_usable = 0;
  double per_sm_bytes_per_s = 0, discount = 0, k_overhead = 0, fill_drain_k = 0, min_split_k = 0;
  double overlap_penalty = 0;
};

// The HBM and L2 rates interpolate in log space; most tiles ask for the same byte count and
// working set as the tile before (the compulsory bytes; operands that fit), so a rate is
// looked up again only when its argument changes. Same arithmetic, fewer logs.
class RateMemo {
 public:
  // `l2_bytes_per_s` > 0: a fixed L2 rate instead of the table.
  RateMemo(const ResourceModel& model, double l2_bytes_per_s)
      : model_(model), l2_fixed_(l2_bytes_per_s > 0), l2_rate_(l2_fixed_ ? l2_bytes_per_s : 0) {}

  double Hbm(double bytes) {
    if (bytes != rate_bytes_) {
      rate_bytes_ = bytes;
      hbm_rate_ = model_.HbmRate(bytes);
    }
    return hbm_rate_;
  }
  double L2(double footprint) {
    if (!l2_fixed_ && footprint != rate_footprint_) {
      rate_footprint_ = footprint;
      l2_rate_ = model_.L2Rate(footprint);
    }
    return l2_rate_;
  }

 private:
  const ResourceModel& model_;
  const bool l2_fixed_;
  double rate_bytes_ = -1, hbm_rate_ = 0, rate_footprint_ = -1;
  double l2_rate_;
};

// The GEMM's time with one tile shape (bm x bn at `efficiency` of the peak).
struct TileCost {
  double tensor_s = 0, hbm_s = 0, l2_s = 0, busy = 0;
  double hbm_bytes = 0, loads = 0;
  double split = 1, waves = 0;
};

// `cannot_beat`: the best busy time so far (infinity for none). A tile whose tensor or CUDA-core
// time alone reaches it cannot win, since the memory terms only add to that (overlap_penalty
// >= 0): its cost is returned as infinity without the memory terms and their rate lookups.
TileCost CostOfTile(const GemmInputs& in, double bm, double bn, double efficiency, RateMemo& rates,
                    double cannot_beat) {
  const double m = in.m, n = in.n, k = in.k, groups = in.groups, a = in.a, w = in.w, sms = in.sms;
  const double min_split_k = in.min_split_k, discount = in.discount;
  const double tm = CeilDiv(m, bm), tn = CeilDiv(n, bn);
  const double tiles = tm * tn * groups;
  double split = 1;
  if (tiles < sms) {
    split = std::max(1.0, std::min(std::floor(sms / tiles), std::floor(k / min_split_k)));
  }
  const double ctas = tiles * split;
  const double waves = CeilDiv(ctas, sms);
  // The last wave, filled to `filled` of the SMs, costs 1 - discount * (1 - filled) of a full
  // one (stream-K over the leftover tiles), but at least one min_split_k slice of the K loop.
  const double k_per_cta = k / split;
  const double filled = ctas / sms - (waves - 1);
  const double last_wave = std::max(1.0 - discount * (1.0 - filled), std::min(1.0, min_split_k / k_per_cta));
  const double tile_flops = 2.0 * bm * bn / (in.peak_per_sm * efficiency);
  const double tensor_s = tile_flops * ((waves - 1 + last_wave) * (k_per_cta + in.k_overhead) + in.fill_drain_k);
  if (in.overlap_penalty >= 0 && std::max(tensor_s, in.cuda_s) >= cannot_beat) {
    TileCost beaten;
    beaten.busy = std::numeric_limits<double>::infinity();
    return beaten;
  }
  // Tile loads: X once per N-tile, W once per M-tile; split-K adds fp32 partials.
  const double partials = split > 1 ? 2.0 * m * n * 4.0 * split * groups : 0;
  const double loads = groups * (m * k * a * tn + n * k * w * tm + m * n * a) + partials;
  // Rule 3: the tiles of a wave run their K loops together, so a panel shared within the
  // wave comes from HBM once; a later wave fetches its panels again unless X and W fit in L2.
  double hbm_bytes = in.compulsory + partials;
  const double operands = groups * (m * k * a + n * k * w);
  if (operands > in.l2_usable && tm * tn > sms) {
    const double wave_panels = std::min(tm, in.side) * bm * k * a + std::min(tn, in.side) * bn * k * w;
    const double streamed = waves * wave_panels + groups * m * n * a + partials;
    hbm_bytes = std::max(hbm_bytes, std::min(streamed, loads));
  }
  const double footprint = std::min(operands, std::min(tm, in.side) * bm * k * a + std::min(tn, in.side) * bn * k * w);
  const double hbm_rate = rates.Hbm(hbm_bytes);
  const double l2_rate = rates.L2(footprint);
  // Memory-level parallelism: at most min(ctas, sm_count) SMs stream, each at the per-SM rate.
  const double stream_rate = ctas > 0 ? std::min(hbm_rate, std::min(ctas, sms) * in.per_sm_bytes_per_s) : hbm_rate;
  TileCost cost;
  cost.tensor_s = tensor_s;
  cost.hbm_s = hbm_bytes / stream_rate;
  cost.l2_s = loads / l2_rate;
  cost.busy =
      std::max({tensor_s, cost.hbm_s, cost.l2_s, in.cuda_s}) + in.overlap_penalty * std::min(tensor_s, cost.hbm_s);
  cost.hbm_bytes = hbm_bytes;
  cost.loads = loads;
  cost.split = split;
  cost.waves = waves;
  return cost;
}

}  // namespace

KernelTime ResourceModel::CachedGemmTime(const Kernel& kernel) const {
  constexpr size_t kSlots = 256;  // a power of two; a few iterations' GEMMs of a few models
  thread_local std::array<GemmCacheEntry, kSlots> cache;
  const GemmKey key = KeyOf(id_, kernel);
  GemmCacheEntry& entry = cache[SlotOf(key, kSlots)];
  if (entry.key == key) return entry.time;
  entry.key = key;
  entry.time = GemmTime(kernel);
  return entry.time;
}

KernelTime ResourceModel::GemmTime(const Kernel& kernel) const {
  const GemmModel& g = calibration_.gemm();
  // FP4 GEMMs (Blackwell) take the fp8 share of their own peak: the nearest low-precision
  // efficiency a profile measures (no FP4 measurement exists yet).
  const bool low_precision = kernel.tensor_dtype == DType::FP8_E4M3 || kernel.tensor_dtype == DType::FP8_E5M2 ||
                             kernel.tensor_dtype == DType::FP4_E2M1;
  const double fraction = low_precision && g.fp8_peak_fraction() > 0 ? g.fp8_peak_fraction() : g.peak_fraction();
  GemmInputs in;
  in.peak_per_sm = PeakTensorFlops(gpu_, kernel.tensor_dtype) * fraction / sms_;
  in.m = static_cast<double>(kernel.m);
  in.n = static_cast<double>(kernel.n);
  in.k = static_cast<double>(kernel.k);
  in.groups = kernel.groups;
  in.a = kernel.activation_bytes_per_element;
  in.w = kernel.weight_bytes_per_element;
  in.compulsory = kernel.hbm_bytes - ResidentHits(kernel.resident_input_bytes);
  in.cuda_s = kernel.cuda_flops / cuda_peak_;
  in.sms = sms_;
  in.side = std::sqrt(sms_);
  in.l2_usable = l2_usable_;
  in.per_sm_bytes_per_s = g.per_sm_bytes_per_s();
  in.discount = g.partial_wave_discount();
  in.k_overhead = g.k_overhead();
  in.fill_drain_k = g.fill_drain_k();
  in.min_split_k = g.min_split_k();
  in.overlap_penalty = g.overlap_penalty();
  RateMemo rates(*this, g.l2_bytes_per_s());

  KernelTime best;
  best.seconds = -1;
  for (const TileEfficiency& tile : tiles_) {
    const double cannot_beat = best.seconds < 0 ? std::numeric_limits<double>::infinity() : best.busy_s;
    const TileCost c = CostOfTile(in, tile.bm, tile.bn, tile.efficiency, rates, cannot_beat);
    if (best.seconds < 0 || c.busy < best.busy_s) {
      best.busy_s = c.busy;
      best.seconds = c.busy;
      best.tensor_s = c.tensor_s;
      best.cuda_s = in.cuda_s;
      best.hbm_s = c.hbm_s;
      best.l2_s = c.l2_s;
      best.hbm_bytes = c.hbm_bytes;
      best.l2_bytes = c.loads;
      best.tile_m = tile.bm;
      best.tile_n = tile.bn;
      best.split_k = static_cast<int>(c.split);
      best.waves = static_cast<int>(c.waves);
    }
  }
  return best;
}

KernelTime ResourceModel::Time(const Kernel& kernel) const {
  KernelTime t;
  if (IsCollective(kernel.kind)) {
    t.network_s = CollectiveSeconds(kernel.kind, kernel.ranks, kernel.collective_bytes);
    t.busy_s = t.network_s;
    t.seconds = t.network_s;
    t.binding = Resource::kNetwork;
    return t;
  }
  const ClassParams& c = classes_[static_cast<size_t>(kernel.kind)];
  if (kernel.kind == KernelKind::kGemm) {
    t = CachedGemmTime(kernel);
  } else {
    const double hbm = kernel.hbm_bytes - ResidentHits(kernel.resident_input_bytes) +
                       Spill(kernel.reread_bytes, kernel.reread_footprint_bytes);
    t.hbm_bytes = hbm;
    t.l2_bytes = kernel.hbm_bytes + kernel.reread_bytes;
    double rate = c.bandwidth_fraction * HbmRate(hbm);
    if (kernel.parallel_work_items > 0) {
      const double per_item =
          c.per_item_bytes_per_s > 0 ? c.per_item_bytes_per_s : calibration_.gemm().per_sm_bytes_per_s();
      // Several small blocks share an SM, so the item count is not capped at sm_count here.
      rate = std::min(rate, kernel.parallel_work_items * per_item);
    }
    t.hbm_s = hbm > 0 ? hbm / rate : 0;
    const double working_set = std::max(kernel.reread_footprint_bytes, kernel.hbm_bytes);
    t.l2_s = t.l2_bytes / L2Rate(working_set);
    const double tensor_fraction = c.compute_fraction > 0 ? c.compute_fraction : best_tile_fraction_;
    const double peak = PeakTensorFlops(gpu_, kernel.tensor_dtype);
    t.tensor_s = kernel.tensor_flops > 0 && peak > 0 ? kernel.tensor_flops / (peak * tensor_fraction) : 0;
    t.cuda_s = kernel.cuda_flops / cuda_peak_;
    t.busy_s = std::max({t.hbm_s, t.l2_s, t.tensor_s, t.cuda_s});
  }
  t.fixed_s = c.fixed_s;
  t.seconds = kernel.kind == KernelKind::kGemm ? t.busy_s + t.fixed_s : std::max(t.busy_s, t.fixed_s);
  const double largest = std::max({t.tensor_s, t.cuda_s, t.hbm_s, t.l2_s});
  if (t.fixed_s > largest) {
    t.binding = Resource::kOverhead;
  } else if (largest == t.hbm_s) {
    t.binding = Resource::kHbm;
  } else if (largest == t.l2_s) {
    t.binding = Resource::kL2;
  } else {
    t.binding = Resource::kCompute;
  }
  return t;
}

}  // namespace infergrid
