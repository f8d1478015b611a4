#include "sim/app/cli/aiperf_options.h"

#include <cmath>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "sim/app/bench/python_json.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/bench_flags.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/number_flags.h"

namespace infergrid::cli {
namespace {

// --extra-inputs keys that only shape sampling: a simulated request runs to its max_tokens.
constexpr absl::string_view kAiperfSamplingInputs[] = {
    "ignore_eos",        "temperature",      "top_p", "top_k", "min_p", "min_tokens", "seed", "repetition_penalty",
    "frequency_penalty", "presence_penalty", "stream"};

// aiperf's --extra-inputs, NAME:VALUE items: max_tokens sets every request's output length.
absl::Status ReadAiperfExtraInputs(absl::string_view text, BenchOptions& o) {
  if (absl::StartsWith(absl::StripLeadingAsciiWhitespace(text), "{")) {
    return UsageError("--extra-inputs: give NAME:VALUE items (max_tokens:256), not a JSON object");
  }
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    const size_t colon = item.find(':');
    if (colon == absl::string_view::npos) {
      return UsageError(absl::StrCat("--extra-inputs: '", item, "' is not NAME:VALUE"));
    }
    const absl::string_view name = absl::StripAsciiWhitespace(item.substr(0, colon));
    const absl::string_view value = absl::StripAsciiWhitespace(item.substr(colon + 1));
    if (name == "max_tokens") {
      int64_t tokens = 0;
      if (!absl::SimpleAtoi(value, &tokens) || tokens < 1 || tokens > bench::kMaxDatasetTokens) {
        return UsageError(absl::StrCat("--extra-inputs: max_tokens:", value, " is not a token count from 1 to ",
                                       bench::kMaxDatasetTokens));
      }
      o.dataset.random_output_len = tokens;
      continue;
    }
    bool sampling = false;
    for (absl::string_view known : kAiperfSamplingInputs) sampling = sampling || known == name;
    if (!sampling) {
      return UsageError(absl::StrCat("--extra-inputs: '", name,
                                     "' is not simulated (max_tokens sets the output length; ignore_eos and the "
                                     "sampling settings are accepted without effect)"));
    }
    o.inert_flags.push_back(absl::StrCat("--extra-inputs ", name));
  }
  return absl::OkStatus();
}

// aiperf's default folder: artifacts/{model, '/' as '_'}-openai-{endpoint type}-{stimulus}
// (user_config.py's _compute_artifact_directory; the stimulus names the concurrency and the rate).
std::string AiperfArtifactDir(const BenchOptions& o, const std::string& endpoint_type) {
  std::string stimulus;
  if (o.max_concurrency) stimulus = absl::StrCat("concurrency", *o.max_concurrency);
  if (!std::isinf(o.request_rates[0])) {
    absl::StrAppend(&stimulus, stimulus.empty() ? "" : "-", "request_rate", bench::PythonFloatRepr(o.request_rates[0]));
  }
  return absl::StrCat(bench::kAiperfDefaultArtifactDir, "/", absl::StrReplaceAll(o.model_id, {{"/", "_"}}), "-openai-",
                      endpoint_type, "-", stimulus);
}

// The flags that would change the load in ways not simulated: refused with the reason.
absl::Status RefuseAiperfUnmodelled(const FlagValues& flags, const BenchFlags& f) {
  if (f.synthetic_input_tokens_stddev != 0 || f.output_tokens_stddev != 0) {
    const char* flag = f.synthetic_input_tokens_stddev != 0 ? "synthetic_input_tokens_stddev" : "output_tokens_stddev";
    return UsageError(absl::StrCat(DashedFlag(flags.Spelling(flag)),
                                   ": normally distributed lengths are not simulated; give 0 (every request "
                                   "of the mean length)"));
  }
  if (flags.IsSet("benchmark_duration")) {
    return UsageError(absl::StrCat(DashedFlag(flags.Spelling("benchmark_duration")),
                                   ": a duration-based run is not simulated; give --request-count"));
  }
  if (f.request_cancellation_rate != 0) {
    return UsageError("--request-cancellation-rate: cancelled requests are not simulated; give 0");
  }
  return absl::OkStatus();
}

// The load: a concurrency (closed loop), a rate, or a rate with a concurrency limit.
absl::Status ReadAiperfLoad(const FlagValues& flags, const BenchFlags& f, BenchOptions& o) {
  if (o.request_rates.size() != 1) return UsageError("--request-rate: aiperf runs one rate at a time");
  const bool rate = !std::isinf(o.request_rates[0]);
  if (f.request_rate_mode != "constant" && f.request_rate_mode != "poisson") {
    return UsageError(
        absl::StrCat("--request-rate-mode: expected constant or poisson, got '", f.request_rate_mode, "'"));
  }
  if (flags.IsSet("request_rate_mode") && !rate) {
    return UsageError("--request-rate-mode needs --request-rate (without it aiperf runs at a concurrency)");
  }
  o.aiperf.poisson = f.request_rate_mode == "poisson";
  if (!rate && !o.max_concurrency) {  // aiperf's default load: concurrency 1
    o.max_concurrency = 1;
    o.engine.max_concurrency = 1;
  }
  return absl::OkStatus();
}

}  // namespace

