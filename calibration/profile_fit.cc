#include "calibration/profile_fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/median.h"
#include "calibration/calibration_checks.h"
#include "calibration/extrapolate.h"
#include "calibration/measurements_fit.h"
#include "calibration/nelder_mead.h"
#include "calibration/profile_catalog.h"
#include "calibration/profile_inputs.h"
#include "hardware/gpu_catalog.h"
#include "hardware/lower_bounds.h"

namespace infergrid {
namespace {

constexpr double kLargeLoss = 1e9;

const std::map<std::string, std::string>& VidurOpToKernel() {
  static const auto* map = new std::map<std::string, std::string>{
      {"emb", "embedding"},
      {"input_layernorm", "input_norm"},
      {"attn_pre_proj", "qkv_proj"},
      {"attn_rope", "rope"},
      {"attn_post_proj", "o_proj"},
      {"post_attention_layernorm", "post_attention_norm"},
      {"mlp_up_proj", "gate_up_proj"},
      {"mlp_act", "act"},
      {"mlp_down_proj", "down_proj"},
      {"add", "residual_add"},
  };
  return *map;
}

// Achieved HBM streaming rate over transfer size s: peak * r_max / (1 + (s_half / s)^a),
// tabulated at powers of two from 4 KiB to 64 GiB.
RateTable HbmCurve(double peak, double r_max, double half_bytes, double exponent) {
  RateTable table;
  for (int e = 12; e <= 36; ++e) {
    const double s = std::ldexp(1.0, e);
    RatePoint* p = table.add_points();
    p->set_bytes(s);
    p->set_bytes_per_s(peak * r_max / (1.0 + std::pow(half_bytes / s, exponent)));
  }
  return table;
}

RateTable FlatTable(double rate, const std::string& source) {
  RateTable table;
  for (double s : {4096.0, 68719476736.0}) {
    RatePoint* p = table.add_points();
    p->set_bytes(s);
    p->set_bytes_per_s(rate);
  }
  table.set_source(source);
  return table;
}

KernelClassCalibration* FindClass(Calibration* profile, absl::string_view name) {
  for (KernelClassCalibration& c : *profile->mutable_kernel_classes()) {
    if (c.name() == name) return &c;
  }
  KernelClassCalibration* c = profile->add_kernel_classes();
  c->set_name(std::string(name));
  return c;
}

// Weights that give every octave of M (num_tokens) the same total weight: the published
// tables sample large M densely and decode-sized M sparsely, and decode matters as much.
std::vector<double> OctaveWeights(const std::vector<const KernelSample*>& rows) {
  std::map<int, int> count;
  for (const KernelSample* s : rows) ++count[std::ilogb(static_cast<double>(std::max<int64_t>(1, s->tokens)))];
  std::vector<double> w;
  for (const KernelSample* s : rows) {
    w.push_back(1.0 / (count[std::ilogb(static_cast<double>(std::max<int64_t>(1, s->tokens)))] *
                       static_cast<double>(count.size())));
  }
  return w;
}

double WeightedLogError(const SamplePredictor& predictor, const std::vector<const KernelSample*>& rows,
                        const std::vector<double>& weights) {
  double loss = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    loss += weights[i] * std::abs(std::log(predictor.Seconds(*rows[i]) / rows[i]->measured_s));
  }
  return loss;
}

// The GEMM model's parameters as the fit moves them: the largest tile's share of the peak
// instead of peak_fraction (so "no tile beats the datasheet peak" is a bound of its own), rates
// and sizes in log10, costs in microseconds or K elements.
struct GemmParams {
  double best_tile_fraction = 0.8;  // peak_fraction / (1 + tile_penalty / intensity of the largest tile)
  double k_overhead = 128;
  double tile_penalty = 10;
  double overlap = 0.2;
  double log10_per_sm_gbps = 1.5;
  double hbm_max = 0.85;
  double log10_hbm_half_mb = 0;
  double hbm_exponent = 1;
  double fixed_us = 2.5;
  double discount = 0.5;
  double fill_drain_k = 200;
  double zero_input_gain = 0;
  bool fit_zero_input = false;  // only when some rows had all-zero inputs

