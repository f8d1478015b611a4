// `infergrid calibrate fit|report|crossval|extrapolate|host`: build, check and transfer calibration
// profiles, and fit an engine's host time per iteration.
//   fit          --gpu=G --in=FILE[,FILE...] --out=PROFILE   fit a profile from measurements
//   report       --profile=P --measured=CSV                   prediction vs measurement per op
//   crossval     --gpu=G --in=CSV[,CSV...]                    leave-one-TP-out, leave-shapes-out and
//                                                             (several models) leave-one-model-out
//   extrapolate  --profile=P --gpu=G --out=PROFILE            datasheet-ratio transfer to G
//   host         --in=CPU_OVERHEADS.csv --out=FILE            host time per iteration, fitted
#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/atomic_file.h"
#include "base/textproto.h"
#include "calibration/cross_validation.h"
#include "calibration/extrapolate.h"
#include "calibration/host_fit.h"
#include "calibration/host_profile.h"
#include "calibration/profile_catalog.h"
#include "calibration/profile_fit.h"
#include "hardware/gpu_catalog.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/commands/command.h"
#include "sim/app/format/text_table.h"
#include "sim/app/format/units.h"

namespace infergrid {
namespace {

// calibrate's flags.
struct CalibrateFlags {
  std::string in;
  std::string profile;
  std::string measured;
  std::string rows;
  std::string holdout;
  std::string out;
};

const cli::FlagGroup<CalibrateFlags>& CalibrateFlagGroup() {
  static const cli::FlagGroup<CalibrateFlags>* group =
      &(*new cli::FlagGroup<CalibrateFlags>())
           .Add("in", &CalibrateFlags::in,
                "calibrate fit/crossval: input files, comma-separated: vidur per-op or collective CSVs, "
                "the micro-benchmark CSV, or a Measurements .textproto from kernels/")
           .Add("profile", &CalibrateFlags::profile, "calibrate report/extrapolate: a calibration profile .textproto")
           .Add("measured", &CalibrateFlags::measured, "calibrate report: a vidur per-op CSV to compare against")
           .Add("rows", &CalibrateFlags::rows,
                "calibrate report: also write every op timing's measurement and prediction to this CSV "
                "(op, TP, tokens, GEMM shape, the tile the model chose, measured and predicted us, error)")
           .Add("holdout", &CalibrateFlags::holdout,
                "calibrate crossval: the splits to run, comma-separated: tp, tokens, model (default: tp "
                "and tokens, and model when the inputs hold several models)")
           .Add("out", &CalibrateFlags::out, "calibrate fit, extrapolate, host: the profile file to write");
  return *group;
}

using format::Fixed;
using format::Percent;

std::vector<std::string> InputList(const cli::FlagValues& flags) {
  const CalibrateFlags calibrate_flags = CalibrateFlagGroup().Read(flags);
  std::vector<std::string> inputs;
  for (absl::string_view part : absl::StrSplit(calibrate_flags.in, ',', absl::SkipWhitespace())) {
    inputs.emplace_back(part);
  }
  return inputs;
}

std::string ErrorTable(const std::vector<OpError>& errors) {
  format::TextTable table({"op", "rows", "MAPE", "median |err|", "median APE", "bias"});
  for (const OpError& e : errors) {
    table.AddRow({e.op, absl::StrCat(e.rows), absl::StrCat(Fixed(100 * e.mape, 1), "%"),
                  absl::StrCat(Fixed(e.median_abs_error_s * 1e6, 2), " us"),
                  absl::StrCat(Fixed(100 * e.median_ape, 1), "%"),
                  absl::StrCat(e.bias >= 0 ? "+" : "", Fixed(100 * e.bias, 1), "%")});
  }
  return table.Render();
}

// MAPE and bias per op and num_tokens band: where in the shape space the errors sit.
std::string BandTable(const std::vector<SampleError>& errors) {
  const int64_t upper[] = {16, 64, 256, 1024, 4096, int64_t{1} << 40};
  const char* names[] = {"1-16", "17-64", "65-256", "257-1024", "1025-4096", ">4096"};
  std::vector<std::string> ops;
  std::map<std::string, std::array<std::vector<const SampleError*>, 6>> cells;
  for (const SampleError& e : errors) {
    if (!cells.count(e.sample->op)) ops.push_back(e.sample->op);
    int band = 0;
    while (e.sample->tokens > upper[band]) ++band;
    cells[e.sample->op][static_cast<size_t>(band)].push_back(&e);
  }
  std::vector<std::string> header = {"MAPE (bias) by tokens"};
  for (const char* n : names) header.push_back(n);
  format::TextTable table(header);
  for (const std::string& op : ops) {
    std::vector<std::string> row = {op};
    for (const auto& cell : cells[op]) {
      if (cell.empty()) {
        row.push_back("-");
        continue;
      }
      double mape = 0, bias = 0;
      for (const SampleError* e : cell) {
        mape += e->ape();
        bias += e->predicted_s / e->sample->measured_s - 1;
      }
      const double n = static_cast<double>(cell.size());
      row.push_back(absl::StrCat(Fixed(100 * mape / n, 1), "% (", bias >= 0 ? "+" : "", Fixed(100 * bias / n, 0), ")"));
    }
    table.AddRow(std::move(row));
  }
  return table.Render();
}

absl::Status RequireFlag(absl::string_view name, const std::string& value, absl::string_view sub) {
  if (value.empty()) return cli::UsageError(absl::StrCat("calibrate ", sub, " needs --", name));
  return absl::OkStatus();
}

std::string CommandLine(absl::string_view sub, std::initializer_list<std::pair<absl::string_view, std::string>> flags) {
  std::string line = absl::StrCat("infergrid calibrate ", sub);
  for (const auto& [name, value] : flags) absl::StrAppend(&line, " --", name, "=", value);
  return line;
}

absl::Status RunFit(const cli::FlagValues& flags, std::ostream& out) {
  const CalibrateFlags calibrate_flags = CalibrateFlagGroup().Read(flags);
  const cli::AccountingFlags accounting_flags = cli::AccountingFlagGroup().Read(flags);
  const std::string in = calibrate_flags.in, path = calibrate_flags.out;
  const std::string gpu_name = accounting_flags.gpu;
  if (absl::Status s = RequireFlag("in", in, "fit"); !s.ok()) return s;
  if (absl::Status s = RequireFlag("out", path, "fit"); !s.ok()) return s;
  absl::StatusOr<GpuSpec> gpu = ResolveGpu(gpu_name);
  if (!gpu.ok()) return cli::UsageError(absl::StrCat("--gpu: ", gpu.status().message()));
  const std::string command = CommandLine("fit", {{"gpu", gpu_name}, {"in", in}, {"out", path}});
  absl::StatusOr<Calibration> profile = FitProfile(*gpu, InputList(flags), command);
  if (!profile.ok()) return profile.status();
  if (absl::Status s = WriteCalibrationFile(path, *profile); !s.ok()) return s;
  out << absl::StrCat("calibration profile for ", gpu->name(), " written to ", path, "\n");
  for (const CalibrationInput& i : profile->provenance().inputs()) {
    out << absl::StrCat("  input ", i.path(), " (", i.kind(), ", ", i.rows(), " rows)\n");
  }
  const GemmModel& g = profile->gemm();
  double best_tile = 0;
  for (const GemmTile& t : g.tiles()) {
    best_tile = std::max(best_tile, 1.0 / (1.0 + g.tile_penalty() * (t.bm() + t.bn()) / (1.0 * t.bm() * t.bn())));
  }
  out << absl::StrCat("  gemm: ", Fixed(100 * g.peak_fraction() * best_tile, 1),
                      "% of the tensor peak in the largest tile, k overhead ", Fixed(g.k_overhead(), 0),
                      ", tile penalty ", Fixed(g.tile_penalty(), 1), ", overlap penalty ",
                      Fixed(g.overlap_penalty(), 2), ", ", Fixed(g.per_sm_bytes_per_s() / 1e9, 1), " GB/s per SM\n");
  double hbm_max = 0;
  for (const RatePoint& p : profile->hbm().points()) hbm_max = std::max(hbm_max, p.bytes_per_s());
  out << absl::StrCat("  hbm: streaming up to ", Fixed(hbm_max / 1e12, 2), " TB/s; GEMM tile traffic through L2 at ",
                      Fixed(g.l2_bytes_per_s() / 1e12, 2), " TB/s\n\n");
  std::vector<OpError> quality;
  for (const FitQuality& q : profile->fit_quality()) {
    quality.push_back({q.op(), q.rows(), q.mape(), q.median_abs_error_s(), 0, 0});
  }
  format::TextTable table({"held-in op", "rows", "MAPE", "median |err|"});
  for (const OpError& e : quality) {
    table.AddRow({e.op, absl::StrCat(e.rows), absl::StrCat(Fixed(100 * e.mape, 1), "%"),
                  absl::StrCat(Fixed(e.median_abs_error_s * 1e6, 2), " us")});
  }
  out << absl::StrCat(table.Render());
  return absl::OkStatus();
}

// One line per op timing: what was measured, what the model predicts and, for GEMMs, the
// shape and the tile plan it chose (to see where a kernel-selection step sits).
std::string RowsCsv(const SamplePredictor& model, const std::vector<SampleError>& errors) {
  std::string csv = "op,row,tp,tokens,m,n,k,tile_m,tile_n,split_k,waves,measured_us,predicted_us,error_pct\n";
  for (const SampleError& e : errors) {
    const Kernel& k = e.sample->kernel;
    const bool gemm = k.kind == KernelKind::kGemm;
    const KernelTime t = gemm ? model.model().Time(k) : KernelTime{};
    absl::StrAppend(&csv, e.sample->op, ",", e.sample->where, ",", e.sample->tensor_parallel, ",", e.sample->tokens,
                    ",", gemm ? absl::StrCat(k.m, ",", k.n, ",", k.k) : ",,", ",",
                    gemm ? absl::StrCat(t.tile_m, ",", t.tile_n, ",", t.split_k, ",", t.waves) : ",,,", ",",
                    Fixed(e.sample->measured_s * 1e6, 3), ",", Fixed(e.predicted_s * 1e6, 3), ",",
                    Fixed(100 * (e.predicted_s / e.sample->measured_s - 1), 2), "\n");
  }
  return csv;
}

absl::Status RunReport(const cli::FlagValues& flags, std::ostream& out) {
  const CalibrateFlags calibrate_flags = CalibrateFlagGroup().Read(flags);
  const std::string profile_path = calibrate_flags.profile;
  const std::string measured = calibrate_flags.measured;
  if (absl::Status s = RequireFlag("profile", profile_path, "report"); !s.ok()) return s;
  if (absl::Status s = RequireFlag("measured", measured, "report"); !s.ok()) return s;
  Calibration profile;
  if (absl::Status s = ReadTextProtoFile(profile_path, &profile); !s.ok()) return s;
  absl::StatusOr<GpuSpec> gpu = ResolveGpu(profile.gpu());
  if (!gpu.ok()) return absl::InvalidArgumentError(absl::StrCat(profile_path, ": ", gpu.status().message()));
  absl::StatusOr<Calibration> checked = ResolveCalibration(*gpu, profile_path);
  if (!checked.ok()) return checked.status();
  absl::StatusOr<SamplePredictor> model = SamplePredictor::Create(*gpu, *checked);
  if (!model.ok()) return model.status();
  absl::StatusOr<VidurOpsTable> table = ReadVidurOpsCsv(measured);
  if (!table.ok()) return table.status();
  absl::StatusOr<std::vector<KernelSample>> samples = SamplesFromVidurOps(*table);
  if (!samples.ok()) return samples.status();
  std::vector<SampleError> errors = Predict(*model, *samples);
  if (const std::string rows = calibrate_flags.rows; !rows.empty()) {
    if (absl::Status s = WriteFileAtomically(rows, RowsCsv(*model, errors)); !s.ok()) return s;
  }
  out << absl::StrCat("InferGrid calibration report: profile ", CalibrationLabel(*checked), "\n", "  measured ",
                      measured, " (", table->rows.size(), " rows, ", samples->size(), " op timings)\n\n",
                      ErrorTable(SummarizeErrors(errors)), "\n");
  out << BandTable(errors) << "\n";
  std::sort(errors.begin(), errors.end(), [](const SampleError& a, const SampleError& b) {
    return a.ape() > b.ape() || (a.ape() == b.ape() && a.sample->where < b.sample->where);
  });
  format::TextTable worst({"worst cases", "TP", "tokens", "measured", "predicted", "error", "row"});
  for (size_t i = 0; i < std::min<size_t>(10, errors.size()); ++i) {
    const SampleError& e = errors[i];
    worst.AddRow({e.sample->op, absl::StrCat(e.sample->tensor_parallel), absl::StrCat(e.sample->tokens),
                  absl::StrCat(Fixed(e.sample->measured_s * 1e6, 1), " us"),
                  absl::StrCat(Fixed(e.predicted_s * 1e6, 1), " us"),
                  absl::StrCat(Fixed(100 * (e.predicted_s / e.sample->measured_s - 1), 1), "%"), e.sample->where});
  }
  out << absl::StrCat(worst.Render());
  return absl::OkStatus();
}

std::string Micros(double seconds) { return absl::StrCat(Fixed(seconds * 1e6, 2), " us"); }

// The held-out GEMM rows of each fold (overall, then per TP degree when the fold has several)
// and of all folds together: the calibrated model next to the roofline baseline.
std::string GemmComparisonTable(const CrossValidation& cv) {
  format::TextTable table({"held out", "GEMM rows", "rows", "MAPE", "median |err|", "worst", "worst row",
                           "baseline MAPE", "baseline median |err|", "baseline worst"});
  auto signed_percent = [](double e) { return absl::StrCat(e >= 0 ? "+" : "", Percent(e)); };
  auto row_name = [](const KernelSample* s) -> std::string {
    if (s == nullptr) return "-";
    return absl::StrCat(s->op, " tp", s->tensor_parallel, " M=", s->kernel.m, " N=", s->kernel.n, " K=", s->kernel.k);
  };
  auto add = [&](const std::string& fold, const std::vector<GemmComparison>& gemms) {
    for (const GemmComparison& g : gemms) {
      if (g.group != "all" && gemms.size() == 2) continue;  // one TP degree: the same rows as "all"
      table.AddRow({g.group == "all" ? fold : "", g.group, absl::StrCat(g.calibrated.rows), Percent(g.calibrated.mape),
                    Micros(g.calibrated.median_abs_error_s), signed_percent(g.calibrated.worst_error),
                    row_name(g.calibrated.worst), Percent(g.baseline.mape), Micros(g.baseline.median_abs_error_s),
                    signed_percent(g.baseline.worst_error)});
    }
  };
  for (const FoldResult& f : cv.folds) add(f.name, f.gemms);
  add("every fold", cv.pooled_gemms);
  return table.Render();
}

absl::Status RunCrossValidation(const cli::FlagValues& flags, std::ostream& out) {
  const CalibrateFlags calibrate_flags = CalibrateFlagGroup().Read(flags);
  const cli::AccountingFlags accounting_flags = cli::AccountingFlagGroup().Read(flags);
  const std::string in = calibrate_flags.in;
  if (absl::Status s = RequireFlag("in", in, "crossval"); !s.ok()) return s;
  absl::StatusOr<GpuSpec> gpu = ResolveGpu(accounting_flags.gpu);
  if (!gpu.ok()) return cli::UsageError(absl::StrCat("--gpu: ", gpu.status().message()));
  std::vector<KernelSample> samples;
  std::vector<std::string> used, models, skipped;
  for (const std::string& path : InputList(flags)) {
    absl::StatusOr<VidurOpsTable> table = ReadVidurOpsCsv(path);
    if (!table.ok()) return table.status();
    std::vector<std::string> left_out;
    absl::StatusOr<std::vector<KernelSample>> rows = SamplesFromVidurOps(*table, &left_out);
    if (!rows.ok()) return rows.status();
    samples.insert(samples.end(), rows->begin(), rows->end());
    used.push_back(path);
    if (std::find(models.begin(), models.end(), table->model) == models.end()) models.push_back(table->model);
    for (const std::string& note : left_out) skipped.push_back(absl::StrCat(table->model, ": ", note));
  }
  out << absl::StrCat("InferGrid held-out accuracy on ", gpu->name(), ": ", absl::StrJoin(used, ", "), " (",
                      samples.size(), " op timings)\n");
  for (const std::string& note : skipped) out << absl::StrCat("  not fitted: ", note, "\n");
  std::vector<Holdout> holdouts = {Holdout::kTensorParallel, Holdout::kTokenBands};
  if (models.size() > 1) holdouts.push_back(Holdout::kModel);
  if (const std::string which = calibrate_flags.holdout; !which.empty()) {
    holdouts.clear();
    for (absl::string_view part : absl::StrSplit(which, ',', absl::SkipWhitespace())) {
      if (part == "tp") {
        holdouts.push_back(Holdout::kTensorParallel);
      } else if (part == "tokens") {
        holdouts.push_back(Holdout::kTokenBands);
      } else if (part == "model") {
        if (models.size() < 2) {
          return cli::UsageError("--holdout=model needs per-op tables of at least two models in --in");
        }
        holdouts.push_back(Holdout::kModel);
      } else {
        return cli::UsageError(absl::StrCat("--holdout: unknown split '", part, "' (expected tp, tokens or model)"));
      }
    }
  }
  for (Holdout holdout : holdouts) {
    absl::StatusOr<CrossValidation> cv = CrossValidate(*gpu, samples, holdout);
    if (!cv.ok()) return cv.status();
    switch (holdout) {
      case Holdout::kTensorParallel:
        out << "\nleave-one-TP-out: each row predicted by a fit that never saw its TP degree\n";
        break;
      case Holdout::kTokenBands:
        out << "\nleave-shapes-out (num_tokens bands): each row predicted by a fit that never saw its band\n";
        break;
      case Holdout::kModel:
        out << "\nleave-one-model-out: each row predicted by a fit that never saw its model's table\n";
        break;
    }
    out << absl::StrCat(ErrorTable(cv->pooled));
    format::TextTable folds(
        {"fold", "train", "test", "GEMM MAPE", "all MAPE", "baseline GEMM MAPE", "baseline e_c / e_m / t0"});
    for (const FoldResult& f : cv->folds) {
      std::string gemm = "-", all = "-", baseline = "-";
      for (const OpError& e : f.errors) {
        if (e.op == "all GEMMs") gemm = Percent(e.mape);
        if (e.op == "all") all = Percent(e.mape);
      }
      if (!f.gemms.empty()) baseline = Percent(f.gemms.front().baseline.mape);
      folds.AddRow({f.name, absl::StrCat(f.train_rows), absl::StrCat(f.test_rows), gemm, all, baseline,
                    absl::StrCat(Fixed(f.baseline.compute_efficiency, 3), " / ", Fixed(f.baseline.memory_efficiency, 3),
                                 " / ", Micros(f.baseline.fixed_s))});
    }
    out << absl::StrCat("\n", folds.Render());
    out << absl::StrCat(
        "\nGEMM rows: calibrated model vs the roofline baseline max(FLOPs / (e_c x "
        "tensor peak), bytes / (e_m x HBM peak)) + t0 fitted to the same rows\n",
        GemmComparisonTable(*cv));
  }
  return absl::OkStatus();
}

absl::Status RunExtrapolate(const cli::FlagValues& flags, std::ostream& out) {
  const CalibrateFlags calibrate_flags = CalibrateFlagGroup().Read(flags);
  const cli::AccountingFlags accounting_flags = cli::AccountingFlagGroup().Read(flags);
  const std::string profile_path = calibrate_flags.profile, path = calibrate_flags.out;
  const std::string gpu_name = accounting_flags.gpu;
  if (absl::Status s = RequireFlag("profile", profile_path, "extrapolate"); !s.ok()) return s;
  if (absl::Status s = RequireFlag("out", path, "extrapolate"); !s.ok()) return s;
  absl::StatusOr<GpuSpec> target = ResolveGpu(gpu_name);
  if (!target.ok()) return cli::UsageError(absl::StrCat("--gpu: ", target.status().message()));
  Calibration source;
  if (absl::Status s = ReadTextProtoFile(profile_path, &source); !s.ok()) return s;
  absl::StatusOr<GpuSpec> source_gpu = ResolveGpu(source.gpu());
  if (!source_gpu.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(profile_path, ": ", source_gpu.status().message()));
  }
  absl::StatusOr<Calibration> checked = ResolveCalibration(*source_gpu, profile_path);
  if (!checked.ok()) return checked.status();
  const std::string command = CommandLine("extrapolate", {{"profile", profile_path}, {"gpu", gpu_name}, {"out", path}});
  absl::StatusOr<Calibration> profile = ExtrapolateProfile(*checked, *source_gpu, *target, command);
  if (!profile.ok()) return profile.status();
  if (absl::Status s = WriteCalibrationFile(path, *profile); !s.ok()) return s;
  out << absl::StrCat("extrapolated profile for ", target->name(), " written to ", path, "\n");
  for (const std::string& note : profile->notes()) out << absl::StrCat("note: ", note, "\n");
  return absl::OkStatus();
}

// `calibrate host --in=CPU_OVERHEADS.csv --out=FILE`: fits an engine's host time per iteration
// (calibration/host_fit.h) and writes it as a host calibration textproto, printing each phase's
// fit with its held-in and leave-one-model-out errors. `in` and `path` are --in and --out (usage
// errors when empty).
absl::Status RunCalibrateHost(const std::string& in, const std::string& path, std::ostream& out) {
  if (in.empty()) return cli::UsageError("calibrate host needs --in=FILE (a vidur CPU-overhead CSV)");
  if (path.empty()) return cli::UsageError("calibrate host needs --out=FILE");
  std::string contents;
  if (absl::Status s = ReadFileToString(in, &contents); !s.ok()) return s;
  absl::StatusOr<std::vector<HostOverheadRow>> rows = ParseHostOverheadsCsv(contents, in);
  if (!rows.ok()) return rows.status();
  absl::StatusOr<HostCalibration> host = FitHostCalibration(*rows, in);
  if (!host.ok()) return host.status();
  host->mutable_provenance()->set_command(absl::StrCat("infergrid calibrate host --in=", in, " --out=", path));
  if (absl::Status s = WriteHostCalibrationFile(path, *host); !s.ok()) return s;

  out << absl::StrCat("host calibration ", host->name(), " written to ", path, " (", rows->size(), " rows)\n\n");
  format::TextTable table({"phase", "base us", "per seq us", "per seq per 100K vocab us", "TP>1 us", "held-in MAPE",
                           "held-out MAPE", "held-out median |err|"});
  for (const HostPhase& p : host->phases()) {
    table.AddRow({p.name(), format::Fixed(p.base_s() * 1e6, 1), format::Fixed(p.per_sequence_s() * 1e6, 2),
                  format::Fixed(p.per_sequence_vocab_s() * 1e11, 2), format::Fixed(p.tensor_parallel_s() * 1e6, 1),
                  absl::StrCat(format::Fixed(100 * p.held_in_mape(), 1), "%"),
                  absl::StrCat(format::Fixed(100 * p.held_out_mape(), 1), "%"),
                  absl::StrCat(format::Fixed(p.held_out_median_abs_error_s() * 1e6, 1), " us")});
  }
  out << table.Render();
  out << absl::StrCat("\nwhole step (all phases), each model left out: MAPE ",
                      format::Fixed(100 * host->step_held_out_mape(), 1), "%\n");
  for (const std::string& note : host->notes()) out << "note: " << note << "\n";
  return absl::OkStatus();
}

absl::Status RunCalibrate(const cli::ParsedCommandLine& command_line, std::ostream& out) {
  const cli::FlagValues& flags = command_line.flags;
  const std::vector<std::string>& positional = command_line.positional;
  if (positional.size() != 1) {
    return cli::UsageError("calibrate takes one of: fit, report, crossval, extrapolate, host");
  }
  const std::string& sub = positional[0];
  if (sub == "fit") return RunFit(flags, out);
  if (sub == "report") return RunReport(flags, out);
  if (sub == "crossval") return RunCrossValidation(flags, out);
  if (sub == "extrapolate") return RunExtrapolate(flags, out);
  if (sub == "host") {
    const CalibrateFlags calibrate_flags = CalibrateFlagGroup().Read(flags);
    return RunCalibrateHost(calibrate_flags.in, calibrate_flags.out, out);
  }
  return cli::UsageError(
      absl::StrCat("calibrate: unknown action '", sub, "' (expected fit, report, crossval, extrapolate or host)"));
}

}  // namespace

const Command& CalibrateCommand() {
  static const Command* command = new Command{
      "calibrate",
      "fit | report | crossval | extrapolate | host: calibration profiles of the GPU cost model and the engine's host "
      "time",
      cli::CommandFlags().Take(cli::AccountingFlagGroup(), {"gpu"}).Take(CalibrateFlagGroup()), &RunCalibrate};
  return *command;
}

}  // namespace infergrid
