// The block hashes of a synthetic shared prefix (a benchmark's random prefix, sonnet's poem
// lines, SGLang's generated-shared-prefix system prompts): every request of one prefix group
// names the same tokens with the same hashes, so an engine's prefix cache finds the blocks
// another request of the group computed. One hash names kSharedPrefixHashTokens tokens (finer
// than Mooncake's 512, so that a prefix of any length is cached to within a few tokens, as a
// vLLM block of 16 is); only whole hash blocks inside the prefix are named; the prompt's
// tokens after them are the request's own and have none.
#ifndef INFERGRID_TRACES_SHARED_PREFIX_H_
#define INFERGRID_TRACES_SHARED_PREFIX_H_

#include <cstdint>
#include <vector>

namespace infergrid {

inline constexpr int32_t kSharedPrefixHashTokens = 16;

// floor(prefix_tokens / kSharedPrefixHashTokens) hashes, the same for the same group and
// different between groups.
std::vector<uint64_t> SharedPrefixHashes(uint64_t group, int64_t prefix_tokens);

}  // namespace infergrid

#endif  // INFERGRID_TRACES_SHARED_PREFIX_H_
