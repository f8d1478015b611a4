#include "models/model_catalog.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/embedded_catalog.h"
#include "base/embedded_file.h"
#include "base/textproto.h"
#include "models/attention_layout.h"
#include "models/hf_config.h"
#include "models/parameter_count.h"

namespace infergrid::model_catalog {
absl::Span<const EmbeddedFile> EmbeddedFiles();
}  // namespace infergrid::model_catalog

namespace infergrid {
namespace {

const std::vector<ModelSpec>& Catalog() {
  static const std::vector<ModelSpec>* catalog = [] {
    auto* models = new std::vector<ModelSpec>;
    for (auto& entry : LoadEmbeddedCatalog<ModelSpec>(model_catalog::EmbeddedFiles(), "catalog", ValidateModelSpec)) {
      models->push_back(std::move(entry.message));
    }
    std::sort(models->begin(), models->end(),
              [](const ModelSpec& a, const ModelSpec& b) { return a.name() < b.name(); });
    return models;
  }();
  return *catalog;
}

absl::Status Check(bool ok, absl::string_view where, absl::string_view what) {
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", what));
}

// The entry as the repository `id` ships it: a quantized re-upload's weight format, where its
// name gives one, and a tuned variant's context length, where it differs from the base's.
ModelSpec AsNamed(const ModelSpec& spec, const HfModelId& id) {
  ModelSpec named = spec;
  if (!id.quantization.empty()) named.set_checkpoint_quantization(id.quantization);
  if (id.tuned && spec.tuned_max_position_embeddings() > 0) {
    named.set_max_position_embeddings(spec.tuned_max_position_embeddings());
  }
  return named;
}

}  // namespace

HfModelId ParseHfModelId(absl::string_view id) {
  // Suffixes of quantized re-uploads (nvidia/, RedHatAI/, hugging-quants/, Qwen's own) and the
  // format each names, longest first. An 8-bit GPTQ or a w8a8 checkpoint has none here, so its
  // id matches no entry rather than loading as a 4-bit one.
  static constexpr std::pair<absl::string_view, absl::string_view> kQuantized[] = {
      {"-fp8-dynamic", "fp8"}, {"-fp8", "fp8"},     {"-awq-int4", "awq"}, {"-awq", "awq"},
      {"-gptq-int4", "gptq"},  {"-nvfp4", "nvfp4"}, {"-fp4", "nvfp4"}};
  // Words of tuned variants that share the base model's architecture.
  static constexpr absl::string_view kVariantWords[] = {"instruct", "chat", "hf", "it", "base"};
  HfModelId parsed;
  const std::string lower = absl::AsciiStrToLower(id);
  absl::string_view repository = lower;
  if (const size_t slash = repository.rfind('/'); slash != absl::string_view::npos) {
    parsed.organisation = std::string(repository.substr(0, slash));
    repository.remove_prefix(slash + 1);
  }
  for (const auto& [suffix, format] : kQuantized) {
    if (repository.size() > suffix.size() && absl::ConsumeSuffix(&repository, suffix)) {
      parsed.quantization = std::string(format);
      break;
    }
  }
  std::vector<absl::string_view> kept;
  for (absl::string_view word : absl::StrSplit(repository, '-')) {
    if (std::find(std::begin(kVariantWords), std::end(kVariantWords), word) == std::end(kVariantWords)) {
      kept.push_back(word);
    } else if (word != "hf" && word != "base") {
      parsed.tuned = true;
    }
  }
  parsed.repository = absl::StrJoin(kept, "-");
  return parsed;
}

std::vector<std::string> ModelCatalogNames() {
  std::vector<std::string> names;
  for (const ModelSpec& spec : Catalog()) names.push_back(spec.name());
  return names;
}

absl::StatusOr<ModelSpec> FindCatalogModel(absl::string_view name) {
  const std::string key = absl::AsciiStrToLower(name);
  for (const ModelSpec& spec : Catalog()) {
    if (spec.name() == key) return spec;
  }
  // A Hugging Face id, as the engines' --model takes it: the catalog entry of the same
  // repository, of an earlier name of it, or of a re-upload under another organisation.
  const HfModelId id = ParseHfModelId(name);
  const ModelSpec* by_repository = nullptr;
  for (const ModelSpec& spec : Catalog()) {
    std::vector<std::string> ids = {spec.hf_id()};
    ids.insert(ids.end(), spec.hf_aliases().begin(), spec.hf_aliases().end());
    for (const std::string& known : ids) {
      if (known.empty()) continue;
      const HfModelId k = ParseHfModelId(known);
      if (!id.organisation.empty() && k.organisation == id.organisation && k.repository == id.repository) {
        return AsNamed(spec, id);
      }
      if (by_repository == nullptr && k.repository == id.repository) by_repository = &spec;
    }
    if (by_repository == nullptr && spec.name() == id.repository) by_repository = &spec;
  }
  if (by_repository != nullptr) return AsNamed(*by_repository, id);
  return absl::NotFoundError(absl::StrCat("unknown model '", name,
                                          "' (catalog: ", absl::StrJoin(ModelCatalogNames(), ", "),
                                          "; or give a path to a config.json)"));
}

absl::StatusOr<ModelSpec> ResolveModel(absl::string_view name_or_path) {
  absl::StatusOr<ModelSpec> from_catalog = FindCatalogModel(name_or_path);
  if (from_catalog.ok()) return from_catalog;
  const std::string path(name_or_path);
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return from_catalog.status();
  ModelSpec spec;
  if (absl::EndsWith(path, ".textproto") || absl::EndsWith(path, ".txtpb")) {
    if (absl::Status status = ReadTextProtoFile(path, &spec); !status.ok()) return status;
    if (spec.name().empty()) spec.set_name(std::filesystem::path(path).stem().string());
  } else {
    absl::StatusOr<ModelSpec> imported = ReadHfConfigFile(path);
    if (!imported.ok()) return imported.status();
    spec = *std::move(imported);
  }
  if (absl::Status status = ValidateModelSpec(spec, path); !status.ok()) return status;
  return spec;
}

namespace {

// Each check is a condition and what it requires; the first that fails is the error.
using Checks = std::vector<std::pair<bool, absl::string_view>>;
absl::Status FirstFailing(const Checks& checks, absl::string_view where) {
  for (const auto& [ok, what] : checks) {
    if (absl::Status status = Check(ok, where, what); !status.ok()) return status;
  }
  return absl::OkStatus();
}

// Bounds keep every derived product (parameters, FLOPs at 1M tokens) far from overflow.
Checks SizeChecks(const ModelSpec& spec) {
  return {
      {spec.num_layers() >= 1 && spec.num_layers() <= kMaxModelLayers, "num_layers must be in 1..10000"},
      {spec.hidden_size() >= 1 && spec.hidden_size() <= kMaxModelHiddenSize, "hidden_size must be in 1..1000000"},
      {spec.ffn_dim() >= 1 && spec.ffn_dim() <= 10000000, "ffn_dim must be in 1..1e7"},
      {spec.num_attention_heads() >= 1 && spec.num_attention_heads() <= kMaxModelAttentionHeads,
       "num_attention_heads must be in 1..100000"},
      {spec.num_kv_heads() >= 1 && spec.num_kv_heads() <= spec.num_attention_heads(),
       "num_kv_heads must be in 1..num_attention_heads"},
      {spec.num_kv_heads() >= 1 && spec.num_attention_heads() % spec.num_kv_heads() == 0,
       "num_attention_heads must be a multiple of num_kv_heads"},
      {spec.head_dim() >= 1 && spec.head_dim() <= 100000, "head_dim must be in 1..100000"},
      {spec.vocab_size() >= 1 && spec.vocab_size() <= kMaxModelVocabSize, "vocab_size must be in 1..100000000"},
      {spec.max_position_embeddings() >= 0, "max_position_embeddings must not be negative"},
      {spec.tuned_max_position_embeddings() >= 0, "tuned_max_position_embeddings must not be negative"},
      {spec.nominal_parameters() >= 0 && spec.nominal_parameters() < 1e15, "nominal_parameters must be in 0..1e15"},
      {spec.norms_per_layer() >= 0 && spec.norms_per_layer() <= 8, "norms_per_layer must be in 0..8 (0: 2)"},
      {!spec.checkpoint_quantizes_experts_only() || spec.has_moe(), "checkpoint_quantizes_experts_only needs moe"},
  };
}

Checks ExpertChecks(const ModelSpec& spec) {
  if (!spec.has_moe()) return {};
  const MixtureOfExperts& moe = spec.moe();
  return {
      {moe.num_experts() >= 1 && moe.num_experts() <= 100000, "moe.num_experts must be in 1..100000"},
      {moe.experts_per_token() >= 1 && moe.experts_per_token() <= moe.num_experts(),
       "moe.experts_per_token must be in 1..moe.num_experts"},
      {moe.expert_ffn_dim() >= 0 && moe.num_shared_experts() >= 0,
       "moe.expert_ffn_dim and moe.num_shared_experts must not be negative"},
      {moe.first_dense_layers() >= 0 && moe.first_dense_layers() < spec.num_layers(),
       "moe.first_dense_layers must be in 0..num_layers-1"},
      {moe.interleave_step() >= 0 && moe.interleave_step() <= spec.num_layers() && ExpertLayers(spec) > 0,
       "moe.interleave_step must be in 0..num_layers and leave expert layers"},
  };
}

// Latent attention's widths, and the sparse indexer that only latent attention has.
Checks LatentChecks(const ModelSpec& spec) {
  Checks checks;
  if (spec.has_sparse_attention()) {
    const SparseAttention& s = spec.sparse_attention();
    checks.push_back({spec.has_mla() && s.index_heads() >= 1 && s.index_heads() <= 1024 && s.index_head_dim() >= 1 &&
                          s.index_head_dim() <= 4096 && s.index_topk() >= 1,
                      "sparse_attention needs mla, index_heads in 1..1024, index_head_dim in 1..4096 and a "
                      "positive index_topk"});
  }
  if (!spec.has_mla()) return checks;
  const LatentAttention& mla = spec.mla();
  checks.insert(
      checks.end(),
      {
          {!spec.has_attention(), "mla with an attention layout (windows over latent attention) is not modelled"},
          {mla.kv_lora_rank() >= 1 && mla.kv_lora_rank() <= 100000, "mla.kv_lora_rank must be in 1..100000"},
          {mla.q_lora_rank() >= 0 && mla.q_lora_rank() <= 1000000, "mla.q_lora_rank must be in 0..1e6"},
          {mla.qk_nope_head_dim() >= 1 && mla.qk_nope_head_dim() <= 100000 && mla.qk_rope_head_dim() >= 1 &&
               mla.qk_rope_head_dim() <= 100000 && mla.v_head_dim() >= 1 && mla.v_head_dim() <= 100000,
           "mla head sizes must be in 1..100000"},
          {spec.head_dim() == mla.qk_nope_head_dim() + mla.qk_rope_head_dim(),
           "with mla, head_dim must equal qk_nope_head_dim + qk_rope_head_dim"},
          {spec.num_kv_heads() == 1, "with mla, num_kv_heads must be 1 (the one shared latent)"},
      });
  return checks;
}

}  // namespace

absl::Status ValidateModelSpec(const ModelSpec& spec, absl::string_view where) {
  if (absl::Status status = FirstFailing(SizeChecks(spec), where); !status.ok()) return status;
  if (absl::Status status = FirstFailing(ExpertChecks(spec), where); !status.ok()) return status;
  if (absl::Status status = ValidateAttentionLayout(spec, where); !status.ok()) return status;
  return FirstFailing(LatentChecks(spec), where);
}

}  // namespace infergrid
