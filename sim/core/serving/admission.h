// Turns an arriving Request into a Sequence a replica can serve, or rejects it the way vLLM
// does: a prompt longer than max_model_len, or one whose KV (prompt, or prompt + output for
// schedulers that reserve) can never fit the replica's blocks, is refused; an output that
// would run past max_model_len is cut there. With prefix caching, the request's block hashes
// (Mooncake: one per 512 tokens; Request::tokens_per_hash) become the cache keys of its full
// prompt blocks.
#ifndef INFERGRID_SIM_CORE_SERVING_ADMISSION_H_
#define INFERGRID_SIM_CORE_SERVING_ADMISSION_H_

#include <cstdint>
#include <memory>

#include "models/kv_cache_groups.h"
#include "sim/core/metrics/request_log.h"
#include "sim/core/serving/sequence.h"
#include "traces/request.h"

namespace infergrid {

struct AdmissionPolicy {
  int64_t max_model_len = 8192;
  int block_size = 16;
  KvCacheGroups groups{};  // how tokens take blocks (sim/core/serving/block_manager.h)
  int64_t usable_blocks = 0;  // GPU blocks a lone sequence can get (total - watermark)
  bool reserve_output = false;  // orca/static reserve prompt + output
  bool prefix_caching = false;
};

// Fills `record` (arrival, tokens, truncated, outcome kRejected and its reason when refused) and returns the
// sequence to serve, or null when rejected. `record_index` is the record's index in the log.
std::unique_ptr<Sequence> AdmitRequest(const Request& request, const AdmissionPolicy& policy, int64_t record_index,
                                       RequestRecord* record);

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_SERVING_ADMISSION_H_
