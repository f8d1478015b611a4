// A roofline cost-model request for tests of speculative decoding: a catalog target on an H100 in
// bf16, with a catalog draft model (or n-gram proposals when `ngram`) when one is named; a decode
// batch verifying k drafts a sequence.
#ifndef INFERGRID_TESTS_SPECULATIVE_REQUEST_H_
#define INFERGRID_TESTS_SPECULATIVE_REQUEST_H_

#include <cstdint>
#include <string>

#include "hardware/gpu_catalog.h"
#include "models/kv_cache_size.h"
#include "models/model_catalog.h"
#include "models/parameter_count.h"
#include "sim/core/cost/cost_model_factory.h"
#include "sim/core/cost/speculative_cost_model.h"

namespace infergrid {

inline CostModelRequest RooflineRequest(const std::string& target, const std::string& draft, bool ngram = false) {
  CostModelRequest r;
  r.kind = CostModelKind::kRoofline;
  r.model = *ResolveModel(target);
  r.gpu = *ResolveGpu("h100-sxm");
  const double params = static_cast<double>(CountParameters(r.model).Total());
  r.weight_bytes_per_gpu = 2 * params;
  r.kv = {DType::BF16, 16, KvBytesPerToken(r.model, DType::BF16), 1 << 20};
  r.active_parameters = static_cast<double>(ActiveParametersPerToken(r.model));
  if (ngram || !draft.empty()) {
    SpeculativeCostRequest s;
    if (!ngram) {
      s.draft = *ResolveModel(draft);
      s.draft_weight_bytes_per_gpu = 2 * static_cast<double>(CountParameters(*s.draft).Total());
      s.draft_kv_bytes_per_token = KvBytesPerToken(*s.draft, DType::BF16);
      s.draft_active_parameters = static_cast<double>(ActiveParametersPerToken(*s.draft));
    } else {
      s.ngram_host_s_per_sequence = 10e-6;
    }
    r.speculation = s;
  }
  return r;
}

// A decode batch of `sequences` at `context` tokens, each verifying k drafts.
inline BatchShape DecodeBatch(int sequences, int64_t context, int k) {
  BatchShape b;
  b.decode_context_tokens.assign(static_cast<size_t>(sequences), context);
  b.speculative_tokens = k;
  return b;
}

}  // namespace infergrid

#endif  // INFERGRID_TESTS_SPECULATIVE_REQUEST_H_
