// The engine personalities compiled into the binary (sim/core/personality/engines/*.textproto) and
// the resolution of a user's engine name ("vllm-v1", "vllm-v1@0.19", "trtllm@cpp") into one of
// them. A name without @version resolves to the personality marked is_default. A numeric version
// with no personality of its own ("vllm-v1@0.15.1") runs on the newest personality of that engine
// at or below it, or on the newest one when it is past them all, with a note saying so; versions
// compare numerically component by component (0.9 < 0.11 < 0.15.1). A version below the oldest
// personality, of a major version no personality has, or not numeric ("trtllm@pytorch" matches
// only itself) is refused. A file stating its version as changes from a base is resolved on load
// (personality_inheritance.h): every personality here is whole.
#ifndef INFERGRID_SIM_CORE_PERSONALITY_PERSONALITY_CATALOG_H_
#define INFERGRID_SIM_CORE_PERSONALITY_PERSONALITY_CATALOG_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/core/personality/engine_personality.pb.h"

namespace infergrid {

// "engine@version" of every personality, sorted.
std::vector<std::string> EnginePersonalityNames();

// The personality a name runs on, and why when it is not the version asked for.
struct ResolvedEngine {
  EnginePersonality personality;
  // Empty when the name is the personality's own (or names no version); else
  // "vllm-v1@0.15.1 runs on personality vllm-v1@0.11 (the newest at or below 0.15.1)".
  std::string note;
};

// InvalidArgument naming the known engines and versions when `name` resolves to none.
absl::StatusOr<ResolvedEngine> ResolveEngine(absl::string_view name);

// ResolveEngine's personality alone.
absl::StatusOr<EnginePersonality> ResolveEnginePersonality(absl::string_view name);

// "vllm-v1@0.19".
std::string PersonalityName(const EnginePersonality& personality);

// Checks the fields a rule needs are present and in range; `where` names the source.
absl::Status ValidateEnginePersonality(const EnginePersonality& personality, absl::string_view where);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_PERSONALITY_PERSONALITY_CATALOG_H_
