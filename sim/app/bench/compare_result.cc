#include "sim/app/bench/compare_result.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/json_text.h"
#include "base/textproto.h"

namespace infergrid::bench {
namespace {

enum class Kind { kServe, kSglangServe, kLatency, kThroughput, kOneBatch, kUnknown };

template <typename Json>
Kind KindOf(const Json& doc) {
  if (!doc.is_object()) return Kind::kUnknown;
  if (doc.contains("prefill_latency") && doc.contains("total_latency")) return Kind::kOneBatch;
  if (doc.contains("avg_latency")) return Kind::kLatency;
  if (doc.contains("requests_per_second") && doc.contains("elapsed_time")) return Kind::kThroughput;
  if (doc.contains("mean_e2e_latency_ms") || doc.contains("total_throughput")) return Kind::kSglangServe;
  if (doc.contains("request_throughput")) return Kind::kServe;
  return Kind::kUnknown;
}

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kServe: return "vllm bench serve";
    case Kind::kSglangServe: return "sglang bench_serving";
    case Kind::kLatency: return "vllm bench latency";
    case Kind::kThroughput: return "vllm bench throughput";
    case Kind::kOneBatch: return "sglang bench_one_batch";
    case Kind::kUnknown: break;
  }
  return "unknown";
}

// The real document's key for one of vLLM's keys.
std::string RealKey(Kind kind, const std::string& key) {
  if (kind != Kind::kSglangServe) return key;
  if (key == "total_token_throughput") return "total_throughput";
  std::string k = key;
  if (const size_t at = k.find("_e2el_"); at != std::string::npos) k.replace(at, 6, "_e2e_latency_");
  return k;
}

bool SameTraffic(const PyJson& predicted, const nlohmann::json& doc) {
  const auto rate = [](const auto& j) -> std::string {
    if (!j.contains("request_rate")) return "";
    const auto& v = j["request_rate"];
    if (v.is_string()) return v.template get<std::string>();
    if (v.is_number()) return PythonFloatRepr(v.template get<double>());
    return "";
  };
  const auto concurrency = [](const auto& j) -> std::string {
    if (!j.contains("max_concurrency") || !j["max_concurrency"].is_number()) return "none";
    return absl::StrCat(j["max_concurrency"].template get<int64_t>());
  };
  // bench_one_batch's lines: one per (batch, input, output) point.
  const auto shape = [](const auto& j) -> std::string {
    std::string s;
    for (const char* key : {"batch_size", "input_len", "output_len"}) {
      if (j.contains(key) && j[key].is_number_integer())
        absl::StrAppend(&s, key, "=", j[key].template get<int64_t>(), ";");
    }
    return s;
  };
  return rate(predicted) == rate(doc) && concurrency(predicted) == concurrency(doc) && shape(predicted) == shape(doc);
}

}  // namespace

absl::StatusOr<std::vector<nlohmann::json>> ReadSavedResults(const std::string& path) {
  std::string text;
  if (absl::Status s = ReadFileToString(path, &text); !s.ok()) return s;
  if (absl::StripAsciiWhitespace(text).empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": empty file"));
  // One document, or JSON lines (--append-result, SGLang's --output-file).
  absl::StatusOr<nlohmann::json> whole = ParseJson(text, path);
  if (whole.ok()) {
    std::vector<nlohmann::json> docs;
    docs.push_back(*std::move(whole));
    return docs;
  }
  std::vector<nlohmann::json> docs;
  int64_t line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    absl::StatusOr<nlohmann::json> doc = ParseJson(line, JsonSource{path, line_number, true});
    // A first line that is no document of its own: the file is one document, and its error is the
    // whole document's.
    if (!doc.ok()) return docs.empty() ? whole.status() : doc.status();
    docs.push_back(*std::move(doc));
  }
  return docs;
}

namespace {

// A measured value of the real result: null is a metric the run did not measure; anything else
// must be a finite number, not negative (every metric compared is a time, a rate or a count).
absl::StatusOr<std::optional<double>> MeasuredValue(const nlohmann::json& value, const std::string& path,
                                                    const std::string& field) {
  if (value.is_null()) return std::optional<double>();
  if (!value.is_number()) return absl::InvalidArgumentError(absl::StrCat(path, ": \"", field, "\" is not a number"));
  const double measured = value.get<double>();
  if (!std::isfinite(measured) || measured < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": \"", field, "\" is ", PythonFloatRepr(measured),
                     "; a measured time, rate or count is a finite number, not negative"));
  }
  return std::optional<double>(measured);
}

}  // namespace

