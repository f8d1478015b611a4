#include "calibration/profile_inputs.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/csv_line.h"
#include "base/textproto.h"
#include "calibration/measurements.pb.h"

namespace infergrid {
namespace {

// The most one input may hold (64 MiB): far above any published table or sweep, so a larger
// file is refused before it is parsed.
constexpr size_t kMaxInputBytes = size_t{1} << 26;

ProfileInput StartInput(ProfileInputKind kind, const std::string& path, absl::string_view kind_name) {
  ProfileInput input;
  input.kind = kind;
  input.provenance.set_path(path);
  input.provenance.set_kind(std::string(kind_name));
  return input;
}

absl::StatusOr<std::vector<Microbenchmark>> ParseMicrobenchmarks(const std::string& contents, const std::string& path) {
  std::vector<Microbenchmark> rows;
  std::vector<absl::string_view> lines = absl::StrSplit(contents, '\n');
  for (size_t l = 1; l < lines.size(); ++l) {
    if (absl::StripAsciiWhitespace(lines[l]).empty()) continue;
    absl::StatusOr<std::vector<std::string>> fields = CsvLineFields(lines[l], path, static_cast<int>(l) + 1);
    if (!fields.ok()) return fields.status();
    const std::vector<std::string>& f = *fields;
    if (f.size() < 9) {
      return CsvLineError(path, static_cast<int>(l) + 1, absl::StrCat("expected 9 fields, got ", f.size()));
    }
    rows.push_back({f[0], f[3], f[4], f[5], f[7], f[8]});
  }
  return rows;
}

// A calibration profile of another GPU lends its collective tables (interconnect-scaled) where
// the inputs measure none; any other text is a kernels/ Measurements sweep.
absl::StatusOr<ProfileInput> ReadTextprotoInput(const GpuSpec& gpu, const std::string& path) {
  std::string text;
  if (absl::Status s = ReadFileToString(path, &text, kMaxInputBytes); !s.ok()) return s;
  Calibration other;
  if (ParseTextProto(text, path, &other).ok() && !other.gpu().empty()) {
    ProfileInput input = StartInput(ProfileInputKind::kOtherGpuProfile, path, "calibration-profile");
    input.provenance.set_rows(static_cast<int32_t>(other.collectives_size()));
    input.provenance.set_description(
        "collective tables only, scaled to this GPU's interconnect, for rank "
        "counts no other input measures");
    input.other_gpu_profile = std::move(other);
    return input;
  }
  Measurements measurements;
  if (absl::Status s = ParseTextProto(text, path, &measurements); !s.ok()) return s;
  absl::StatusOr<MeasurementsFit> m = MeasurementsForFit(measurements, path, gpu);
  if (!m.ok()) return m.status();
  ProfileInput input = StartInput(ProfileInputKind::kMeasurements, path, "measurements-textproto");
  input.provenance.set_rows(m->rows);
  input.provenance.set_description(m->description);
  input.samples = std::move(m->samples);
  m->samples.clear();
  input.measurements = std::move(*m);
  return input;
}

// A CSV, recognised by its header row.
absl::StatusOr<ProfileInput> ReadCsvInput(const std::string& path) {
  std::string contents;
  if (absl::Status s = ReadFileToString(path, &contents, kMaxInputBytes); !s.ok()) return s;
  const absl::string_view header = absl::string_view(contents).substr(0, contents.find('\n'));
  if (LooksLikeVidurOps(header)) {
    absl::StatusOr<VidurOpsTable> table = ParseVidurOpsCsv(contents, path);
    if (!table.ok()) return table.status();
    std::vector<std::string> skipped;
    absl::StatusOr<std::vector<KernelSample>> samples = SamplesFromVidurOps(*table, &skipped);
    if (!samples.ok()) return samples.status();
    ProfileInput input = StartInput(ProfileInputKind::kVidurOps, path, "vidur-ops-csv");
    input.provenance.set_rows(static_cast<int32_t>(table->rows.size()));
    input.provenance.set_description(
        absl::StrCat("per-op medians (ms) over num_tokens and TP; fitted: GEMM efficiency, HBM curve and the "
                     "fixed cost and bandwidth fraction of norm, rope, activation, residual_add, embedding (",
                     samples->size(), " op timings)",
                     skipped.empty() ? "" : absl::StrCat("; not fitted: ", absl::StrJoin(skipped, "; "))));
    input.samples = *std::move(samples);
    return input;
  }
  if (LooksLikeVidurCollective(header)) {
    absl::StatusOr<std::vector<VidurCollectiveRow>> rows = ParseVidurCollectiveCsv(contents, path);
    if (!rows.ok()) return rows.status();
    ProfileInput input = StartInput(ProfileInputKind::kVidurCollective, path, "vidur-collective-csv");
    input.provenance.set_rows(static_cast<int32_t>(rows->size()));
    input.collective_rows = *std::move(rows);
    return input;
  }
  if (absl::StartsWith(header, "id,category,figure,value")) {
    absl::StatusOr<std::vector<Microbenchmark>> rows = ParseMicrobenchmarks(contents, path);
    if (!rows.ok()) return rows.status();
    ProfileInput input = StartInput(ProfileInputKind::kMicrobenchmarks, path, "microbenchmarks-csv");
    input.provenance.set_rows(static_cast<int32_t>(rows->size()));
    input.provenance.set_description(
        "published figures: fp8/bf16 MAMF (F26, F27) -> fp8 GEMM fraction; FlashAttention-3 "
        "(F32) -> prefill attention compute fraction; FlashInfer decode bandwidth (F34) -> decode "
        "attention bandwidth fraction; memcpy (F35) as a cross-check");
    input.microbenchmarks = *std::move(rows);
    return input;
  }
  return absl::InvalidArgumentError(
      absl::StrCat(path,
                   ":1: unrecognised input (expected a vidur per-op or collective CSV, the "
                   "micro-benchmark CSV or a Measurements .textproto)"));
}

}  // namespace

absl::StatusOr<std::vector<ProfileInput>> ReadProfileInputs(const GpuSpec& gpu, const std::vector<std::string>& paths) {
  std::vector<ProfileInput> inputs;
  for (const std::string& path : paths) {
    const bool textproto = absl::EndsWith(path, ".textproto") || absl::EndsWith(path, ".txtpb");
    absl::StatusOr<ProfileInput> input = textproto ? ReadTextprotoInput(gpu, path) : ReadCsvInput(path);
    if (!input.ok()) return input.status();
    inputs.push_back(*std::move(input));
  }
  return inputs;
}

}  // namespace infergrid
