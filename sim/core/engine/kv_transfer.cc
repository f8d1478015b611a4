#include "sim/core/engine/kv_transfer.h"

namespace infergrid {

namespace sg = simgrid::s4u;

KvTransfer::KvTransfer(RunContext& ctx, Client& client)
    : ctx_(ctx), client_(client), router_(MakeRouter(ctx.config.decode_router)) {
  const int prefill = ctx.config.prefill_replicas;
  if (prefill <= 0) return;
  for (int i = 0; i < static_cast<int>(ctx.replicas.size()); ++i) {
    if (ctx.IsDecodeOnly(i)) {
      decode_.push_back(&ctx.replica(i));
    } else {
      ctx.replica(i).SetPrefillHandoff([this, i](Sequence* seq, double) { Handoff(i, seq); });
    }
  }
}

bool KvTransfer::DecodeInputsDone() const {
  if (!ctx_.arrivals_done || in_flight_ > 0) return false;
  for (int i = 0; i < ctx_.config.prefill_replicas; ++i) {
    if (ctx_.replica(i).HasWork()) return false;
  }
  return true;
}

void KvTransfer::Handoff(int from, Sequence* seq) {
  ++in_flight_;
  sg::Actor::create("kv-transfer", ctx_.devices_of(from).host(), [this, from, seq] { Transfer(from, seq); });
}

void KvTransfer::Transfer(int from, Sequence* seq) {
  const EngineConfig& config = ctx_.config;
  const double start = sg::Engine::get_clock();
  const int to = config.prefill_replicas + router_->Route(decode_);
  // The prompt's KV (every GPU its own heads' share), as the decode instance pulls it whole
  // once the prefill has ended (vLLM's and SGLang's connectors).
  const double bytes = static_cast<double>(config.blocks.groups.TokenSlots(seq->prompt_tokens)) *
                       static_cast<double>(config.kv_bytes_per_token);
  Replica& decode = ctx_.replica(to);
  decode.ReserveIncoming();  // counts in the decode replica's load while in flight
  // The fabric's latency when the KV leaves the NVLink domain, then the connector's own.
  double latency = config.kv_transfer_latency_s;
  if (ctx_.devices_of(from).nvlink_domain() != ctx_.devices_of(to).nvlink_domain()) {
    latency += config.layout.fabric_latency_s;
  }
  if (latency > 0) sg::this_actor::sleep_for(latency);
  ctx_.devices_of(from).SendKv(ctx_.devices_of(to), bytes);
  const double end = sg::Engine::get_clock();
  RequestLog& log = ctx_.result.log;
  RequestRecord& record = log.at(seq->record);
  record.kv_transfer_s = end - start;
  record.prefill_replica = from;
  record.replica = to;
  // The decode replica holds the prompt's KV and the prefill's token: that token reaches the
  // client now, and decoding goes on from it.
  seq->output_tokens = seq->decode_output_tokens;
  seq->decode_output_tokens = 0;
  seq->generated = 1;
  seq->sent = 1;
  seq->computed = seq->prompt_tokens;
  seq->gpu_blocks = seq->cpu_blocks = seq->reserved_blocks = seq->linked_blocks = 0;
  seq->prefix_keys.clear();
  log.OnToken(seq->record, end);
  --in_flight_;
  if (seq->Finished()) {
    decode.DropIncoming();
    log.OnFinished(seq->record, end, seq->preemptions, seq->cached_tokens);
    ctx_.sequences.Release(seq);
    client_.NoteCompletions();
  } else {
    decode.EnqueueIncoming(seq, end);
    ctx_.WakeWorker(to);
  }
  if (DecodeInputsDone()) ctx_.WakeIdleWorkers();
}

}  // namespace infergrid
