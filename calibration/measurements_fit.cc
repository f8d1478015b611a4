#include "calibration/measurements_fit.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/dtype.h"
#include "base/median.h"
#include "base/textproto.h"
#include "calibration/profile_fit.h"
#include "calibration/vidur_csv.h"

namespace infergrid {
namespace {

// Each GEMM sample as a KernelSample of the GEMM model (fp8 or bf16 operands, bf16 output).
absl::Status AddGemmSamples(const Measurements& m, const std::string& path, MeasurementsFit* fit) {
  int index = 0;
  for (const GemmSample& g : m.gemm()) {
    ++index;
    if (g.m() <= 0 || g.n() <= 0 || g.k() <= 0 || !(g.timing().median_seconds() > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": gemm sample ", index, " needs positive m, n, k and median_seconds"));
    }
    KernelSample s;
    const bool fp8 = g.dtype() == DType::FP8_E4M3 || g.dtype() == DType::FP8_E5M2;
    s.op = fp8 ? "gemm fp8" : "gemm bf16";
    Kernel& k = s.kernel;
    k.kind = KernelKind::kGemm;
    k.name = "gemm";
    k.m = g.m();
    k.n = g.n();
    k.k = g.k();
    k.tensor_dtype = fp8 ? g.dtype() : DType::BF16;
    k.weight_bytes_per_element = fp8 ? 1 : 2;
    k.activation_bytes_per_element = fp8 ? 1 : 2;
    const double md = static_cast<double>(g.m()), nd = static_cast<double>(g.n()), kd = static_cast<double>(g.k());
    k.tensor_flops = 2 * md * nd * kd;
    k.hbm_bytes = (md * kd + nd * kd) * k.weight_bytes_per_element + md * nd * 2;
    s.tokens = g.m();
    s.measured_s = g.timing().median_seconds();
    s.where = absl::StrCat(path, ": gemm sample ", index);
    fit->samples.push_back(std::move(s));
  }
  return absl::OkStatus();
}

// A one-layer model with the sample's heads, so the builder prices its decode attention
// exactly as a simulated iteration would.
ModelSpec DecodeAttentionModel(const DecodeAttentionSample& a) {
  ModelSpec spec;
  spec.set_name("measured-attention");
  spec.set_num_layers(1);
  spec.set_hidden_size(int64_t{a.q_heads()} * a.head_dim());
  spec.set_ffn_dim(1);
  spec.set_num_attention_heads(a.q_heads());
  spec.set_num_kv_heads(a.kv_heads());
  spec.set_head_dim(a.head_dim());
  spec.set_vocab_size(1);
  return spec;
}

// Each decode-attention sample as the attention_decode kernel of a one-layer decode batch.
absl::Status AddDecodeAttentionSamples(const Measurements& m, const std::string& path, MeasurementsFit* fit) {
  int index = 0;
  for (const DecodeAttentionSample& a : m.decode_attention()) {
    ++index;
    if (a.batch() <= 0 || a.context_tokens() <= 0 || a.q_heads() <= 0 || a.kv_heads() <= 0 || a.head_dim() <= 0 ||
        !(a.timing().median_seconds() > 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": decode_attention sample ", index,
                       " needs positive batch, context, heads, head_dim and median_seconds"));
    }
    IterationKernelOptions options;
    options.kv_dtype = a.kv_dtype();
    options.activation_dtype = a.query_dtype() == DType::DTYPE_UNSPECIFIED ? DType::BF16 : a.query_dtype();
    options.kv_block_tokens = std::max(1, a.block_size_tokens());
    absl::StatusOr<IterationKernelBuilder> builder = IterationKernelBuilder::Create(DecodeAttentionModel(a), options);
    if (!builder.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": decode_attention sample ", index, ": ", builder.status().message()));
    }
    BatchShape batch;
    batch.decode_context_tokens.assign(static_cast<size_t>(a.batch()), a.context_tokens() - 1);
    IterationKernels kernels;
    builder->Build(batch, &kernels);
    for (const Kernel& k : kernels) {
      if (k.kind != KernelKind::kAttentionDecode) continue;
      KernelSample s;
      s.op = absl::StrCat("decode attention ", DTypeName(a.kv_dtype()), " KV");
      s.kernel = k;
      s.kernel.repeat = 1;
      s.tokens = a.batch();
      s.measured_s = a.timing().median_seconds();
      s.where = absl::StrCat(path, ": decode_attention sample ", index);
      fit->samples.push_back(std::move(s));
    }
  }
  return absl::OkStatus();
}

