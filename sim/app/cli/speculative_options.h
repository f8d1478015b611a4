// The speculative-decoding flags of `simulate` (and so of compare, sweep, plan and bench), in
// vLLM 0.6's spelling where vLLM has one: --speculative-model (a catalog name or config.json;
// "[ngram]" for n-gram lookup, as vLLM 0.6 spells it), --num-speculative-tokens; the proposer
// kind as new vLLM's speculative_config "method" (--speculative-method: draft_model, eagle, mtp,
// ngram); and InferGrid's acceptance model (--speculative-acceptance). Read and checked once:
// a bad value is a usage error naming the flag. docs/speculative.md describes the model.
#ifndef INFERGRID_SIM_APP_CLI_SPECULATIVE_OPTIONS_H_
#define INFERGRID_SIM_APP_CLI_SPECULATIVE_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/app/cli/flag_group.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/enum_names.h"
#include "models/model_spec.pb.h"
#include "sim/app/cli/command_line.h"
#include "sim/core/serving/speculation.h"
#include "sim/core/simulator/speculative_settings.h"

namespace infergrid::cli {

// vLLM's speculative-decoding flags.
struct SpeculativeFlags {
  std::string speculative_model;
  std::string speculative_method;
  int32_t num_speculative_tokens = 0;
  std::string speculative_acceptance = "0.7";
};
const FlagGroup<SpeculativeFlags>& SpeculativeFlagGroup();

// Reads the flags against the target model. Usage errors: k outside [0, 32], a rate outside
// [0, 1], a proposer without k or k without a proposer, an unknown or unreadable draft model,
// a draft whose vocabulary differs from the target's.
absl::StatusOr<SpeculativeSettings> ReadSpeculativeOptions(const FlagValues& flags, const ModelSpec& target);

}  // namespace infergrid::cli

#endif  // INFERGRID_SIM_APP_CLI_SPECULATIVE_OPTIONS_H_