  GemmParams With(const std::vector<double>& x) const {
    GemmParams p = *this;
    p.best_tile_fraction = x[0];
    p.k_overhead = x[1];
    p.tile_penalty = x[2];
    p.overlap = x[3];
    p.log10_per_sm_gbps = x[4];
    p.hbm_max = x[5];
    p.log10_hbm_half_mb = x[6];
    p.hbm_exponent = x[7];
    p.fixed_us = x[8];
    p.discount = x[9];
    p.fill_drain_k = x[10];
    if (fit_zero_input) p.zero_input_gain = x[11];
    return p;
  }
  std::vector<double> Vector() const {
    std::vector<double> v = {best_tile_fraction, k_overhead,   tile_penalty, overlap,  log10_per_sm_gbps, hbm_max,
                             log10_hbm_half_mb,  hbm_exponent, fixed_us,     discount, fill_drain_k};
    if (fit_zero_input) v.push_back(zero_input_gain);
    return v;
  }
  std::vector<double> Steps() const {
    std::vector<double> v = {0.05, 64, 10, 0.1, 0.2, 0.03, 0.5, 0.2, 0.5, 0.2, 100};
    if (fit_zero_input) v.push_back(0.05);
    return v;
  }
  bool InBounds() const {
    return best_tile_fraction > 0.2 && best_tile_fraction <= 1.0 && k_overhead >= 0 && k_overhead < 8192 &&
           tile_penalty >= 0 && tile_penalty < 500 && overlap >= 0 && overlap <= 1 && log10_per_sm_gbps > 0 &&
           log10_per_sm_gbps < 3 && hbm_max > 0.2 && hbm_max <= 1.0 && log10_hbm_half_mb > -3 &&
           log10_hbm_half_mb < 4 && hbm_exponent > 0.2 && hbm_exponent < 4 && fixed_us >= 0 && fixed_us < 50 &&
           discount >= 0 && discount <= 1 && fill_drain_k >= 0 && fill_drain_k < 8192 && zero_input_gain > -0.5 &&
           zero_input_gain < 1;
  }
  // `best_intensity`: bm*bn/(bm+bn) of the largest tile.
  void Apply(const GpuSpec& gpu, double best_intensity, Calibration* profile) const {
    GemmModel* g = profile->mutable_gemm();
    g->set_peak_fraction(best_tile_fraction * (1 + tile_penalty / best_intensity));
    g->set_k_overhead(k_overhead);
    g->set_tile_penalty(tile_penalty);
    g->set_overlap_penalty(overlap);
    g->set_per_sm_bytes_per_s(std::pow(10.0, log10_per_sm_gbps) * 1e9);
    g->set_partial_wave_discount(discount);
    g->set_fill_drain_k(fill_drain_k);
    profile->set_zero_input_tensor_gain(zero_input_gain);
    const std::string source = profile->hbm().source();
    *profile->mutable_hbm() =
        HbmCurve(gpu.hbm_bytes_per_s(), hbm_max, std::pow(10.0, log10_hbm_half_mb) * 1e6, hbm_exponent);
    profile->mutable_hbm()->set_source(source);
    FindClass(profile, "gemm")->set_fixed_s(fixed_us * 1e-6);
  }
};

// The first number in `text` ("~100 (of 3352 GB/s)" -> 100).
bool FirstNumber(absl::string_view text, double* value) {
  size_t i = 0;
  while (i < text.size() && !absl::ascii_isdigit(static_cast<unsigned char>(text[i]))) ++i;
  size_t j = i;
  while (j < text.size() && (absl::ascii_isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.')) ++j;
  return j > i && absl::SimpleAtod(text.substr(i, j - i), value);
}

// The number before `unit` inside the first parentheses ("3.538 ms (661 TFLOPS)" -> 661).
bool NumberBefore(absl::string_view text, absl::string_view unit, double* value) {
  const size_t at = text.find(unit);
  if (at == absl::string_view::npos) return false;
  size_t start = at;
  while (start > 0 && (absl::ascii_isdigit(static_cast<unsigned char>(text[start - 1])) || text[start - 1] == '.' ||
                       text[start - 1] == ' ')) {
    --start;
  }
  return absl::SimpleAtod(absl::StripAsciiWhitespace(text.substr(start, at - start)), value);
}

// Applies the published H100 figures: fp8 GEMM rate relative to bf16 (F26, F27), the
// FlashAttention-3 forward rate (F32) and the decode-attention bandwidth (F34). Figures for
// other GPUs are left out (the table's hardware column says which GPU each is).
void ApplyMicrobenchmarks(const GpuSpec& gpu, const std::vector<Microbenchmark>& rows, const std::string& path,
                          Calibration* profile) {
  std::map<std::string, const Microbenchmark*> by_id;
  for (const Microbenchmark& r : rows) {
    if (absl::StrContains(r.hardware, "H100")) by_id[r.id] = &r;
  }
  const bool h100 = absl::StrContains(gpu.reported_name(), "H100") || gpu.name() == "h100-sxm";
  if (!h100) {
    profile->add_notes(absl::StrCat(path, ": figures are for H100; not applied to ", gpu.name()));
    return;
  }
  double bf16 = 0, fp8 = 0;
  if (by_id.count("F26") && by_id.count("F27") && FirstNumber(by_id["F26"]->value, &bf16) &&
      FirstNumber(by_id["F27"]->value, &fp8) && gpu.tensor_peaks().fp8_flops() > 0) {
    const double bf16_share = bf16 * 1e12 / gpu.tensor_peaks().fp16_flops();
    const double fp8_share = fp8 * 1e12 / gpu.tensor_peaks().fp8_flops();
    profile->mutable_gemm()->set_fp8_peak_fraction(profile->gemm().peak_fraction() * fp8_share / bf16_share);
    profile->add_notes(
        absl::StrFormat("gemm.fp8_peak_fraction = peak_fraction x (fp8 MAMF %.1f%% of peak, F27) / (bf16 MAMF "
                        "%.1f%% of peak, F26) from %s",
                        100 * fp8_share, 100 * bf16_share, path));
  }
  double tflops = 0;
  if (by_id.count("F32") && NumberBefore(by_id["F32"]->value, "TFLOPS", &tflops)) {
    KernelClassCalibration* c = FindClass(profile, "attention_prefill");
    c->set_compute_fraction(tflops * 1e12 / gpu.tensor_peaks().fp16_flops());
    c->set_source(
        absl::StrFormat("compute_fraction: FlashAttention-3 forward %.0f TFLOP/s of %.1f (F32 in %s); fixed_s: the "
                        "fitted GEMM fixed cost (no attention timing at small sizes in the inputs)",
                        tflops, gpu.tensor_peaks().fp16_flops() / 1e12, path));
  }
  double percent = 0;
  if (by_id.count("F34") && FirstNumber(by_id["F34"]->value, &percent)) {
    double curve_max = 0;
    for (const RatePoint& p : profile->hbm().points()) curve_max = std::max(curve_max, p.bytes_per_s());
    const double fraction = std::min(1.0, percent / 100 * gpu.hbm_bytes_per_s() / curve_max);
    KernelClassCalibration* c = FindClass(profile, "attention_decode");
    c->set_bandwidth_fraction(fraction);
    c->set_source(
        absl::StrFormat("bandwidth_fraction: FlashInfer decode attention at ~%.0f%% of HBM peak at long context "
                        "(F34 in %s), capped at the GEMM-fitted streaming curve; fixed_s: the fitted GEMM fixed cost",
                        percent, path));
  }
  double low = 0;
  if (by_id.count("F35") && FirstNumber(by_id["F35"]->value, &low)) {
    double curve_max = 0;
    for (const RatePoint& p : profile->hbm().points()) curve_max = std::max(curve_max, p.bytes_per_s());
    profile->add_notes(
        absl::StrFormat("cross-check: device memcpy %.2f TB/s (F35, read+write counted) vs the GEMM-fitted "
                        "streaming ceiling %.2f TB/s",
                        low / 1000, curve_max / 1e12));
  }
}

// Adds the collective tables of `other` (another GPU's profile, read from `path`), scaled to
// `gpu`'s interconnect, for the rank counts `profile` has no table of: a measured table, even
// of another GPU, beats none.
absl::Status AddScaledCollectives(const GpuSpec& gpu, const Calibration& other, const std::string& path,
                                  Calibration* profile) {
  absl::StatusOr<GpuSpec> other_gpu = ResolveGpu(other.gpu());
  if (!other_gpu.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", other_gpu.status().message()));
  // Checked as any profile given by file is (its collective tables are all this reads of it).
  if (absl::Status s = ValidateCalibration(other, *other_gpu, path); !s.ok()) return s;
  absl::StatusOr<Calibration> scaled = ExtrapolateProfile(other, *other_gpu, gpu, "");
  if (!scaled.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", scaled.status().message()));
  for (const CollectiveTable& t : scaled->collectives()) {
    bool present = false;
    for (const CollectiveTable& existing : profile->collectives()) present |= existing.ranks() == t.ranks();
    if (present) continue;
    CollectiveTable* added = profile->add_collectives();
    *added = t;
    added->set_source(absl::StrCat("extrapolated from ", path, ": ", t.source()));
  }
  return absl::OkStatus();
}

// Fits the GEMM model and the HBM streaming curve to `gemms` and writes them into `profile`:
// first the curve and the fixed cost from the memory-bound rows (`small`, M <= 16), then
// everything over all rows.
void FitGemmModel(const GpuSpec& gpu, const std::vector<const KernelSample*>& gemms,
                  const std::vector<const KernelSample*>& small, Calibration* profile) {
  // While the GEMM model is fitted, L2 does not bind GEMMs: their L2 ceiling is set afterwards
  // to the lowest rate the measured GEMMs allow.
  profile->mutable_gemm()->set_l2_bytes_per_s(1e16);
  double best_intensity = 0;
  for (const GemmTile& t : profile->gemm().tiles()) {
    best_intensity = std::max(best_intensity, 1.0 * t.bm() * t.bn() / (t.bm() + t.bn()));
  }
  GemmParams params;
  for (const KernelSample* s : gemms) params.fit_zero_input |= s->zero_input;
  Calibration work = *profile;
  auto gemm_loss = [&](const std::vector<const KernelSample*>& rows, const std::vector<double>& weights,
                       const GemmParams& p) {
    if (!p.InBounds()) return kLargeLoss;
    p.Apply(gpu, best_intensity, &work);
    absl::StatusOr<SamplePredictor> predictor = SamplePredictor::Create(gpu, work);
    if (!predictor.ok()) return kLargeLoss;
    return WeightedLogError(*predictor, rows, weights);
  };
  // Stage 1: the streaming curve and the fixed cost from the memory-bound rows (M <= 16).
  if (!small.empty()) {
    const std::vector<double> w = OctaveWeights(small);
    MinimizeResult r = NelderMead(
        [&](const std::vector<double>& x) {
          GemmParams p = params;
          p.hbm_max = x[0];
          p.log10_hbm_half_mb = x[1];
          p.hbm_exponent = x[2];
          p.fixed_us = x[3];
          return gemm_loss(small, w, p);
        },
        {params.hbm_max, params.log10_hbm_half_mb, params.hbm_exponent, params.fixed_us}, {0.05, 0.5, 0.3, 1.0}, 600);
    params.hbm_max = r.x[0];
    params.log10_hbm_half_mb = r.x[1];
    params.hbm_exponent = r.x[2];
    params.fixed_us = r.x[3];
  }
  // Stage 2: everything, over all GEMM rows.
  // Half of the weight balanced per octave of M (decode-sized rows count), half per row (the
  // tables' dense large-M rows are most of what a prefill costs).
  std::vector<double> w = OctaveWeights(gemms);
  for (double& x : w) x = 0.5 * x + 0.5 / static_cast<double>(w.size());
  MinimizeResult r = NelderMead([&](const std::vector<double>& x) { return gemm_loss(gemms, w, params.With(x)); },
                                params.Vector(), params.Steps(), 1500);
  params = params.With(r.x);
  params.Apply(gpu, best_intensity, profile);
  profile->mutable_hbm()->set_source(
      "fitted: peak x r_max / (1 + (s_half / s)^a) from the GEMM rows (memory-bound M <= 16 "
      "first, then jointly with the GEMM efficiency)");
  FindClass(profile, "gemm")->set_bandwidth_fraction(1.0);
  FindClass(profile, "gemm")->set_source("fitted from the GEMM rows");
}

// L2: the lowest rate at which every measured GEMM's tile traffic fits in its measured time.
absl::Status SetL2FromGemms(const GpuSpec& gpu, const std::vector<const KernelSample*>& gemms, Calibration* profile) {
  absl::StatusOr<ResourceModel> model = ResourceModel::Create(gpu, ResourcesOf(*profile));
  if (!model.ok()) return model.status();
  double implied = 0;
  for (const KernelSample* s : gemms) {
    const KernelTime t = model->Time(s->kernel);
    const double busy = s->measured_s - t.fixed_s;
    if (busy > 0) implied = std::max(implied, t.l2_bytes / busy);
  }
  profile->mutable_gemm()->set_l2_bytes_per_s(implied);
  // Without an L2 sweep (a Measurements input replaces this later), the other kernels get
  // the same lower bound.
  *profile->mutable_l2() = FlatTable(implied,
                                     "lower bound from the GEMM rows: the largest tile traffic (X once per N-tile, W "
                                     "once per M-tile) per measured second; no input measures L2 directly");
  return absl::OkStatus();
}

// A small-kernel class's fixed cost and bandwidth fraction, fitted to its `rows`.
void FitKernelClass(const GpuSpec& gpu, const std::string& name, const std::vector<const KernelSample*>& rows,
                    Calibration* profile) {
  const std::vector<double> cw = OctaveWeights(rows);
  KernelClassCalibration* c = FindClass(profile, name);
  Calibration trial = *profile;
  KernelClassCalibration* tc = FindClass(&trial, name);
  // Parameters: fixed cost (us), bandwidth fraction, per-item rate (GB/s, log10).
  auto loss = [&](const std::vector<double>& x) {
    if (x[0] < 0 || x[0] > 100 || x[1] <= 0.01 || x[1] > 3 || x[2] < -1 || x[2] > 4) return kLargeLoss;
    tc->set_fixed_s(x[0] * 1e-6);
    tc->set_bandwidth_fraction(x[1]);
    tc->set_per_item_bytes_per_s(std::pow(10.0, x[2]) * 1e9);
    absl::StatusOr<SamplePredictor> predictor = SamplePredictor::Create(gpu, trial);
    if (!predictor.ok()) return kLargeLoss;
    return WeightedLogError(*predictor, rows, cw);
  };
  // A coarse grid first: the loss has flat regions where the fixed cost hides the rates.
  std::vector<double> start = {2.0, 0.5, 1.5};
  double best = kLargeLoss;
  for (double fixed_us : {1.0, 2.0, 4.0}) {
    for (double fraction : {0.1, 0.2, 0.4, 0.7, 1.0}) {
      for (double per_item : {0.5, 1.0, 1.5, 2.0, 3.0}) {
        const double l = loss({fixed_us, fraction, per_item});
        if (l < best) {
          best = l;
          start = {fixed_us, fraction, per_item};
        }
      }
    }
  }
  MinimizeResult cr = NelderMead(loss, start, {0.5 * start[0], 0.3 * start[1], 0.3}, 400);
  c->set_fixed_s(cr.x[0] * 1e-6);
  c->set_bandwidth_fraction(cr.x[1]);
  c->set_per_item_bytes_per_s(std::pow(10.0, cr.x[2]) * 1e9);
  std::set<std::string> ops;
  for (const KernelSample* s : rows) ops.insert(s->op);
  c->set_source(absl::StrCat("fitted from ", rows.size(), " rows (", absl::StrJoin(ops, ", "), ")"));
}

// Priors for the classes no row measured, borrowed from the fitted classes that behave alike.
void FillUnmeasuredClasses(const std::map<std::string, std::vector<const KernelSample*>>& by_class,
                           Calibration* profile) {
  // Unmeasured classes that move activations the way a residual add does.
  if (by_class.count("residual_add")) {
    const KernelClassCalibration add = *FindClass(profile, "residual_add");
    for (const char* name : {"kv_cache_write", "moe_routing", "sampler"}) {
      if (by_class.count(name)) continue;
      KernelClassCalibration* c = FindClass(profile, name);
      c->set_fixed_s(add.fixed_s());
      c->set_bandwidth_fraction(add.bandwidth_fraction());
      c->set_per_item_bytes_per_s(add.per_item_bytes_per_s());
      c->set_source(
          "prior: the fitted residual_add class (reads and writes activation-sized "
          "tensors the same way); no input measures this kernel");
    }
  }
  const double gemm_fixed = FindClass(profile, "gemm")->fixed_s();
  for (const char* name : {"attention_prefill", "attention_decode"}) {
    if (by_class.count(name)) continue;
    KernelClassCalibration* c = FindClass(profile, name);
    c->set_fixed_s(gemm_fixed);
    if (std::string(name) == "attention_decode") c->set_bandwidth_fraction(1.0);
    c->set_source(
        "prior: the fitted GEMM fixed cost; decode streams at the GEMM-fitted curve, prefill at "
        "half the tensor peak (no attention timing in the inputs)");
  }
}

// The fitted profile's error per op over the rows it was fitted to.
absl::Status AddFitQuality(const GpuSpec& gpu, const std::vector<KernelSample>& samples, Calibration* profile) {
  absl::StatusOr<SamplePredictor> predictor = SamplePredictor::Create(gpu, *profile);
  if (!predictor.ok()) return predictor.status();
  const std::vector<SampleError> errors = Predict(*predictor, samples);
  for (const OpError& e : SummarizeErrors(errors)) {
    FitQuality* q = profile->add_fit_quality();
    q->set_op(e.op);
    q->set_rows(e.rows);
    q->set_mape(e.mape);
    q->set_median_abs_error_s(e.median_abs_error_s);
  }
  return absl::OkStatus();
}

// The measured GEMMs at power-of-two M, kept in the profile as reference points.
void AddGemmReferences(const std::vector<KernelSample>& samples, Calibration* profile) {
  std::set<std::string> referenced;
  for (const KernelSample& s : samples) {
    if (s.kernel.kind != KernelKind::kGemm || (s.tokens & (s.tokens - 1)) != 0) continue;
    // The first row of each (op, TP, M); the tables repeat a few M values.
    if (!referenced.insert(absl::StrCat(s.op, "/", s.tensor_parallel, "/", s.tokens)).second) continue;
    GemmReference* ref = profile->add_gemm_reference();
    ref->set_op(absl::StrCat(s.op, " tp", s.tensor_parallel));
    ref->set_m(s.kernel.m);
    ref->set_n(s.kernel.n);
    ref->set_k(s.kernel.k);
    ref->set_measured_s(s.measured_s);
  }
}

}  // namespace

absl::StatusOr<SamplePredictor> SamplePredictor::Create(const GpuSpec& gpu, const Calibration& profile) {
  absl::StatusOr<ResourceModel> model = ResourceModel::Create(gpu, ResourcesOf(profile));
  if (!model.ok()) return model.status();
  ResourceCalibration zero = ResourcesOf(profile);
  const double gain = 1 + profile.zero_input_tensor_gain();
  zero.mutable_gemm()->set_peak_fraction(zero.gemm().peak_fraction() * gain);
  zero.mutable_gemm()->set_fp8_peak_fraction(zero.gemm().fp8_peak_fraction() * gain);
  absl::StatusOr<ResourceModel> zero_input = ResourceModel::Create(gpu, zero);
  if (!zero_input.ok()) return zero_input.status();
  return SamplePredictor(*std::move(model), *std::move(zero_input));
}

double SamplePredictor::Seconds(const KernelSample& sample) const {
  const ResourceModel& m = sample.zero_input ? zero_input_ : model_;
  return sample.launches * m.Time(sample.kernel).seconds;
}

absl::StatusOr<std::vector<KernelSample>> SamplesFromVidurOps(const VidurOpsTable& table,
                                                              std::vector<std::string>* skipped) {
  const bool parallel_block =
      std::find(table.ops.begin(), table.ops.end(), "post_attention_layernorm") == table.ops.end();
  std::set<std::string> skipped_notes;
  std::vector<KernelSample> samples;
  IterationKernels kernels;
  for (const VidurOpsRow& row : table.rows) {
    const std::string where = absl::StrCat(table.path, ":", row.line);
    if (row.n_embd % row.n_head != 0) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": n_embd is not a multiple of n_head"));
    }
    ModelSpec spec;
    spec.set_name("vidur-row");
    spec.set_num_layers(1);
    spec.set_hidden_size(row.n_embd);
    spec.set_ffn_dim(row.n_expanded_embd);
    spec.set_num_attention_heads(row.n_head);
    spec.set_num_kv_heads(row.n_kv_head);
    spec.set_head_dim(static_cast<int32_t>(row.n_embd / row.n_head));
    spec.set_vocab_size(row.vocab_size);
    spec.set_gated_mlp(row.use_gated_mlp);
    IterationKernelOptions options;
    options.tensor_parallel = row.tensor_parallel;
    absl::StatusOr<IterationKernelBuilder> builder = IterationKernelBuilder::Create(spec, options);
    if (!builder.ok()) return absl::InvalidArgumentError(absl::StrCat(where, ": ", builder.status().message()));
    BatchShape batch;
    batch.prefill.push_back({row.num_tokens, 0});
    builder->Build(batch, &kernels);
    for (const auto& [op, seconds] : row.median_s) {
      auto it = VidurOpToKernel().find(op);
      if (it == VidurOpToKernel().end()) continue;
      if (op == "input_layernorm" && parallel_block) {
        skipped_notes.insert(
            "input_layernorm (a parallel block's torch LayerNorm, not the fused RMSNorm the "
            "simulator prices)");
        continue;
      }
      if (op == "mlp_act" && !row.use_gated_mlp) {
        skipped_notes.insert(
            "mlp_act (a non-gated MLP's torch GELU, not the fused SiLU-and-multiply the "
            "simulator prices)");
        continue;
      }
      std::string kernel_name = it->second;
      if (op == "mlp_up_proj" && !row.use_gated_mlp) kernel_name = "up_proj";
      const Kernel* match = nullptr;
      for (const Kernel& k : kernels) {
        if (kernel_name == k.name) match = &k;
      }
      if (match == nullptr) continue;
      KernelSample s;
      s.op = op;
      s.kernel = *match;
      s.kernel.repeat = 1;
      // vidur times each op on its own: no kernel just wrote its input into L2, so every byte
      // is HBM traffic here (the small-working-set rule applies inside an iteration).
      s.kernel.resident_input_bytes = 0;
      // A parallel block's `add` is attention + MLP + residual: two adds of two tensors.
      s.launches = op == "add" && parallel_block ? 2 : 1;
      // vidur's dummy weights are uniform in +-1e-3: the up projection's outputs are ~1e-5, and
      // SiLU(gate) x up (~1e-10) underflows to zero in fp16, so a gated MLP's down_proj
      // multiplies zeros.
      s.zero_input = op == "mlp_down_proj" && row.use_gated_mlp;
      s.tensor_parallel = row.tensor_parallel;
      s.tokens = row.num_tokens;
      s.measured_s = seconds;
      s.model = table.model;
      s.where = where;
      samples.push_back(std::move(s));
    }
  }
  if (skipped != nullptr) {
    for (const std::string& note : skipped_notes) skipped->push_back(note);
  }
  return samples;
}

Calibration PriorProfile(const GpuSpec& gpu) {
  Calibration p;
  p.set_gpu(gpu.name());
  p.set_architecture(gpu.architecture());
  GemmModel* g = p.mutable_gemm();
  g->set_peak_fraction(0.85);
  g->set_k_overhead(128);
  g->set_tile_penalty(10);
  g->set_overlap_penalty(0.2);
  g->set_per_sm_bytes_per_s(30e9);
  g->set_min_split_k(256);
  for (auto [bm, bn] : {std::pair{256, 128}, {128, 256}, {128, 128}, {64, 128}, {128, 64}, {64, 64}, {16, 128}}) {
    GemmTile* t = g->add_tiles();
    t->set_bm(bm);
    t->set_bn(bn);
  }
  *p.mutable_hbm() = HbmCurve(gpu.hbm_bytes_per_s(), 0.85, 1e6, 1.0);
  p.mutable_hbm()->set_source("prior: 85% of the datasheet HBM peak, half of it at 1 MB");
  *p.mutable_l2() = FlatTable(3 * gpu.hbm_bytes_per_s(), "prior: 3x the datasheet HBM peak");
  p.set_l2_usable_fraction(0.5);
  p.add_notes(
      "l2_usable_fraction 0.5 is a prior: Hopper and Ampere L2s are two partitions, and a kernel "
      "streaming other data keeps evicting; no input here measures it");
  for (int i = 0; i < kNumKernelKinds; ++i) {
    const KernelKind kind = static_cast<KernelKind>(i);
    if (IsCollective(kind)) continue;
    KernelClassCalibration* c = p.add_kernel_classes();
    c->set_name(std::string(KernelKindName(kind)));
    c->set_fixed_s(2.5e-6);
    c->set_bandwidth_fraction(0.8);
    if (kind == KernelKind::kAttentionPrefill) c->set_compute_fraction(0.5);
    c->set_source("prior: 2.5 us fixed, 80% of the streaming curve (nothing in the inputs measures it)");
  }
  LaunchCalibration* launch = p.mutable_launch();
  launch->set_graph_s(1e-6);
  launch->set_eager_s(10e-6);
  launch->set_source(
      "prior, not measured here: 1 us between kernels replayed from a CUDA graph; 10 us of host "
      "time per kernel issued eagerly from a Python engine (PyTorch dispatch + cudaLaunchKernel). "
      "The kernels/ launch-overhead sweep measures the driver part");
  return p;
}

absl::Status FitKernelSamples(const GpuSpec& gpu, const std::vector<KernelSample>& samples, Calibration* profile) {
  std::vector<const KernelSample*> gemms, small;
  std::map<std::string, std::vector<const KernelSample*>> by_class;
  for (const KernelSample& s : samples) {
    if (s.kernel.kind == KernelKind::kGemm) {
      gemms.push_back(&s);
      if (s.tokens <= 16) small.push_back(&s);
    } else {
      by_class[std::string(KernelKindName(s.kernel.kind))].push_back(&s);
    }
  }
  if (gemms.empty()) return absl::InvalidArgumentError("no GEMM rows to fit the GEMM model from");
  FitGemmModel(gpu, gemms, small, profile);
  if (absl::Status s = SetL2FromGemms(gpu, gemms, profile); !s.ok()) return s;
  for (const auto& [name, rows] : by_class) FitKernelClass(gpu, name, rows, profile);
  FillUnmeasuredClasses(by_class, profile);
  return absl::OkStatus();
}

std::vector<SampleError> Predict(const SamplePredictor& predictor, const std::vector<KernelSample>& samples) {
  std::vector<SampleError> errors;
  errors.reserve(samples.size());
  for (const KernelSample& s : samples) errors.push_back({&s, predictor.Seconds(s)});
  return errors;
}

std::vector<OpError> SummarizeErrors(const std::vector<SampleError>& errors) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const SampleError*>> by_op;
  for (const SampleError& e : errors) {
    if (!by_op.count(e.sample->op)) order.push_back(e.sample->op);
    by_op[e.sample->op].push_back(&e);
    if (e.sample->kernel.kind == KernelKind::kGemm) by_op["all GEMMs"].push_back(&e);
    by_op["all"].push_back(&e);
  }
  if (by_op.count("all GEMMs")) order.push_back("all GEMMs");
  if (!errors.empty()) order.push_back("all");
  std::vector<OpError> out;
  for (const std::string& op : order) {
    const std::vector<const SampleError*>& rows = by_op[op];
    OpError o;
    o.op = op;
    o.rows = static_cast<int>(rows.size());
    std::vector<double> abs_errors, apes;
    for (const SampleError* e : rows) {
      o.mape += e->ape();
      o.bias += (e->predicted_s - e->sample->measured_s) / e->sample->measured_s;
      abs_errors.push_back(std::abs(e->predicted_s - e->sample->measured_s));
      apes.push_back(e->ape());
      if (o.worst == nullptr || e->ape() > std::abs(o.worst_error)) {
        o.worst = e->sample;
        o.worst_error = (e->predicted_s - e->sample->measured_s) / e->sample->measured_s;
      }
    }
    o.mape /= static_cast<double>(rows.size());
    o.bias /= static_cast<double>(rows.size());
    o.median_abs_error_s = Median(abs_errors);
    o.median_ape = Median(apes);
    out.push_back(o);
  }
  return out;
}