absl::StatusOr<Comparison> CompareResults(const PyJson& predicted, const std::vector<nlohmann::json>& real,
                                          const std::string& path) {
  if (real.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": no result in the file"));
  Comparison comparison;
  const Kind predicted_kind = KindOf(predicted);
  const nlohmann::json* doc = &real.back();
  if (real.size() > 1) {
    bool found = false;
    for (const nlohmann::json& d : real) {
      if (SameTraffic(predicted, d)) {
        doc = &d;
        found = true;
      }
    }
    const char* same = predicted_kind == Kind::kOneBatch ? "batch size and lengths" : "request rate and concurrency";
    comparison.notes.push_back(
        found ? absl::StrCat("compared with the result of the same ", same, " (", real.size(), " in the file)")
              : absl::StrCat("no result with this ", same, " among ", real.size(), ": compared with the last"));
  }
  const Kind kind = KindOf(*doc);
  if (kind == Kind::kUnknown) {
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        ": not a saved result of vllm bench serve/latency/throughput or sglang bench_serving/bench_one_batch "
        "(none of request_throughput, avg_latency, requests_per_second, prefill_latency)"));
  }
  const bool both_serve = (kind == Kind::kServe || kind == Kind::kSglangServe) && predicted_kind == Kind::kServe;
  if (!both_serve && kind != predicted_kind) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": a ", KindName(kind), " result; this run is ", KindName(predicted_kind)));
  }
  comparison.kind = KindName(kind);
  // Every numeric result of the prediction that names a measured quantity.
  for (const auto& [key, value] : predicted.items()) {
    if (!value.is_number() || key == "num_prompts" || key == "burstiness" || key == "request_rate" ||
        key == "max_concurrency" || key == "rtfx" || key == "num_requests" || key == "batch_size" ||
        key == "input_len" || key == "output_len") {
      continue;
    }
    if (key == "percentiles" || key == "latencies") continue;
    MetricComparison m;
    m.metric = key;
    m.predicted = value.get<double>();
    const std::string real_key = RealKey(kind, key);
    if (doc->contains(real_key)) {
      absl::StatusOr<std::optional<double>> measured = MeasuredValue((*doc)[real_key], path, real_key);
      if (!measured.ok()) return measured.status();
      m.measured = *measured;
    }
    comparison.metrics.push_back(m);
  }
  if (kind == Kind::kLatency && predicted.contains("percentiles") && doc->contains("percentiles")) {
    const nlohmann::json& real_p = (*doc)["percentiles"];
    if (!real_p.is_object())
      return absl::InvalidArgumentError(absl::StrCat(path, ": \"percentiles\" is not an object"));
    for (const auto& [p, value] : predicted["percentiles"].items()) {
      MetricComparison m;
      m.metric = absl::StrCat("p", p, "_latency");
      m.predicted = value.get<double>();
      if (real_p.contains(p)) {
        absl::StatusOr<std::optional<double>> measured =
            MeasuredValue(real_p[p], path, absl::StrCat("percentiles.", p));
        if (!measured.ok()) return measured.status();
        m.measured = *measured;
      }
      comparison.metrics.push_back(m);
    }
  }
  const auto count = [](const auto& j, const char* key) -> int64_t {
    return j.contains(key) && j[key].is_number_integer() ? j[key].template get<int64_t>() : -1;
  };
  if (count(predicted, "num_prompts") >= 0 && count(*doc, "num_prompts") >= 0 &&
      count(predicted, "num_prompts") != count(*doc, "num_prompts")) {
    comparison.notes.push_back(absl::StrCat("the real run sent ", count(*doc, "num_prompts"), " prompts, this one ",
                                            count(predicted, "num_prompts")));
  }
  return comparison;
}

std::string ComparisonText(const Comparison& c, const std::string& path) {
  std::string out = absl::StrFormat("Predicted vs measured (%s, %s)\n", path, c.kind);
  out += absl::StrFormat("%-36s %14s %14s %9s\n", "metric", "predicted", "measured", "error");
  double total = 0;
  int n = 0;
  for (const MetricComparison& m : c.metrics) {
    if (!m.measured) {
      out += absl::StrFormat("%-36s %14.4f %14s %9s\n", m.metric, m.predicted, "-", "-");
      continue;
    }
    if (*m.measured == 0) {
      out += absl::StrFormat("%-36s %14.4f %14.4f %9s\n", m.metric, m.predicted, *m.measured, "-");
      continue;
    }
    const double error = (m.predicted - *m.measured) / *m.measured;
    total += std::fabs(error);
    ++n;
    out += absl::StrFormat("%-36s %14.4f %14.4f %+8.1f%%\n", m.metric, m.predicted, *m.measured, 100 * error);
  }
  if (n > 0) {
    out += absl::StrFormat("mean absolute error over %d metrics: %.1f%%\n", n, 100 * total / n);
  } else {
    out += "no metric of this run is in the real result\n";
  }
  for (const std::string& note : c.notes) out += absl::StrCat("note: ", note, "\n");
  return out;
}

}  // namespace infergrid::bench
