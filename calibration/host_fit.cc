#include "calibration/host_fit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/csv_line.h"
#include "base/median.h"
#include "calibration/vidur_csv.h"

namespace infergrid {
namespace {

// A fitted phase: the source column and the terms beside base + per sequence. Each phase keeps
// a term only where it lowers the held-out error (each model left out): the TP > 1 term for
// preparing inputs (the broadcast to the workers), the model's launch, sampling and output
// processing; the vocabulary term (per sequence per vocabulary entry) for sampling, whose work
// on the logits grows with the vocabulary (Qwen-72B's 152K entries cost twice Llama-2's 32K).
struct PhaseColumn {
  const char* name;
  const char* column;
  bool tensor_parallel_term;
  bool vocabulary_term;
};

// The phases of a decode step. Sampling and preparing inputs are the end-to-end times (host
// work plus waiting for the transfers they start); the model's launch is the host time to
// start the forward (a CUDA-graph replay); the forward itself is the GPU cost model's.
constexpr PhaseColumn kPhases[] = {
    {"schedule", "schedule_mean", false, false},
    {"prepare_inputs", "prepare_inputs_e2e_mean", true, false},
    {"launch", "model_execution_launch_mean", true, false},
    {"sample", "sampler_e2e_mean", true, true},
    {"process_outputs", "process_model_outputs_mean", true, false},
};

// The vocabularies of the models vidur profiled (`vocab_size` of each checkpoint's
// config.json on Hugging Face): the table names the model, not its vocabulary.
struct ProfiledVocabulary {
  const char* model;
  int64_t vocab_size;
};
constexpr ProfiledVocabulary kProfiledVocabularies[] = {
    {"codellama/CodeLlama-34b-Instruct-hf", 32000},
    {"meta-llama/Llama-2-7b-hf", 32000},
    {"meta-llama/Llama-2-70b-hf", 32000},
    {"microsoft/phi-2", 51200},
    {"internlm/internlm-20b", 103168},
    {"Qwen/Qwen-72B", 152064},
};

// The regressors of one row for `phase`: 1, batch, [batch x vocabulary], [TP > 1].
std::vector<double> Regressors(const HostOverheadRow& r, const PhaseColumn& phase) {
  std::vector<double> x = {1, static_cast<double>(r.batch_size)};
  if (phase.vocabulary_term) x.push_back(static_cast<double>(r.batch_size) * static_cast<double>(r.vocab_size));
  if (phase.tensor_parallel_term) x.push_back(r.tensor_parallel > 1 ? 1 : 0);
  return x;
}

// Least squares of y on the rows of `a` (at most 4 columns), by Gaussian elimination with
// partial pivoting on the normal equations; zeros when they are singular.
std::vector<double> Fit(const std::vector<std::vector<double>>& a, const std::vector<double>& y) {
  const size_t k = a.empty() ? 0 : a[0].size();
  double ata[4][4] = {}, aty[4] = {};
  for (size_t i = 0; i < y.size(); ++i) {
    for (size_t r = 0; r < k; ++r) {
      aty[r] += a[i][r] * y[i];
      for (size_t c = 0; c < k; ++c) ata[r][c] += a[i][r] * a[i][c];
    }
  }
  std::vector<double> beta(k, 0.0);
  for (size_t col = 0; col < k; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < k; ++r) {
      if (std::abs(ata[r][col]) > std::abs(ata[pivot][col])) pivot = r;
    }
    std::swap(ata[col], ata[pivot]);
    std::swap(aty[col], aty[pivot]);
    if (std::abs(ata[col][col]) < 1e-300) return beta;
    for (size_t r = col + 1; r < k; ++r) {
      const double f = ata[r][col] / ata[col][col];
      for (size_t c = col; c < k; ++c) ata[r][c] -= f * ata[col][c];
      aty[r] -= f * aty[col];
    }
  }
  for (size_t r = k; r-- > 0;) {
    double v = aty[r];
    for (size_t c = r + 1; c < k; ++c) v -= ata[r][c] * beta[c];
    beta[r] = v / ata[r][r];
  }
  return beta;
}

double Predict(const std::vector<double>& beta, const std::vector<double>& x) {
  double y = 0;
  for (size_t i = 0; i < beta.size(); ++i) y += beta[i] * x[i];
  return y;
}

// The fit of one phase on the rows `use` selects.
std::vector<double> FitPhase(const std::vector<HostOverheadRow>& rows, const PhaseColumn& phase,
                             const std::function<bool(const HostOverheadRow&)>& use) {
  std::vector<std::vector<double>> a;
  std::vector<double> y;
  for (const HostOverheadRow& r : rows) {
    if (!use(r)) continue;
    a.push_back(Regressors(r, phase));
    y.push_back(r.mean_s.at(phase.column));
  }
  return Fit(a, y);
}

// The fitted line as a phase: base, per sequence, then the terms the phase has.
void SetTerms(const PhaseColumn& p, const std::vector<double>& beta, HostPhase& phase) {
  size_t i = 0;
  phase.set_base_s(beta[i++]);
  phase.set_per_sequence_s(beta[i++]);
  if (p.vocabulary_term) phase.set_per_sequence_vocab_s(beta[i++]);
  if (p.tensor_parallel_term) phase.set_tensor_parallel_s(beta[i++]);
}

}  // namespace