std::vector<CollectiveTable> BinCollectives(const std::vector<VidurCollectiveRow>& rows, const std::string& source) {
  std::map<int, std::map<int, std::vector<const VidurCollectiveRow*>>> bins;  // ranks -> bin -> rows
  for (const VidurCollectiveRow& r : rows) {
    if (r.collective != "all_reduce") continue;
    // Four bins per doubling of the message size.
    bins[r.num_workers][static_cast<int>(std::floor(4 * std::log2(r.size_bytes)))].push_back(&r);
  }
  std::vector<CollectiveTable> tables;
  for (const auto& [ranks, by_bin] : bins) {
    std::vector<double> sizes, times, counts;
    for (const auto& [bin, members] : by_bin) {
      std::vector<double> s, t;
      for (const VidurCollectiveRow* r : members) {
        s.push_back(r->size_bytes);
        t.push_back(r->median_s);
      }
      sizes.push_back(Median(s));
      times.push_back(Median(t));
      counts.push_back(static_cast<double>(members.size()));
    }
    // Pool adjacent violators: a non-decreasing fit weighted by the rows in each bin.
    std::vector<double> value, weight;
    std::vector<size_t> span;
    for (size_t i = 0; i < times.size(); ++i) {
      value.push_back(times[i]);
      weight.push_back(counts[i]);
      span.push_back(1);
      while (value.size() > 1 && value[value.size() - 2] > value.back()) {
        const size_t n = value.size();
        const double w = weight[n - 2] + weight[n - 1];
        value[n - 2] = (value[n - 2] * weight[n - 2] + value[n - 1] * weight[n - 1]) / w;
        weight[n - 2] = w;
        span[n - 2] += span[n - 1];
        value.pop_back();
        weight.pop_back();
        span.pop_back();
      }
    }
    CollectiveTable table;
    table.set_collective("all_reduce");
    table.set_ranks(ranks);
    table.set_source(absl::StrCat(source, ": medians of ", rows.size() > 0 ? "the rows" : "",
                                  " in bins of a quarter octave of message size, made non-decreasing"));
    size_t i = 0;
    for (size_t b = 0; b < value.size(); ++b) {
      for (size_t j = 0; j < span[b]; ++j, ++i) {
        CollectivePoint* p = table.add_points();
        p->set_bytes(sizes[i]);
        p->set_seconds(value[b]);
      }
    }
    tables.push_back(std::move(table));
  }
  return tables;
}