// The L2 read rate over working set: valid points by footprint, one per footprint.
RateTable L2Table(const Measurements& m, const std::string& path) {
  RateTable l2;
  for (const L2Sample& s : m.l2()) {
    if (s.footprint_bytes() <= 0 || !(s.read_bytes_per_second() > 0)) continue;
    RatePoint* p = l2.add_points();
    p->set_bytes(static_cast<double>(s.footprint_bytes()));
    p->set_bytes_per_s(s.read_bytes_per_second());
  }
  std::sort(l2.mutable_points()->begin(), l2.mutable_points()->end(),
            [](const RatePoint& a, const RatePoint& b) { return a.bytes() < b.bytes(); });
  // Keep one point per footprint (the first after sorting).
  RateTable unique;
  for (const RatePoint& p : l2.points()) {
    if (unique.points().empty() || p.bytes() > unique.points().rbegin()->bytes()) *unique.add_points() = p;
  }
  if (!unique.points().empty()) unique.set_source(absl::StrCat(path, ": L2 working-set sweep"));
  return unique;
}

// The valid all-reduce samples as Vidur collective rows (one node of `ranks` devices).
std::vector<VidurCollectiveRow> AllReduceRows(const Measurements& m) {
  std::vector<VidurCollectiveRow> rows;
  for (const AllReduceSample& s : m.all_reduce()) {
    if (s.ranks() < 2 || s.buffer_bytes() <= 0 || !(s.timing().median_seconds() > 0)) continue;
    VidurCollectiveRow r;
    r.collective = "all_reduce";
    r.num_workers = s.ranks();
    r.devices_per_node = s.ranks();
    r.size_bytes = static_cast<double>(s.buffer_bytes());
    r.median_s = s.timing().median_seconds();
    rows.push_back(r);
  }
  return rows;
}

CalibrationProvenance ProvenanceOf(const MeasurementProvenance& mp) {
  CalibrationProvenance p;
  p.set_gpu_reported_name(mp.gpu_name());
  p.set_driver(mp.driver_version());
  p.set_cuda(absl::StrCat("runtime ", mp.cuda_runtime_version(), ", driver API ", mp.cuda_driver_api_version(),
                          ", cuBLASLt ", mp.cublaslt_version()));
  p.set_clocks(absl::StrFormat("SM max %.0f MHz (start %.0f, end %.0f), memory max %.0f MHz", mp.sm_clock_max_mhz(),
                               mp.sm_clock_start_mhz(), mp.sm_clock_end_mhz(), mp.memory_clock_max_mhz()));
  p.set_date(mp.date_utc());
  p.set_source(absl::StrCat(mp.tool_version(), " on ", mp.host(), " (", mp.command_line(), ")"));
  return p;
}

}  // namespace