absl::StatusOr<std::vector<HostOverheadRow>> ParseHostOverheadsCsv(absl::string_view contents,
                                                                   const std::string& path) {
  std::vector<absl::string_view> lines = absl::StrSplit(contents, '\n');
  if (lines.empty()) return CsvLineError(path, 1, "empty file");
  absl::StatusOr<std::vector<std::string>> header =
      CsvLineFields(absl::StripTrailingAsciiWhitespace(lines[0]), path, 1, {.trim_blanks = true});
  if (!header.ok()) return header.status();
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < header->size(); ++i) index[(*header)[i]] = i;
  std::vector<std::string> needed = {"model_name", "batch_size", "tensor_parallel_degree"};
  for (const PhaseColumn& p : kPhases) needed.push_back(p.column);
  for (const std::string& column : needed) {
    if (index.count(column) == 0) {
      return CsvLineError(path, 1, absl::StrCat("missing column '", column, "' (not a vidur CPU-overhead table)"));
    }
  }
  std::vector<HostOverheadRow> rows;
  for (size_t l = 1; l < lines.size(); ++l) {
    const int line = static_cast<int>(l) + 1;
    const absl::string_view text = absl::StripTrailingAsciiWhitespace(lines[l]);
    if (text.empty()) continue;
    absl::StatusOr<std::vector<std::string>> split = CsvLineFields(text, path, line);
    if (!split.ok()) return split.status();
    const std::vector<std::string>& fields = *split;
    if (fields.size() != header->size()) {
      return CsvLineError(path, line, absl::StrCat("expected ", header->size(), " fields, got ", fields.size()));
    }
    HostOverheadRow row;
    row.line = line;
    row.model = fields[index["model_name"]];
    for (const ProfiledVocabulary& v : kProfiledVocabularies) {
      if (row.model == v.model) row.vocab_size = v.vocab_size;
    }
    if (row.vocab_size == 0) {
      std::vector<std::string> known;
      for (const ProfiledVocabulary& v : kProfiledVocabularies) known.emplace_back(v.model);
      return CsvLineError(path, line,
                          absl::StrCat("model '", row.model,
                                       "': its vocabulary size is not known (the sample "
                                       "phase grows with it); known: ",
                                       absl::StrJoin(known, ", ")));
    }
    double batch = 0, tp = 0;
    if (!absl::SimpleAtod(fields[index["batch_size"]], &batch) || batch < 1 || batch != std::floor(batch) ||
        !absl::SimpleAtod(fields[index["tensor_parallel_degree"]], &tp) || tp < 1 || tp != std::floor(tp)) {
      return CsvLineError(path, line, "batch_size and tensor_parallel_degree must be positive integers");
    }
    row.batch_size = static_cast<int>(batch);
    row.tensor_parallel = static_cast<int>(tp);
    for (const PhaseColumn& p : kPhases) {
      double ms = 0;
      if (!absl::SimpleAtod(fields[index[p.column]], &ms) || !(ms >= 0) || ms > 1e6) {
        return CsvLineError(path, line,
                            absl::StrCat("column '", p.column, "': not a time in ms: '", fields[index[p.column]], "'"));
      }
      row.mean_s[p.column] = ms * 1e-3;
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return CsvLineError(path, 2, "no data rows");
  return rows;
}

absl::StatusOr<HostCalibration> FitHostCalibration(const std::vector<HostOverheadRow>& rows, const std::string& path) {
  std::set<std::string> models;
  for (const HostOverheadRow& r : rows) models.insert(r.model);
  if (models.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": needs rows of at least two models (errors leave one out)"));
  }
  HostCalibration h;
  h.set_name("vllm-legacy-a100");
  CalibrationProvenance& prov = *h.mutable_provenance();
  prov.set_source("vidur's profiling of an early vLLM (2023-24, Ray workers) on an A100 server; host CPU not recorded");
  prov.set_date("not recorded by the source");
  CalibrationInput& input = *prov.add_inputs();
  input.set_path(path);
  input.set_kind("vidur-cpu-overheads-csv");
  input.set_rows(static_cast<int32_t>(rows.size()));
  input.set_description(
      absl::StrCat("mean host ms per decode step and phase over batch size, TP and ", models.size(), " models"));
  prov.set_tool("infergrid calibrate host v2");
  double vocabulary_sum = 0;
  for (const HostOverheadRow& r : rows) vocabulary_sum += static_cast<double>(r.vocab_size);
  h.set_reference_vocab_size(vocabulary_sum / static_cast<double>(rows.size()));
  std::vector<double> step_errors;
  std::map<std::pair<std::string, int>, std::pair<double, double>> step;  // (model, line) -> predicted, measured
  for (const PhaseColumn& p : kPhases) {
    const std::vector<double> all = FitPhase(rows, p, [](const HostOverheadRow&) { return true; });
    HostPhase& phase = *h.add_phases();
    phase.set_name(p.name);
    phase.set_measured_as(p.column);
    SetTerms(p, all, phase);
    phase.set_rows(static_cast<int32_t>(rows.size()));
    double in_sum = 0, out_sum = 0;
    std::vector<double> out_abs;
    for (const std::string& left_out : models) {
      const std::vector<double> fit = FitPhase(rows, p, [&](const HostOverheadRow& r) { return r.model != left_out; });
      for (const HostOverheadRow& r : rows) {
        if (r.model != left_out) continue;
        const double measured = r.mean_s.at(p.column);
        const double predicted = Predict(fit, Regressors(r, p));
        out_sum += std::abs(predicted - measured) / measured;
        out_abs.push_back(std::abs(predicted - measured));
        auto& [pred, meas] = step[{r.model, r.line}];
        pred += predicted;
        meas += measured;
      }
    }
    for (const HostOverheadRow& r : rows) {
      const double measured = r.mean_s.at(p.column);
      in_sum += std::abs(Predict(all, Regressors(r, p)) - measured) / measured;
    }
    phase.set_held_in_mape(in_sum / static_cast<double>(rows.size()));
    phase.set_held_out_mape(out_sum / static_cast<double>(rows.size()));
    phase.set_held_out_median_abs_error_s(Median(out_abs));
  }
  for (const auto& [key, v] : step) step_errors.push_back(std::abs(v.first - v.second) / v.second);
  double sum = 0;
  for (double e : step_errors) sum += e;
  h.set_step_held_out_mape(sum / static_cast<double>(step_errors.size()));
  h.add_notes(
      "the engine's Ray RPC time (ray_comm_time_mean, about 6 ms a step at TP >= 2) is not fitted: "
      "the engines modelled run their workers without Ray");
  h.add_notes(
      "phases are per decode step and grow with the sequences in the batch; the prompt tokens of a "
      "prefill are not a term (the table has decode steps only)");
  return h;
}

}  // namespace infergrid
