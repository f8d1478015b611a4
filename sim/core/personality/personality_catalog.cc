#include "sim/core/personality/personality_catalog.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "absl/algorithm/container.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/types/span.h"
#include "base/embedded_catalog.h"
#include "base/embedded_file.h"
#include "base/textproto.h"
#include "sim/core/personality/front_end_model.h"
#include "sim/core/personality/personality_inheritance.h"

namespace infergrid::engine_personalities {
absl::Span<const EmbeddedFile> EmbeddedFiles();
}  // namespace infergrid::engine_personalities

namespace infergrid {
namespace {

// A broken compiled-in personality is a build defect: reported as LoadEmbeddedCatalog does.
[[noreturn]] void AbortOnBadPersonality(const absl::Status& status) {
  std::fprintf(stderr, "infergrid: internal engine personality error: %s\n", std::string(status.message()).c_str());
  std::abort();
}

// The files are parsed alone, then resolved through their bases (personality_inheritance.h);
// only a resolved personality is whole enough to validate.
const std::vector<EnginePersonality>& Catalog() {
  static const std::vector<EnginePersonality>* catalog = [] {
    auto* personalities = new std::vector<EnginePersonality>;
    absl::StatusOr<std::vector<CatalogEntry<EnginePersonality>>> resolved =
        ResolvePersonalityBases(LoadEmbeddedCatalog<EnginePersonality>(
            engine_personalities::EmbeddedFiles(), "engine personality", NoCatalogCheck<EnginePersonality>));
    if (!resolved.ok()) AbortOnBadPersonality(resolved.status());
    for (CatalogEntry<EnginePersonality>& entry : *resolved) {
      if (absl::Status status = ValidateEnginePersonality(entry.message, entry.path); !status.ok()) {
        AbortOnBadPersonality(status);
      }
      personalities->push_back(std::move(entry.message));
    }
    std::sort(personalities->begin(), personalities->end(), [](const EnginePersonality& a, const EnginePersonality& b) {
      return PersonalityName(a) < PersonalityName(b);
    });
    return personalities;
  }();
  return *catalog;
}

// "0.15.1" -> {0, 15, 1}; nullopt unless every dot-separated part is a number.
std::optional<std::vector<int64_t>> ParseVersion(absl::string_view version) {
  if (version.empty()) return std::nullopt;
  std::vector<int64_t> parts;
  for (absl::string_view part : absl::StrSplit(version, '.')) {
    int64_t n = 0;
    if (part.empty() || !absl::c_all_of(part, absl::ascii_isdigit) || !absl::SimpleAtoi(part, &n)) return std::nullopt;
    parts.push_back(n);
  }
  return parts;
}

// Component by component, a missing component counting as 0 (0.11 == 0.11.0 < 0.15.1).
int CompareVersions(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const int64_t x = i < a.size() ? a[i] : 0;
    const int64_t y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

}  // namespace

std::string PersonalityName(const EnginePersonality& personality) {
  return absl::StrCat(personality.engine(), "@", personality.version());
}

std::vector<std::string> EnginePersonalityNames() {
  std::vector<std::string> names;
  for (const EnginePersonality& p : Catalog()) names.push_back(PersonalityName(p));
  return names;
}

absl::StatusOr<ResolvedEngine> ResolveEngine(absl::string_view name) {
  const std::string key = absl::AsciiStrToLower(name);
  const size_t at = key.find('@');
  const std::string engine = key.substr(0, at);
  const std::string version = at == std::string::npos ? "" : key.substr(at + 1);
  // Exact names first: no version (the default), a personality's own version, trtllm@pytorch.
  struct Numbered {
    const EnginePersonality* personality;
    std::vector<int64_t> version;
  };
  std::vector<Numbered> numbered;  // this engine's personalities with numeric versions, ascending
  for (const EnginePersonality& p : Catalog()) {
    if (p.engine() != engine) continue;
    if (version.empty() ? p.is_default() : p.version() == version) return ResolvedEngine{p, ""};
    if (std::optional<std::vector<int64_t>> v = ParseVersion(p.version())) numbered.push_back({&p, *std::move(v)});
  }
  const std::optional<std::vector<int64_t>> wanted = ParseVersion(version);
  if (!wanted.has_value() || numbered.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown engine '", name, "' (expected vllm-v1, vllm-v0, sglang or trtllm, optionally with a version: ",
        absl::StrJoin(EnginePersonalityNames(), ", "),
        "; a numeric version between two of an engine's runs on the older)"));
  }
  std::sort(numbered.begin(), numbered.end(),
            [](const Numbered& a, const Numbered& b) { return CompareVersions(a.version, b.version) < 0; });
  std::string known;
  for (const Numbered& n : numbered)
    absl::StrAppend(&known, known.empty() ? "" : ", ", PersonalityName(*n.personality));
  // A new major release may change anything: only the majors that have a personality resolve.
  const bool same_major =
      absl::c_any_of(numbered, [&](const Numbered& n) { return n.version.front() == wanted->front(); });
  if (!same_major) {
    return absl::InvalidArgumentError(absl::StrCat("engine '", name, "': no personality of major version ",
                                                   wanted->front(), " (known: ", known, "); name one of them"));
  }
  if (CompareVersions(numbered.front().version, *wanted) > 0) {
    return absl::InvalidArgumentError(absl::StrCat("engine '", name, "' is older than the oldest ", engine,
                                                   " personality, ", PersonalityName(*numbered.front().personality),
                                                   " (known: ", known, ")"));
  }
  // The newest at or below the version (the last one is the newest of all).
  auto below = std::find_if(numbered.rbegin(), numbered.rend(),
                            [&](const Numbered& n) { return CompareVersions(n.version, *wanted) <= 0; });
  const EnginePersonality& p = *below->personality;
  if (CompareVersions(below->version, *wanted) == 0) return ResolvedEngine{p, ""};  // 0.11.0 is 0.11
  const std::string why = below == numbered.rbegin()
                              ? absl::StrCat("the newest ", engine, " personality; ", version, " is past it")
                              : absl::StrCat("the newest at or below ", version);
  return ResolvedEngine{
      p, absl::StrCat(engine, "@", version, " runs on personality ", PersonalityName(p), " (", why, ")")};
}

absl::StatusOr<EnginePersonality> ResolveEnginePersonality(absl::string_view name) {
  absl::StatusOr<ResolvedEngine> resolved = ResolveEngine(name);
  if (!resolved.ok()) return resolved.status();
  return std::move(resolved->personality);
}

absl::Status ValidateEnginePersonality(const EnginePersonality& p, absl::string_view where) {
  auto fail = [&](absl::string_view what) { return absl::InvalidArgumentError(absl::StrCat(where, ": ", what)); };
  if (p.engine().empty() || p.version().empty()) return fail("engine and version must be set");
  if (p.rule() == ENGINE_MEMORY_RULE_UNSPECIFIED) return fail("rule must be set");
  if (p.default_block_size() <= 0) return fail("default_block_size must be positive");
  if (p.default_fraction() < 0 || p.default_fraction() > 1) {
    return fail("default_fraction must be in [0, 1] (0: derived)");
  }
  if (p.default_fraction() == 0 && p.fraction_by_tp().empty()) {
    return fail("a derived default fraction needs fraction_by_tp entries");
  }
  if (p.batch_defaults().empty()) return fail("batch_defaults needs at least one entry");
  if (!(p.watermark_fraction() >= 0 && p.watermark_fraction() < 0.5)) {
    return fail("watermark_fraction must be in [0, 0.5)");
  }
  if (p.rule() != SGLANG_STATIC_FRACTION && !p.has_activation()) {
    return fail("vLLM and TensorRT-LLM rules need an activation model");
  }
  if (p.non_torch_gib_tp1() < 0 || p.non_torch_gib_tp_multi() < 0 || p.weight_load_overhead_gib() < 0 ||
      p.rope_cache_bytes_per_element() < 0) {
    return fail("memory terms must not be negative");
  }
  if (p.windowed_kv_cache() == SGLANG_HYBRID_SWA_POOL &&
      (p.rule() != SGLANG_STATIC_FRACTION || !(p.swa_full_tokens_ratio() > 0 && p.swa_full_tokens_ratio() <= 1))) {
    return fail("SGLANG_HYBRID_SWA_POOL needs the SGLang rule and swa_full_tokens_ratio in (0, 1]");
  }
  const StreamInterval& stream = p.execution().stream_interval();
  if (stream.rule() != STREAM_INTERVAL_NONE && stream.default_interval() < 1) {
    return fail("execution.stream_interval.default_interval must be at least 1");
  }
  return ValidateFrontEndModel(p.execution().front_end(), where);
}

}  // namespace infergrid