void MeasurementsFit::Apply(Calibration* profile) const {
  if (!l2.points().empty()) {
    *profile->mutable_l2() = l2;
  }
  if (graph_replay_s > 0) {
    LaunchCalibration* launch = profile->mutable_launch();
    launch->set_graph_s(graph_replay_s);
    launch->set_source(
        absl::StrFormat("graph_s measured (CUDA-graph replay of empty kernels, %.2f us per kernel); eager_s is a "
                        "prior for a Python engine (10 us per kernel), above the measured driver launch of %.2f us",
                        graph_replay_s * 1e6, stream_launch_s * 1e6));
  }
  for (const CollectiveTable& t : collectives) {
    bool replaced = false;
    for (CollectiveTable& existing : *profile->mutable_collectives()) {
      if (existing.ranks() == t.ranks()) {
        existing = t;
        replaced = true;
      }
    }
    if (!replaced) *profile->add_collectives() = t;
  }
  if (hbm_read_peak > 0) {
    double curve_max = 0;
    for (const RatePoint& p : profile->hbm().points()) curve_max = std::max(curve_max, p.bytes_per_s());
    profile->add_notes(
        absl::StrFormat("cross-check: measured streaming peak %.2f TB/s vs the GEMM-fitted curve's %.2f TB/s",
                        hbm_read_peak / 1e12, curve_max / 1e12));
  }
  CalibrationProvenance* p = profile->mutable_provenance();
  p->set_gpu_reported_name(provenance.gpu_reported_name());
  p->set_driver(provenance.driver());
  p->set_cuda(provenance.cuda());
  p->set_clocks(provenance.clocks());
  p->set_date(provenance.date());
  p->set_source(provenance.source());
  for (const std::string& note : notes) profile->add_notes(note);
}

absl::StatusOr<MeasurementsFit> MeasurementsForFit(const Measurements& m, const std::string& path, const GpuSpec& gpu) {
  const MeasurementProvenance& mp = m.provenance();
  if (mp.sm_count() > 0 && gpu.sm_count() > 0 && mp.sm_count() != gpu.sm_count()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": measured on '", mp.gpu_name(), "' with ", mp.sm_count(),
                                                   " SMs, but GPU '", gpu.name(), "' has ", gpu.sm_count()));
  }
  if (m.gemm().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no gemm samples to fit from"));
  }
  MeasurementsFit fit;
  for (const CorrectnessCheck& check : m.checks()) {
    if (!check.passed()) {
      fit.notes.push_back(absl::StrCat(path, ": correctness check '", check.name(),
                                       "' failed; its kernel's timings are kept but suspect"));
    }
  }
  if (absl::Status s = AddGemmSamples(m, path, &fit); !s.ok()) return s;
  if (absl::Status s = AddDecodeAttentionSamples(m, path, &fit); !s.ok()) return s;
  if (!m.prefill_attention().empty()) {
    fit.notes.push_back(
        absl::StrCat(path, ": ", m.prefill_attention_size(),
                     " prefill attention samples not fitted: their kernel is a floor, not a flash kernel; the "
                     "prefill compute fraction stays as published or prior"));
  }
  fit.l2 = L2Table(m, path);
  std::vector<double> graph, stream;
  for (const LaunchOverheadSample& s : m.launch_overhead()) {
    if (s.kind() == LaunchOverheadSample::GRAPH_REPLAY) graph.push_back(s.seconds_per_kernel());
    if (s.kind() == LaunchOverheadSample::STREAM_LAUNCH) stream.push_back(s.seconds_per_kernel());
  }
  fit.graph_replay_s = Median(graph);
  fit.stream_launch_s = Median(stream);
  for (const HbmSample& s : m.hbm()) fit.hbm_read_peak = std::max(fit.hbm_read_peak, s.bytes_per_second());
  fit.collectives = BinCollectives(AllReduceRows(m), path);
  fit.rows = m.gemm_size() + m.decode_attention_size() + m.l2_size() + m.launch_overhead_size() + m.all_reduce_size() +
             m.hbm_size() + m.prefill_attention_size();
  fit.description = absl::StrCat(
      "raw sweep from kernels/ (", m.gemm_size(), " GEMMs fitted with the GEMM model, ", m.decode_attention_size(),
      " decode-attention samples fitted as the attention_decode class, ", m.l2_size(),
      " L2 points as the L2 table, launch overhead, ", m.all_reduce_size(), " all-reduce samples as tables)");
  fit.provenance = ProvenanceOf(mp);
  return fit;
}

absl::StatusOr<MeasurementsFit> ReadMeasurementsForFit(const std::string& path, const GpuSpec& gpu) {
  Measurements m;
  if (absl::Status s = ReadTextProtoFile(path, &m); !s.ok()) return s;
  return MeasurementsForFit(m, path, gpu);
}

}  // namespace infergrid
