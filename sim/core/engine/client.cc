#include "sim/core/engine/client.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sim/core/engine/autoscaler.h"
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
                     config.noise.send_jitter_s <= 0 && config.coalesce && !config.autoscale.enabled;
  fleet_ = config.fleet_run_ahead && config.router == RouterKind::kRoundRobin && routed_.size() > 1 &&
           config.attention_data_parallel == 1 && config.prefill_replicas == 0 && config.max_concurrency <= 0 &&
           config.noise.send_jitter_s <= 0 && config.coalesce && !config.autoscale.enabled;
}

bool Client::ReadNext() {
  if (!ReadRequest()) {
    if (source_done_) {
      ctx_.next_arrival_s = kRunNever;
      ctx_.arrivals_done = true;
    }
    return false;
  }
  ctx_.next_arrival_s = pending_.arrival_s;
  have_pending_ = true;
  return true;
}

bool Client::ReadRequest() {
  if (source_done_ || !ctx_.error.ok()) return false;
  absl::StatusOr<bool> more = source_.Next(&pending_);
  absl::Status bad;
  if (!more.ok()) {
    bad = more.status();
  } else if (!*more) {
    source_done_ = true;
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
  return true;
}

void Client::FillAhead() {
  while (ranks_without_ahead_ > 0 && ReadRequest()) {
    // Admission depends on the request and the replicas' fixed capacity only, and round-robin
    // on how many requests it routed before: both decide now as they would at the send.
    RequestRecord scratch;
    const bool admitted = AdmitRequest(pending_, admission_, 0, &scratch) != nullptr;
    const int rank = admitted ? router_->Route(routed_) : -1;
    if (admitted) {
      std::deque<double>& own = ctx_.rank_arrivals[static_cast<size_t>(rank)];
      if (own.empty()) --ranks_without_ahead_;
      own.push_back(pending_.arrival_s);
    }
    ahead_.push_back({pending_, rank});
  }
  if (ahead_.empty()) {
    ctx_.next_arrival_s = kRunNever;
    ctx_.arrivals_done = true;
  } else {
    ctx_.next_arrival_s = ahead_.front().request.arrival_s;
  }
}

void Client::RunFleet() {
  ctx_.rank_arrivals.assign(routed_.size(), {});
  ranks_without_ahead_ = routed_.size();
  FillAhead();
  while (ctx_.error.ok() && !ahead_.empty()) {
    if (ahead_.front().request.arrival_s > sg::Engine::get_clock()) {
      sg::this_actor::sleep_until(ahead_.front().request.arrival_s);
    }
    Routed next = std::move(ahead_.front());
    ahead_.pop_front();
    ++taken_;
    if (next.rank >= 0) {
      std::deque<double>& own = ctx_.rank_arrivals[static_cast<size_t>(next.rank)];
      own.pop_front();
      if (own.empty()) ++ranks_without_ahead_;
    }
    // As Run sends it: its latencies count from when it is sent.
    next.request.arrival_s = std::max(next.request.arrival_s, sg::Engine::get_clock());
    Deliver(next.request, sg::Engine::get_clock(), next.rank);
    FillAhead();
  }
}

void Client::SendArrivalsUntil(double time_s) {
  while ((have_pending_ || ReadNext()) && pending_.arrival_s <= time_s) {
    have_pending_ = false;
    ++taken_;
    Deliver(pending_, pending_.arrival_s);
  }
}

void Client::Run() {
  if (fleet_) {
    RunFleet();
    ctx_.next_arrival_s = kRunNever;
    ctx_.arrivals_done = true;
    ctx_.WakeIdleWorkers();
    return;
  }
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

void Client::Deliver(const Request& request, double now, int routed_to) {
  SimulationResult& result = ctx_.result;
  ++result.arrivals;
  const int64_t index = result.log.Add(RequestRecord{});
  std::unique_ptr<Sequence> admitted = AdmitRequest(request, admission_, index, &result.log.at(index));
  RequestRecord& stored = result.log.at(index);
  if (stored.truncated) ++result.truncated;
  if (admitted == nullptr) {
    ++result.rejected;
    if (routed_to >= 0)
      ctx_.Fail(absl::InternalError(absl::StrCat("request ", request.id, ": rejected at its send only")));
    return;
  }
  ++in_flight_;
  Sequence* seq = ctx_.sequences.Acquire(std::move(*admitted));
  if (ctx_.config.prefill_replicas > 0) {  // the prefill pool serves the prompt and one token
    seq->decode_output_tokens = seq->output_tokens;
    seq->output_tokens = 1;
  }
  const int chosen = routed_to != kRouteNow       ? routed_to
                     : ctx_.autoscaler != nullptr ? ctx_.autoscaler->Route(*router_)
                     : routed_.size() == 1        ? 0
                                                  : router_->Route(routed_);
  if (chosen < 0) {  // fleet run-ahead found it rejected when it read it: it cannot be admitted now
    ctx_.Fail(absl::InternalError(absl::StrCat("request ", request.id, ": admitted at its send, not when read ahead")));
    return;
  }
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
