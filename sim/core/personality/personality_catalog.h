// The engine personalities compiled into the binary (sim/core/personality/engines/*.textproto) and
// the resolution of a user's engine name ("vllm-v1", "vllm-v1@0.19", "trtllm@cpp") into one of
// them. A name without @version resolves to the personality marked is_default.
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

// InvalidArgument naming the known engines and versions when `name` matches none.
absl::StatusOr<EnginePersonality> ResolveEnginePersonality(absl::string_view name);

// "vllm-v1@0.19".
std::string PersonalityName(const EnginePersonality& personality);

// Checks the fields a rule needs are present and in range; `where` names the source.
absl::Status ValidateEnginePersonality(const EnginePersonality& personality,
                                       absl::string_view where);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_PERSONALITY_PERSONALITY_CATALOG_H_
