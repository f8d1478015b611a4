// Checks of a serving front end's description (EnginePersonality.execution.front_end, or a
// FrontEndModel textproto given with --front-end-file): every cost a finite number of seconds
// at least 0, servers at least 1 when set, every process named.
#ifndef INFERGRID_SIM_CORE_PERSONALITY_FRONT_END_MODEL_H_
#define INFERGRID_SIM_CORE_PERSONALITY_FRONT_END_MODEL_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/core/personality/engine_personality.pb.h"

namespace infergrid {

// InvalidArgument "WHERE: process[I] (NAME).FIELD ..." on the first bad value.
absl::Status ValidateFrontEndModel(const FrontEndModel& model, absl::string_view where);

// Reads a FrontEndModel textproto; errors name the file and, for a bad value, its line.
absl::StatusOr<FrontEndModel> ReadFrontEndModel(const std::string& path);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_PERSONALITY_FRONT_END_MODEL_H_
