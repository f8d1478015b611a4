#include "sim/core/personality/personality_catalog.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "base/embedded_catalog.h"
#include "base/embedded_file.h"
#include "base/textproto.h"
#include "sim/core/personality/front_end_model.h"

namespace infergrid::engine_personalities {
absl::Span<const EmbeddedFile> EmbeddedFiles();
}  // namespace infergrid::engine_personalities

namespace infergrid {
namespace {

const std::vector<EnginePersonality>& Catalog() {
  static const std::vector<EnginePersonality>* catalog = [] {
    auto* personalities = new std::vector<EnginePersonality>;
    for (auto& entry : LoadEmbeddedCatalog<EnginePersonality>(engine_personalities::EmbeddedFiles(),
                                                               "engine personality", ValidateEnginePersonality)) {
      personalities->push_back(std::move(entry.message));
    }
    std::sort(personalities->begin(), personalities->end(),
              [](const EnginePersonality& a, const EnginePersonality& b) {
                return PersonalityName(a) < PersonalityName(b);
              });
    return personalities;
  }();
  return *catalog;
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

absl::StatusOr<EnginePersonality> ResolveEnginePersonality(absl::string_view name) {
  const std::string key = absl::AsciiStrToLower(name);
  const size_t at = key.find('@');
  const std::string engine = key.substr(0, at);
  const std::string version = at == std::string::npos ? "" : key.substr(at + 1);
  for (const EnginePersonality& p : Catalog()) {
    if (p.engine() != engine) continue;
    if (version.empty() ? p.is_default() : p.version() == version) return p;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown engine '", name, "' (expected vllm-v1, vllm-v0, sglang or trtllm, optionally "
      "with a version: ", absl::StrJoin(EnginePersonalityNames(), ", "), ")"));
}

absl::Status ValidateEnginePersonality(const EnginePersonality& p, absl::string_view where) {
  auto fail = [&](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
  };
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
  if (p.non_torch_gib_tp1() < 0 || p.non_torch_gib_tp_multi() < 0 ||
      p.weight_load_overhead_gib() < 0 || p.rope_cache_bytes_per_element() < 0) {
    return fail("memory terms must not be negative");
  }
  if (p.windowed_kv_cache() == SGLANG_HYBRID_SWA_POOL &&
      (p.rule() != SGLANG_STATIC_FRACTION || !(p.swa_full_tokens_ratio() > 0 && p.swa_full_tokens_ratio() <= 1))) {
    return fail("SGLANG_HYBRID_SWA_POOL needs the SGLang rule and swa_full_tokens_ratio in (0, 1]");
  }
  return ValidateFrontEndModel(p.execution().front_end(), where);
}

}  // namespace infergrid
