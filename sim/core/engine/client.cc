#include "sim/core/engine/client.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sim/core/serving/run_noise.h"

namespace infergrid {

namespace sg = simgrid::s4u;

Client::Client(RunContext& ctx, RequestSource& source, FrontEndQueues& front_ends)
    : ctx_(ctx), source_(source), front_ends_(front_ends), router_(MakeRouter(ctx.config.router)) {
  const EngineConfig& config = ctx.config;
  const Replica& first = ctx.replica(0);
  admission_.reserve_output = first.scheduler().reserves_kv();
  admission_.max_model_len = config.max_model_len;
  admission_.block_size = config.blocks.block_size;
  admission_.groups = config.blocks.groups;
  admission_.usable_blocks = first.blocks().total_blocks() - first.blocks().watermark_blocks();
  admission_.prefix_caching = config.blocks.prefix_caching && !admission_.reserve_output;
  for (int i = 0; i < static_cast<int>(ctx.replicas.size()); ++i) {
    if (!ctx.IsDecodeOnly(i)) routed_.push_back(&ctx.replica(i));
  }
  inline_arrivals_ = ctx.replicas.size() == 1 && config.prefill_replicas == 0 && config.max_concurrency <= 0 &&
                     config.noise.send_jitter_s <= 0 && config.coalesce;
}

bool Client::ReadNext() {
  if (source_done_ || !ctx_.error.ok()) return false;
  absl::StatusOr<bool> more = source_.Next(&pending_);
  absl::Status bad;
  if (!more.ok()) {
    bad = more.status();
  } else if (!*more) {
    source_done_ = true;
    ctx_.next_arrival_s = kRunNever;
    ctx_.arrivals_done = true;
    return false;
  } else if (!std::isfinite(pending_.arrival_s) || pending_.arrival_s < last_arrival_s_) {
    bad = absl::InvalidArgumentError(absl::StrCat("request ", pending_.id, ": arrival time ", pending_.arrival_s,
                                                  " s is not a finite time at or after the previous arrival (",
                                                  last_arrival_s_, " s)"));
  } else if (pending_.input_tokens < 1) {
    bad = absl::InvalidArgumentError(
        absl::StrCat("request ", pending_.id, ": prompt of ", pending_.input_tokens, " tokens (need >= 1)"));
  }
  if (!bad.ok()) {
    source_done_ = true;
    ctx_.Fail(std::move(bad));
    return false;
  }
  last_arrival_s_ = pending_.arrival_s;
  ctx_.next_arrival_s = pending_.arrival_s;
  have_pending_ = true;
  return true;
}

void Client::SendArrivalsUntil(double time_s) {
  while ((have_pending_ || ReadNext()) && pending_.arrival_s <= time_s) {
    have_pending_ = false;
    ++taken_;
    Deliver(pending_, pending_.arrival_s);
  }
}

void Client::Run() {
  RunNoise client_noise(ctx_.config.noise, "client");
  while (ctx_.error.ok() && (have_pending_ || ReadNext())) {
    if (pending_.arrival_s > sg::Engine::get_clock()) {
      const int64_t taken = taken_;
      sg::this_actor::sleep_until(pending_.arrival_s);
      if (taken_ != taken) continue;  // a worker running ahead sent it (inline arrivals)
    }
    Request request = pending_;
    have_pending_ = false;
    ++taken_;
    // Due at its arrival, or (closed loop) when a slot frees, whichever is later.
    double due = request.arrival_s;
    if (ctx_.config.max_concurrency > 0) due = std::max(due, WaitForSlot());
    // The client's own delay, each request's independent of the others' (no accumulation).
    if (const double delay = client_noise.SendDelay(); delay > 0 && due + delay > sg::Engine::get_clock()) {
      ctx_.next_arrival_s = due + delay;
      sg::this_actor::sleep_until(due + delay);
    }
    // Sent now: its latencies count from here, as the client measures them.
    request.arrival_s = std::max(request.arrival_s, sg::Engine::get_clock());
    Deliver(request, sg::Engine::get_clock());
  }
  ctx_.next_arrival_s = kRunNever;
  ctx_.arrivals_done = true;
  ctx_.WakeIdleWorkers();
}

double Client::WaitForSlot() {
  double freed = -kRunNever;
  while (in_flight_ >= ctx_.config.max_concurrency && ctx_.error.ok()) {
    if (finished_.empty()) {
      ctx_.next_arrival_s = kRunNever;  // nothing arrives before a completion
      waiting_ = true;
      completion_->acquire();
      waiting_ = false;
      continue;
    }
    const double finished = finished_.top();
    finished_.pop();
    --in_flight_;
    freed = std::max(freed, finished);
    if (finished > sg::Engine::get_clock()) {
      ctx_.next_arrival_s = finished;
      sg::this_actor::sleep_until(finished);
    }
  }
  ctx_.next_arrival_s = sg::Engine::get_clock();
  return freed;
}

void Client::NoteCompletions() {
  if (ctx_.config.max_concurrency <= 0) return;
  const std::vector<double>& finished = ctx_.result.log.finish_times();
  if (completions_seen_ == finished.size()) return;
  for (; completions_seen_ < finished.size(); ++completions_seen_) finished_.push(finished[completions_seen_]);
  if (waiting_) {
    waiting_ = false;
    completion_->release();
  }
}

void Client::Deliver(const Request& request, double now) {
  SimulationResult& result = ctx_.result;
  ++result.arrivals;
  const int64_t index = result.log.Add(RequestRecord{});
  std::unique_ptr<Sequence> admitted = AdmitRequest(request, admission_, index, &result.log.at(index));
  RequestRecord& stored = result.log.at(index);
  if (stored.truncated) ++result.truncated;
  if (admitted == nullptr) {
    ++result.rejected;
    return;
  }
  ++in_flight_;
  Sequence* seq = ctx_.sequences.Acquire(std::move(*admitted));
  if (ctx_.config.prefill_replicas > 0) {  // the prefill pool serves the prompt and one token
    seq->decode_output_tokens = seq->output_tokens;
    seq->output_tokens = 1;
  }
  const int chosen = routed_.size() == 1 ? 0 : router_->Route(routed_);
  stored.replica = chosen;
  ++result.requests_per_replica[static_cast<size_t>(chosen)];
  if (front_ends_.enabled()) {
    front_ends_.Send(chosen, seq, now);
  } else {
    ctx_.replica(chosen).Enqueue(seq, now);
    ctx_.WakeWorker(chosen);
  }
  ctx_.progress.Update(result.arrivals, result.stats.iterations, now);
}

}  // namespace infergrid
