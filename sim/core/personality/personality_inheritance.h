// Engine personalities stated as changes from a base version. A personality file that names
// `base: "engine@version"` holds only what differs from that personality, fully resolved first
// (chains resolve: vllm-v1@0.21 -> 0.19 -> 0.15 -> 0.11). The merge, in order:
//   1. start from the resolved base, less what never inherits: `is_default` (one default per
//      engine), `covers` (the releases a file stands for are its own), `base` and `clear`;
//   2. clear each field path in the change's `clear` ("execution.cuda_graphs.max_size"): a
//      scalar back to 0/false/"", a message to absent, a repeated field to empty, the one way to
//      unset what the base sets (proto3 cannot tell a scalar written as 0 from one not written);
//   3. merge the change: a scalar it sets overrides, a message it sets merges field by field by
//      these same rules, and a repeated field it gives (non-empty) REPLACES the base's list
//      whole (unlike protobuf's MergeFrom, which appends): batch_defaults, CUDA-graph sizes,
//      host phases, one_shot entries are each restated in full when one entry changes.
// `engine` and `version` are every file's own (the change must set both); `source` and
// `notes` inherit unless the change gives its own. The result has no `base` and no `clear`.
#ifndef INFERGRID_SIM_CORE_PERSONALITY_PERSONALITY_INHERITANCE_H_
#define INFERGRID_SIM_CORE_PERSONALITY_PERSONALITY_INHERITANCE_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "base/embedded_catalog.h"
#include "google/protobuf/message.h"
#include "sim/core/personality/engine_personality.pb.h"

namespace infergrid {

// Step 3 on any message: `change`'s set fields into `target`, repeated fields replaced whole,
// singular messages merged recursively. Both must be of the same type.
void MergeReplacingRepeated(const google::protobuf::Message& change, google::protobuf::Message* target);

// Step 2: clears the field at `path` (field names joined by '.'; all but the last name
// singular message fields). InvalidArgument naming the path when a name is no such field.
absl::Status ClearFieldPath(absl::string_view path, google::protobuf::Message* message);

// Steps 1 to 3: `change` applied to the resolved `base`. InvalidArgument, starting with
// `where` (the change's file), when the change names another engine or a bad clear path.
absl::StatusOr<EnginePersonality> ApplyPersonalityChange(const EnginePersonality& base, const EnginePersonality& change,
                                                         absl::string_view where);

// Every entry resolved through its chain of bases, in the entries' order and with their paths.
// InvalidArgument naming the file for a base no entry is, a base of another engine, a cycle
// (naming its chain), or two files of one engine@version.
absl::StatusOr<std::vector<CatalogEntry<EnginePersonality>>> ResolvePersonalityBases(
    absl::Span<const CatalogEntry<EnginePersonality>> entries);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_PERSONALITY_PERSONALITY_INHERITANCE_H_