const std::vector<absl::string_view>& AiperfOnlyFlagNames() {
  static const std::vector<absl::string_view>* names = new std::vector<absl::string_view>{
      "request_rate_mode",    "artifact_dir",     "extra_inputs",       "synthetic_input_tokens_stddev",
      "output_tokens_stddev", "conversation_num", "benchmark_duration", "request_cancellation_rate"};
  return *names;
}

absl::Status ReadAiperf(const FlagValues& flags, BenchOptions& o) {
  const BenchFlags f = BenchFlagGroup().Read(flags);
  if (o.dataset.name != "random") return UsageError("--client=aiperf: synthetic prompts only (--dataset-name=random)");
  if (absl::Status s = RefuseAiperfUnmodelled(flags, f); !s.ok()) return s;
  if (absl::Status s = ReadAiperfLoad(flags, f, o); !s.ok()) return s;
  bench::AiperfRunOptions& a = o.aiperf;
  a.request_count = flags.IsSet("request_count") ? f.request_count : bench::kAiperfDefaultRequestCount;
  if (absl::Status s = CheckRange(flags.Spelling("request_count"), a.request_count, 1, bench::kMaxAiperfRequests);
      !s.ok()) {
    return s;
  }
  a.warmup_requests = f.warmup_request_count;
  if (absl::Status s = CheckRange(flags.Spelling("warmup_request_count"), a.warmup_requests, 0,
                                  bench::kMaxAiperfRequests - a.request_count);
      !s.ok()) {
    return s;
  }
  a.dataset_entries = f.conversation_num;
  if (absl::Status s = CheckRange(flags.Spelling("conversation_num"), a.dataset_entries, 1, bench::kMaxAiperfRequests);
      !s.ok()) {
    return s;
  }
  // aiperf counts tokens with --tokenizer; the simulation with the model's tokenizer family.
  if (flags.IsSet("tokenizer")) o.inert_flags.push_back("--tokenizer");
  if (absl::Status s = ReadAiperfExtraInputs(f.extra_inputs, o); !s.ok()) return s;
  const std::string endpoint_type = f.endpoint_type.empty() ? "chat" : f.endpoint_type;
  if (endpoint_type != "chat" && endpoint_type != "completions") {
    return UsageError(
        absl::StrCat("--endpoint-type=", endpoint_type, ": the simulated server generates text (chat or completions)"));
  }
  a.artifact_dir = flags.IsSet("artifact_dir") ? f.artifact_dir : AiperfArtifactDir(o, endpoint_type);
  if (a.artifact_dir.empty()) return UsageError("--artifact-dir: give a folder");
  return absl::OkStatus();
}

}  // namespace infergrid::cli
