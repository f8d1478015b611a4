#include "sim/app/sweep/sweep_results.h"

#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/json_text.h"
#include "google/protobuf/util/json_util.h"
#include "sim/app/results/simulation.pb.h"

namespace infergrid::sweep {
namespace {

using Getter = std::function<double(const SimulationSummary&)>;

const std::vector<std::pair<std::string, Getter>>& Metrics() {
  static const auto* metrics = new std::vector<std::pair<std::string, Getter>>{
      {"requests", [](const SimulationSummary& s) { return s.requests(); }},
      {"completed", [](const SimulationSummary& s) { return s.completed(); }},
      {"rejected", [](const SimulationSummary& s) { return s.rejected(); }},
      {"ttft_p50_s", [](const SimulationSummary& s) { return s.ttft().p50(); }},
      {"ttft_p90_s", [](const SimulationSummary& s) { return s.ttft().p90(); }},
      {"ttft_p99_s", [](const SimulationSummary& s) { return s.ttft().p99(); }},
      {"tpot_p50_s", [](const SimulationSummary& s) { return s.tpot().p50(); }},
      {"tpot_p90_s", [](const SimulationSummary& s) { return s.tpot().p90(); }},
      {"tpot_p99_s", [](const SimulationSummary& s) { return s.tpot().p99(); }},
      {"itl_p50_s", [](const SimulationSummary& s) { return s.itl().p50(); }},
      {"itl_p90_s", [](const SimulationSummary& s) { return s.itl().p90(); }},
      {"itl_p99_s", [](const SimulationSummary& s) { return s.itl().p99(); }},
      {"e2e_p50_s", [](const SimulationSummary& s) { return s.e2e().p50(); }},
      {"e2e_p90_s", [](const SimulationSummary& s) { return s.e2e().p90(); }},
      {"e2e_p99_s", [](const SimulationSummary& s) { return s.e2e().p99(); }},
      {"queueing_p50_s", [](const SimulationSummary& s) { return s.queueing().p50(); }},
      {"queueing_p99_s", [](const SimulationSummary& s) { return s.queueing().p99(); }},
      {"requests_per_s", [](const SimulationSummary& s) { return s.throughput().requests_per_s(); }},
      {"output_tokens_per_s", [](const SimulationSummary& s) { return s.throughput().output_tokens_per_s(); }},
      {"total_tokens_per_s", [](const SimulationSummary& s) { return s.throughput().total_tokens_per_s(); }},
      {"goodput_fraction", [](const SimulationSummary& s) { return s.goodput().fraction(); }},
      {"goodput_requests_per_s", [](const SimulationSummary& s) { return s.goodput().requests_per_s(); }},
      {"kv_peak_fraction", [](const SimulationSummary& s) { return s.kv().peak_fraction(); }},
      {"preemptions", [](const SimulationSummary& s) { return s.kv().preemptions(); }},
      {"utilization", [](const SimulationSummary& s) { return s.iterations().utilization(); }},
      {"simulated_duration_s", [](const SimulationSummary& s) { return s.simulated_duration_s(); }},
  };
  return *metrics;
}

// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.
std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string OneLineJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);  // cannot fail: no Any
  return json;
}

// The setting of `axis` in `run` ("" if the run does not vary it).
std::string SettingOf(const SweepRun& run, const std::string& axis) {
  for (const SweepSetting& setting : run.settings()) {
    if (setting.flag() == axis) return setting.value();
  }
  return "";
}

// The result of `run`: from the first store where it is done, else the first where it failed;
// nullopt-like `found` false when no store has it.
absl::Status FindResult(const SweepRun& run, const std::vector<const PointStore*>& stores, SweepResult& result,
                        bool& found) {
  found = false;
  const PointStore* failed_in = nullptr;
  for (const PointStore* store : stores) {
    const RunState state = store->StateOf(run);
    if (state == RunState::kFailed && failed_in == nullptr) failed_in = store;
    if (state != RunState::kDone) continue;
    absl::StatusOr<std::string> text = store->ReadSummary(run);
    if (!text.ok()) return text.status();
    const std::string path = absl::StrCat(store->RunFolder(run), "/summary.json");
    if (absl::Status s = ParseJsonMessage(*text, JsonSource{path}, "summary.json", result.mutable_summary()); !s.ok()) {
      return s;
    }
    result.set_status("ok");
    found = true;
    return absl::OkStatus();
  }
  if (failed_in != nullptr) {
    absl::StatusOr<std::string> error = failed_in->ReadError(run);
    if (!error.ok()) return error.status();
    result.set_status("failed");
    result.set_error(*error);
    found = true;
  }
  return absl::OkStatus();
}

}  // namespace

const std::vector<std::string>& MetricColumns() {
  static const auto* columns = [] {
    auto* names = new std::vector<std::string>;
    for (const auto& metric : Metrics()) names->push_back(metric.first);
    return names;
  }();
  return *columns;
}

absl::StatusOr<SweepResults> CollectResults(const SweepManifest& manifest,
                                            const std::vector<const PointStore*>& stores) {
  SweepResults results;
  std::vector<std::string> header = {"point", "replication", "seed"};
  for (const std::string& axis : manifest.axes()) header.push_back(CsvField(axis));
  header.push_back("status");
  for (const std::string& column : MetricColumns()) header.push_back(column);
  header.push_back("hash");
  results.csv = absl::StrCat(absl::StrJoin(header, ","), "\n");
  for (const SweepRun& run : manifest.runs()) {
    SweepResult result;
    bool found = false;
    if (absl::Status s = FindResult(run, stores, result, found); !s.ok()) return s;
    if (!found) {
      ++results.missing;
      continue;
    }
    *result.mutable_run() = run;
    const bool ok = result.status() == "ok";
    ++(ok ? results.ok : results.failed);
    std::vector<std::string> row = {absl::StrCat(run.point()), absl::StrCat(run.replication()),
                                    absl::StrCat(run.seed())};
    for (const std::string& axis : manifest.axes()) row.push_back(CsvField(SettingOf(run, axis)));
    row.push_back(result.status());
    for (const auto& metric : Metrics()) {
      row.push_back(ok ? absl::StrFormat("%.10g", metric.second(result.summary())) : "");
    }
    row.push_back(run.hash());
    absl::StrAppend(&results.csv, absl::StrJoin(row, ","), "\n");
    absl::StrAppend(&results.jsonl, OneLineJson(result), "\n");
  }
  return results;
}

absl::Status WriteResults(const PointStore& store, const SweepResults& results) {
  if (absl::Status s = store.WriteFile("results.csv", results.csv); !s.ok()) return s;
  return store.WriteFile("results.jsonl", results.jsonl);
}

}  // namespace infergrid::sweep
