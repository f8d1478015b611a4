#include "sim/app/cli/speculative_options.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "models/model_catalog.h"
#include "sim/app/cli/accounting_setup.h"

namespace infergrid::cli {

const FlagGroup<SpeculativeFlags>& SpeculativeFlagGroup() {
  static const FlagGroup<SpeculativeFlags>* group =
      &(*new FlagGroup<SpeculativeFlags>())
           .Add("speculative_model", &SpeculativeFlags::speculative_model,
                "speculative decoding: the draft model (a catalog name or config.json), or [ngram] for n-gram "
                "lookup (vLLM 0.6's spelling); docs/speculative.md")
           .Add("speculative_method", &SpeculativeFlags::speculative_method,
                "speculative decoding's proposer: draft_model (--speculative-model), eagle or mtp (one extra "
                "decoder layer of the target's width plus its LM head), ngram (default: draft_model with "
                "--speculative-model)")
           .Add("num_speculative_tokens", &SpeculativeFlags::num_speculative_tokens,
                "speculative decoding: draft tokens per step, k (0: off)")
           .Add("speculative_acceptance", &SpeculativeFlags::speculative_acceptance,
                "speculative decoding: each draft token's acceptance rate, a constant in [0, 1] or beta:ALPHA,BETA "
                "drawn per request");
  return *group;
}

absl::StatusOr<SpeculativeSettings> ReadSpeculativeOptions(const FlagValues& flags, const ModelSpec& target) {
  const SpeculativeFlags speculative_flags = SpeculativeFlagGroup().Read(flags);
  SpeculativeSettings o;
  const int k = speculative_flags.num_speculative_tokens;
  if (absl::Status s = CheckRange("num_speculative_tokens", k, 0, 32); !s.ok()) return s;
  std::string model = speculative_flags.speculative_model;
  const std::string method = speculative_flags.speculative_method;
  absl::StatusOr<AcceptanceModel> acceptance =
      ParseAcceptanceModel("speculative-acceptance", speculative_flags.speculative_acceptance);
  if (!acceptance.ok()) return UsageError(acceptance.status().message());
  if (model == "[ngram]") {
    if (!method.empty() && method != "ngram") {
      return UsageError(absl::StrCat("--speculative-model=[ngram] contradicts --speculative-method=", method));
    }
    o.method = SpeculativeMethod::kNgram;
    model.clear();
  } else if (!method.empty()) {
    std::optional<SpeculativeMethod> parsed = ParseEnumName(kSpeculativeMethodNames, method);
    if (!parsed.has_value()) {
      return UsageError(
          absl::StrCat("--speculative-method: expected ", NameList(kSpeculativeMethodNames), ", got '", method, "'"));
    }
    o.method = *parsed;
  }
  const bool proposer_given = !model.empty() || !method.empty() || speculative_flags.speculative_model == "[ngram]";
  if (k == 0) {
    if (proposer_given) {
      return UsageError("--num-speculative-tokens: speculative decoding needs k > 0 draft tokens per step");
    }
    return o;
  }
  if (!proposer_given) {
    return UsageError(absl::StrCat("--num-speculative-tokens=", k,
                                   " needs a proposer: --speculative-model=NAME or --speculative-method"));
  }
  o.num_speculative_tokens = k;
  o.acceptance = *acceptance;
  o.acceptance_text = speculative_flags.speculative_acceptance;
  switch (o.method) {
    case SpeculativeMethod::kDraftModel: {
      if (model.empty()) return UsageError("--speculative-method=draft_model needs --speculative-model=NAME");
      absl::StatusOr<ModelSpec> draft = ResolveModel(model);
      if (!draft.ok()) return UsageError(absl::StrCat("--speculative-model=", model, ": ", draft.status().message()));
      if (draft->vocab_size() != target.vocab_size()) {
        return UsageError(absl::StrCat("--speculative-model=", model, ": its vocabulary (", draft->vocab_size(),
                                       " tokens) differs from ", target.name(), "'s (", target.vocab_size(),
                                       "); a draft must share the target's tokenizer"));
      }
      o.proposer = *std::move(draft);
      break;
    }
    case SpeculativeMethod::kEagle:
    case SpeculativeMethod::kMtp: {
      if (!model.empty()) {
        return UsageError(absl::StrCat("--speculative-model: --speculative-method=", method,
                                       " builds its head from the target; leave --speculative-model out"));
      }
      ModelSpec head = target;
      head.set_num_layers(1);
      head.set_name(absl::StrCat(target.name(), "-", method, "-head"));
      o.proposer = std::move(head);
      break;
    }
    case SpeculativeMethod::kNgram:
      if (!model.empty()) return UsageError("--speculative-model: --speculative-method=ngram takes no model");
      break;
  }
  return o;
}

}  // namespace infergrid::cli
