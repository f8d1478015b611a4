// Prefill/decode disaggregation's KV hand-off (docs/disaggregation.md). A sequence whose
// prefill ends on a prefill replica leaves it (Replica's prefill handoff) and a short-lived
// actor of its own moves its prompt's KV to the decode replica the decode router picks: the
// fabric's latency when the KV leaves the NVLink domain, the connector's own, then one parallel
// task over the platform's links, contending with whatever else crosses them. The prefill
// replica goes on meanwhile. When the KV has arrived the prefill's token reaches the client
// and the sequence joins the decode replica's queue (or finishes there, if one token was all
// it asked for). Decode workers stop only when no prefill or transfer can still feed them
// (DecodeInputsDone).
#ifndef INFERGRID_SIM_CORE_ENGINE_KV_TRANSFER_H_
#define INFERGRID_SIM_CORE_ENGINE_KV_TRANSFER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "sim/core/engine/client.h"
#include "sim/core/engine/run_context.h"
#include "sim/core/serving/router.h"

namespace infergrid {

class KvTransfer {
 public:
  // Without disaggregation (prefill_replicas 0) it does nothing; with it, it sets the hand-off
  // of every prefill replica in `ctx`.
  KvTransfer(RunContext& ctx, Client& client);
  KvTransfer(const KvTransfer&) = delete;
  KvTransfer& operator=(const KvTransfer&) = delete;

  // No request can reach a decode replica any more: arrivals done, prefill pool empty, no
  // transfer in flight.
  bool DecodeInputsDone() const;

 private:
  // Takes a sequence whose prefill ended on replica `from` and starts its transfer actor.
  void Handoff(int from, Sequence* seq);
  // The transfer actor's body.
  void Transfer(int from, Sequence* seq);

  RunContext& ctx_;
  Client& client_;
  std::unique_ptr<Router> router_;  // picks the decode replica
  std::vector<Replica*> decode_;  // the decode pool
  int64_t in_flight_ = 0;
};

}  // namespace infergrid

#endif  // INFERGRID_SIM_CORE_ENGINE_KV_TRANSFER_H_
