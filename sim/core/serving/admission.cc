#include "sim/core/serving/admission.h"

#include <algorithm>

#include "sim/core/serving/block_manager.h"

namespace infergrid {

std::unique_ptr<Sequence> AdmitRequest(const Request& request, const AdmissionPolicy& policy, int64_t record_index,
                                       RequestRecord* record) {
  record->arrival_s = request.arrival_s;
  record->input_tokens = request.input_tokens;
  // A request always yields at least one token (the first sampled one).
  int64_t output = std::max<int64_t>(1, request.output_tokens);
  const int64_t prompt = request.input_tokens;
  if (prompt + output > policy.max_model_len) {
    output = std::max<int64_t>(1, policy.max_model_len - prompt);
    record->truncated = true;
  }
  record->output_tokens = static_cast<int32_t>(output);
  const int64_t kv_tokens = policy.reserve_output ? prompt + output : prompt + 1;
  const int64_t blocks = policy.groups.hybrid() ? policy.groups.BlocksFor(kv_tokens, policy.block_size)
                                                : (kv_tokens + policy.block_size - 1) / policy.block_size;
  if (prompt > policy.max_model_len || blocks > policy.usable_blocks) {
    record->outcome = RequestOutcome::kRejected;
    // The prompt's length is checked first, as vLLM checks it before the KV cache.
    record->reject_reason =
        prompt > policy.max_model_len ? RejectReason::kPromptTooLong : RejectReason::kKvCacheTooSmall;
    record->truncated = false;  // a rejected request has no output to cut: counted once, as rejected
    return nullptr;
  }
  auto seq = std::make_unique<Sequence>();
  seq->record = record_index;
  seq->prompt_tokens = request.input_tokens;
  seq->output_tokens = static_cast<int32_t>(output);
  if (policy.prefix_caching && !request.prefix_block_hashes.empty()) {
    const int64_t full_blocks = prompt / policy.block_size;
    const int64_t hash_tokens = std::max<int32_t>(1, request.tokens_per_hash);
    for (int64_t j = 0; j < full_blocks; ++j) {
      const int64_t first = j * policy.block_size;
      const int64_t last = first + policy.block_size - 1;
      const size_t hash_index = static_cast<size_t>(last / hash_tokens);
      if (hash_index >= request.prefix_block_hashes.size()) break;
      seq->prefix_keys.push_back(PrefixBlockKey(request.prefix_block_hashes[hash_index],
                                                first - static_cast<int64_t>(hash_index) * hash_tokens));
    }
  }
  return seq;
}

}  // namespace infergrid