absl::StatusOr<Calibration> FitProfile(const GpuSpec& gpu, const std::vector<std::string>& inputs,
                                       const std::string& command) {
  absl::StatusOr<std::vector<ProfileInput>> read = ReadProfileInputs(gpu, inputs);
  if (!read.ok()) return read.status();
  Calibration profile = PriorProfile(gpu);
  std::vector<KernelSample> samples;
  std::set<int> ranks_seen;
  CalibrationProvenance* provenance = profile.mutable_provenance();
  for (ProfileInput& input : *read) {
    CalibrationInput* entry = provenance->add_inputs();
    *entry = input.provenance;
    for (KernelSample& s : input.samples) samples.push_back(std::move(s));
    if (input.kind == ProfileInputKind::kMeasurements) {
      for (const CollectiveTable& t : input.measurements->collectives) ranks_seen.insert(t.ranks());
    }
    if (input.kind != ProfileInputKind::kVidurCollective) continue;
    int used = 0;
    for (CollectiveTable& t : BinCollectives(input.collective_rows, entry->path())) {
      if (ranks_seen.count(t.ranks())) continue;  // the first file given wins
      ranks_seen.insert(t.ranks());
      used += t.points_size();
      *profile.add_collectives() = std::move(t);
    }
    entry->set_description(
        absl::StrCat("NCCL all-reduce kernel medians (ms) by message size and ranks; kept as measured tables (", used,
                     " binned points)"));
  }
  if (absl::Status s = FitKernelSamples(gpu, samples, &profile); !s.ok()) return s;
  for (const ProfileInput& input : *read) {
    if (input.kind != ProfileInputKind::kMicrobenchmarks) continue;
    ApplyMicrobenchmarks(gpu, input.microbenchmarks, input.provenance.path(), &profile);
  }
  for (const ProfileInput& input : *read) {
    if (input.kind == ProfileInputKind::kMeasurements) input.measurements->Apply(&profile);
  }
  for (const ProfileInput& input : *read) {
    if (input.kind != ProfileInputKind::kOtherGpuProfile) continue;
    if (absl::Status s = AddScaledCollectives(gpu, *input.other_gpu_profile, input.provenance.path(), &profile);
        !s.ok()) {
      return s;
    }
  }
  if (profile.collectives().empty()) {
    profile.add_notes("no collective tables: tensor parallelism above 1 cannot be costed with this profile");
  }

  if (absl::Status s = AddFitQuality(gpu, samples, &profile); !s.ok()) return s;
  AddGemmReferences(samples, &profile);
  if (provenance->source().empty()) {
    std::set<std::string> kinds;
    for (const CalibrationInput& i : provenance->inputs()) kinds.insert(i.kind());
    provenance->set_source(
        absl::StrCat("published tables (", absl::StrJoin(kinds, ", "),
                     "): microsoft/vidur data/profiling and the figures' own sources, as listed in "
                     "../shared/data/README.md and microbenchmarks.csv; device name, driver, clocks and date "
                     "not recorded there"));
    provenance->set_date("not recorded by the source");
  }
  provenance->set_command(command);
  provenance->set_tool("infergrid calibrate fit v1");
  return profile;
}

}  // namespace infergrid
