#include "sim/core/engine/simulation.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/core/serving/replica.h"
#include "sim/core/serving/router.h"
#include "simgrid/s4u.hpp"

namespace infergrid {
namespace {

#if defined(__SANITIZE_ADDRESS__)  // g++
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)  // clang
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

namespace sg = simgrid::s4u;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

class FanoutSink final : public IterationSink {
 public:
  FanoutSink(IterationStats& stats, IterationSink* extra) : stats_(stats), extra_(extra) {}
  void OnIteration(const IterationRecord& record) override {
    stats_.OnIteration(record);
    if (extra_ != nullptr) extra_->OnIteration(record);
  }

 private:
  IterationStats& stats_;
  IterationSink* extra_;
};

// "simulate: 1234 arrived, 56789 iterations, 512.3 s simulated, 0.8 s wall" on one stderr
// line, at most five times a second.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled), start_(std::chrono::steady_clock::now()) {}
  void Update(int64_t arrived, int64_t iterations, double simulated_s) {
    if (!enabled_ || (++calls_ & 255) != 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double wall = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "\rsimulate: %lld arrived, %lld iterations, %.1f s simulated, %.1f s wall   ",
                 static_cast<long long>(arrived), static_cast<long long>(iterations), simulated_s, wall);
    std::fflush(stderr);
    shown_ = true;
  }
  void Finish() {
    if (shown_) std::fprintf(stderr, "\r%80s\r", "");
  }

 private:
  bool enabled_;
  bool shown_ = false;
  uint64_t calls_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_{};
};

class Run {
 public:
  Run(const EngineConfig& config, const IterationCostModel& cost_model, RequestSource& source,
      IterationSink* sink)
      : config_(config), cost_model_(cost_model), source_(source), fanout_(result_.stats, sink),
        progress_(config.progress) {}

  absl::Status Setup(std::vector<ReplicaDevices> devices);
  void Arrivals();
  void Worker(int index);
  // Attention data parallelism: the one worker of replica `group`'s ranks, stepping them together.
  void GroupWorker(int group);
  bool has_front_end() const { return !front_ends_.empty(); }
  // Moves the requests the front end of replica `index` has processed by `now` into its queue,
  // each at the time it was ready.
  void TakeInbound(int index, double now);
  SimulationResult& result() { return result_; }
  void FinishProgress() { progress_.Finish(); }
  int64_t cost_model_calls() const {
    int64_t total = 0;
    for (const auto& replica : replicas_) total += replica->pricer().exact_calls();
    return total;
  }
  int64_t activities() const {
    int64_t total = 0;
    for (const ReplicaDevices& d : devices_) total += d.activities();
    return total;
  }
  const absl::Status& error() const { return error_; }

 private:
  struct WorkerState {
    sg::SemaphorePtr wake;
    bool idle = false;
  };
  // A request on its way through a replica's front end: when it reaches the engine.
  struct Inbound {
    double ready_s = 0;
    int64_t order = 0;
    Sequence* seq = nullptr;
    bool operator>(const Inbound& o) const { return ready_s != o.ready_s ? ready_s > o.ready_s : order > o.order; }
  };
  struct FrontEndState {
    std::unique_ptr<FrontEnd> front_end;
    std::priority_queue<Inbound, std::vector<Inbound>, std::greater<Inbound>> pending;
    int64_t handed_in = 0;
    FrontEndState() = default;
    FrontEndState(FrontEndState&&) = default;
    ~FrontEndState() {
      for (; !pending.empty(); pending.pop()) delete pending.top().seq;
    }
  };
  // When the next input can reach replica `index`'s queue: the next arrival anywhere, or a
  // request already in its front end.
  double NextInput(int index) const {
    if (front_ends_.empty()) return next_arrival_s_;
    const FrontEndState& fe = front_ends_[static_cast<size_t>(index)];
    return fe.pending.empty() ? next_arrival_s_ : std::min(next_arrival_s_, fe.pending.top().ready_s);
  }
  bool InboundEmpty(int index) const {
    return front_ends_.empty() || front_ends_[static_cast<size_t>(index)].pending.empty();
  }
  // Wakes the worker serving replica (rank) `index`.
  void WakeWorker(int index) {
    WorkerState& worker = workers_[static_cast<size_t>(index / config_.attention_data_parallel)];
    if (worker.idle) {
      worker.idle = false;
      worker.wake->release();
    }
  }

  // Sends `request` at `now`: admission, the router, the front end or the replica's queue.
  void Deliver(const Request& request, double now);
  // Reads the source's next request into pending_ (checked); false at its end (arrivals are
  // then done) or on a bad request (the run fails).
  bool ReadNext();
  // Inline arrivals: sends, each at its own arrival time, every request arriving by `time_s`.
  void SendArrivalsUntil(double time_s);
  // Closed-loop client: waits until fewer than max_concurrency requests are in flight; returns
  // when the slot it takes freed (-inf when one was free already).
  double WaitForSlot();
  // Hands the requests finished since the last call to the closed-loop client.
  void NoteCompletions();
  // Yields until every request arriving at `now` has been delivered.
  void DrainArrivalsAt(double now);
  void Fail(absl::Status status);
  // Disaggregation: takes a sequence whose prefill ended on replica `from` and moves its KV to
  // a decode replica in an actor of its own (the prefill replica goes on).
  void Handoff(int from, Sequence* seq);
  void TransferKv(int from, Sequence* seq);
  bool IsDecodeOnly(int index) const { return config_.prefill_replicas > 0 && index >= config_.prefill_replicas; }
  // No request can reach a decode replica any more: arrivals done, prefill pool empty, no
  // transfer in flight.
  bool DecodeInputsDone() const;
  void WakeIdleWorkers();
  // Runs ahead from `now` through uninterruptible iterations (or one iteration when running
  // ahead is not allowed) and executes them.
  void RunIterations(int index, double now);
  // Attention data parallelism: executes the step of replica `group`'s ranks whose `planned_`
  // entry is set, begun at `begin`, for as long as its slowest rank's batch, and completes them.
  void RunGroupStep(int group, double begin);
  // Executes the planned iteration of replica `index`, begun at `begin`, as its own activities
  // (KV swaps, compute, the all-reduce ring) and completes it.
  void RunOne(int index, double begin);
  // Time spent in tensor-parallel communication by an iteration of `tokens` new tokens,
  // assuming the ring's links are free (exclusive replicas).
  double RingBytes(int64_t tokens, int tp) const;
  // The GPU-side part of an iteration and the fixed (latency) part of its collectives: the
  // calibrated model's measured collective time minus what the ring's bytes take on the links,
  // or the configured per-all-reduce latency for a model without collectives.
  struct IterationTimes {
    double compute_s = 0;      // on the GPUs, fixed collective latency included
    double latency_s = 0;      // of compute_s, spent in collectives
    double ring_bytes = 0;     // per GPU, over the ring's links
    double ring_s = 0;         // uncontended time of ring_bytes
  };
  IterationTimes Times(const IterationCost& cost, int64_t tokens, const ReplicaDevices& devices) const {
    IterationTimes t;
    const int tp = devices.tensor_parallel();
    t.ring_bytes = RingBytes(tokens, tp);
    t.ring_s = t.ring_bytes > 0 ? t.ring_bytes / devices.ring_bytes_per_s() : 0;
    if (cost.network_s > 0) {
      t.latency_s = std::max(0.0, cost.network_s - t.ring_s);
    } else if (tp > 1) {
      t.latency_s = 2.0 * config_.num_layers * config_.allreduce_latency_s;
    }
    t.compute_s = cost.duration_s - cost.network_s + t.latency_s;
    return t;
  }

  const EngineConfig& config_;
  const IterationCostModel& cost_model_;
  RequestSource& source_;
  SimulationResult result_;
  FanoutSink fanout_;
  ProgressLine progress_;
  AdmissionPolicy admission_;
  std::unique_ptr<Router> router_;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<Replica*> replica_view_;  // the replicas arrivals are routed to (the prefill pool)
  std::vector<Replica*> decode_view_;   // disaggregation: the decode pool
  std::unique_ptr<Router> decode_router_;
  int64_t transfers_in_flight_ = 0;
  std::vector<ReplicaDevices> devices_;
  std::vector<WorkerState> workers_;      // one per replica (all its ranks under attention DP)
  std::vector<char> planned_;            // attention DP, per rank: whether it planned the step in flight
  std::vector<FrontEndState> front_ends_;  // per replica; empty without a front end
  double next_arrival_s_ = 0;     // arrival time of the next request not yet delivered
  bool arrivals_done_ = false;
  // The source's next request, read and not yet sent (have_pending_), and how many were taken
  // from there. With inline arrivals the worker takes them too (RunIterations).
  Request pending_;
  bool have_pending_ = false;
  bool source_done_ = false;
  double last_arrival_s_ = 0;
  int64_t taken_ = 0;
  // One replica, nothing that makes a send wait (no closed loop, no send jitter): a worker
  // running ahead sends the requests arriving meanwhile itself, each at its arrival time, and
  // goes on (the router has one choice, so nothing needs the other actors' clock).
  bool inline_arrivals_ = false;
  // Closed-loop client state: requests sent and not finished, finish times not yet handed to
  // the client (earliest first), and the semaphore the arrival actor waits on for them.
  int64_t in_flight_ = 0;
  size_t completions_seen_ = 0;
  std::priority_queue<double, std::vector<double>, std::greater<double>> client_done_;
  sg::SemaphorePtr completion_ = sg::Semaphore::create(0);
  bool client_waiting_ = false;
  absl::Status error_;
};

absl::Status Run::Setup(std::vector<ReplicaDevices> devices) {
  devices_ = std::move(devices);
  router_ = MakeRouter(config_.router);
  const int dp = config_.attention_data_parallel;
  if (dp < 1 || (dp > 1 && config_.prefill_replicas > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "attention data parallelism needs 1 or more ranks and no prefill/decode disaggregation (", dp, " ranks)"));
  }
  const int n = config_.ranks();  // one replica each without data parallelism
  workers_.resize(static_cast<size_t>(config_.layout.num_replicas));
  planned_.assign(static_cast<size_t>(n), 0);
  result_.requests_per_replica.assign(static_cast<size_t>(n), 0);
  if (config_.record_chunk_times) result_.log.KeepChunkTimes();
  for (int i = 0; i < n; ++i) {
    std::unique_ptr<Scheduler> scheduler = MakeScheduler(config_.scheduler, config_.limits);
    if (i == 0) admission_.reserve_output = scheduler->reserves_kv();
    replicas_.push_back(std::make_unique<Replica>(i, std::move(scheduler), config_.blocks, cost_model_,
                                                  result_.log, fanout_, config_.cost_stride,
                                                  config_.execution ? &*config_.execution : nullptr));
    replicas_.back()->SetNoise(config_.noise);
    if (IsDecodeOnly(i)) {
      decode_view_.push_back(replicas_.back().get());
    } else {
      replica_view_.push_back(replicas_.back().get());
    }
    if (config_.prefill_replicas > 0 && i < config_.prefill_replicas) {
      replicas_.back()->SetPrefillHandoff([this, i](Sequence* seq, double) { Handoff(i, seq); });
    }
  }
  for (WorkerState& w : workers_) w.wake = sg::Semaphore::create(0);
  if (config_.front_end.enabled()) {
    front_ends_.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      FrontEndState& fe = front_ends_[static_cast<size_t>(i)];
      fe.front_end = std::make_unique<FrontEnd>(config_.front_end);
      replicas_[static_cast<size_t>(i)]->SetFrontEnd(fe.front_end.get());
    }
  }
  if (config_.prefill_replicas > 0 && (config_.prefill_replicas >= n || config_.scheduler == SchedulerKind::kStatic ||
                                     config_.scheduler == SchedulerKind::kOrca)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "disaggregation needs at least one prefill and one decode replica and a continuous-batching "
        "scheduler (", config_.prefill_replicas, " prefill of ", n, " replicas)"));
  }
  decode_router_ = MakeRouter(config_.decode_router);
  admission_.max_model_len = config_.max_model_len;
  admission_.block_size = config_.blocks.block_size;
  admission_.groups = config_.blocks.groups;
  admission_.usable_blocks = replicas_[0]->blocks().total_blocks() - replicas_[0]->blocks().watermark_blocks();
  admission_.prefix_caching = config_.blocks.prefix_caching && !admission_.reserve_output;
  inline_arrivals_ = n == 1 && config_.prefill_replicas == 0 && config_.max_concurrency <= 0 &&
                     config_.noise.send_jitter_s <= 0 && config_.coalesce;
  return absl::OkStatus();
}

void Run::Fail(absl::Status status) {
  if (error_.ok()) error_ = std::move(status);
  arrivals_done_ = true;
  next_arrival_s_ = kInfinity;
  WakeIdleWorkers();
}

void Run::WakeIdleWorkers() {
  for (WorkerState& w : workers_) {
    if (w.idle) {
      w.idle = false;
      w.wake->release();
    }
  }
}

bool Run::DecodeInputsDone() const {
  if (!arrivals_done_ || transfers_in_flight_ > 0) return false;
  for (int i = 0; i < config_.prefill_replicas; ++i) {
    if (replicas_[static_cast<size_t>(i)]->HasWork()) return false;
  }
  return true;
}

void Run::Handoff(int from, Sequence* seq) {
  ++transfers_in_flight_;
  sg::Actor::create("kv-transfer", devices_[static_cast<size_t>(from)].host(),
                    [this, from, seq] { TransferKv(from, seq); });
}

void Run::TransferKv(int from, Sequence* seq) {
  const double start = sg::Engine::get_clock();
  const int to = config_.prefill_replicas + decode_router_->Route(decode_view_);
  // The prompt's KV (every GPU its own heads' share), as the decode instance pulls it whole
  // once the prefill has ended (vLLM's and SGLang's connectors).
  const double bytes = static_cast<double>(config_.blocks.groups.TokenSlots(seq->prompt_tokens)) *
                       static_cast<double>(config_.kv_bytes_per_token);
  Replica& decode = *replicas_[static_cast<size_t>(to)];
  decode.ReserveIncoming();  // counts in the decode replica's load while in flight
  // The fabric's latency when the KV leaves the NVLink domain, then the connector's own.
  double latency = config_.kv_transfer_latency_s;
  if (devices_[static_cast<size_t>(from)].nvlink_domain() != devices_[static_cast<size_t>(to)].nvlink_domain()) {
    latency += config_.layout.fabric_latency_s;
  }
  if (latency > 0) sg::this_actor::sleep_for(latency);
  devices_[static_cast<size_t>(from)].SendKv(devices_[static_cast<size_t>(to)], bytes);
  const double end = sg::Engine::get_clock();
  RequestRecord& record = result_.log.at(seq->record);
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
  result_.log.OnToken(seq->record, end);
  --transfers_in_flight_;
  if (seq->Finished()) {
    decode.DropIncoming();
    result_.log.OnFinished(seq->record, end, seq->preemptions, seq->cached_tokens);
    delete seq;
    NoteCompletions();
  } else {
    decode.EnqueueIncoming(seq, end);
    WorkerState& worker = workers_[static_cast<size_t>(to)];
    if (worker.idle) {
      worker.idle = false;
      worker.wake->release();
    }
  }
  if (DecodeInputsDone()) WakeIdleWorkers();
}

bool Run::ReadNext() {
  if (source_done_ || !error_.ok()) return false;
  absl::StatusOr<bool> more = source_.Next(&pending_);
  absl::Status bad;
  if (!more.ok()) {
    bad = more.status();
  } else if (!*more) {
    source_done_ = true;
    next_arrival_s_ = kInfinity;
    arrivals_done_ = true;
    return false;
  } else if (!std::isfinite(pending_.arrival_s) || pending_.arrival_s < last_arrival_s_) {
    bad = absl::InvalidArgumentError(absl::StrCat(
        "request ", pending_.id, ": arrival time ", pending_.arrival_s,
        " s is not a finite time at or after the previous arrival (", last_arrival_s_, " s)"));
  } else if (pending_.input_tokens < 1) {
    bad = absl::InvalidArgumentError(
        absl::StrCat("request ", pending_.id, ": prompt of ", pending_.input_tokens, " tokens (need >= 1)"));
  }
  if (!bad.ok()) {
    source_done_ = true;
    Fail(std::move(bad));
    return false;
  }
  last_arrival_s_ = pending_.arrival_s;
  next_arrival_s_ = pending_.arrival_s;
  have_pending_ = true;
  return true;
}

void Run::SendArrivalsUntil(double time_s) {
  while ((have_pending_ || ReadNext()) && pending_.arrival_s <= time_s) {
    have_pending_ = false;
    ++taken_;
    Deliver(pending_, pending_.arrival_s);
  }
}

void Run::Arrivals() {
  RunNoise client_noise(config_.noise, "client");
  while (error_.ok() && (have_pending_ || ReadNext())) {
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
    if (config_.max_concurrency > 0) due = std::max(due, WaitForSlot());
    // The client's own delay, each request's independent of the others' (no accumulation).
    if (const double delay = client_noise.SendDelay(); delay > 0 && due + delay > sg::Engine::get_clock()) {
      next_arrival_s_ = due + delay;
      sg::this_actor::sleep_until(due + delay);
    }
    // Sent now: its latencies count from here, as the client measures them.
    request.arrival_s = std::max(request.arrival_s, sg::Engine::get_clock());
    Deliver(request, sg::Engine::get_clock());
  }
  next_arrival_s_ = kInfinity;
  arrivals_done_ = true;
  WakeIdleWorkers();
}


double Run::WaitForSlot() {
  double freed = -kInfinity;
  while (in_flight_ >= config_.max_concurrency && error_.ok()) {
    if (client_done_.empty()) {
      next_arrival_s_ = kInfinity;  // nothing arrives before a completion
      client_waiting_ = true;
      completion_->acquire();
      client_waiting_ = false;
      continue;
    }
    const double finished = client_done_.top();
    client_done_.pop();
    --in_flight_;
    freed = std::max(freed, finished);
    if (finished > sg::Engine::get_clock()) {
      next_arrival_s_ = finished;
      sg::this_actor::sleep_until(finished);
    }
  }
  next_arrival_s_ = sg::Engine::get_clock();
  return freed;
}

void Run::NoteCompletions() {
  if (config_.max_concurrency <= 0) return;
  const std::vector<double>& finished = result_.log.finish_times();
  if (completions_seen_ == finished.size()) return;
  for (; completions_seen_ < finished.size(); ++completions_seen_) client_done_.push(finished[completions_seen_]);
  if (client_waiting_) {
    client_waiting_ = false;
    completion_->release();
  }
}

void Run::Deliver(const Request& request, double now) {
  ++result_.arrivals;
  RequestRecord record;
  const int64_t index = result_.log.Add(record);
  std::unique_ptr<Sequence> seq = AdmitRequest(request, admission_, index, &result_.log.at(index));
  RequestRecord& stored = result_.log.at(index);
  if (stored.truncated) ++result_.truncated;
  if (seq == nullptr) {
    ++result_.rejected;
    return;
  }
  ++in_flight_;
  if (config_.prefill_replicas > 0) {  // the prefill pool serves the prompt and one token
    seq->decode_output_tokens = seq->output_tokens;
    seq->output_tokens = 1;
  }
  const int chosen = replica_view_.size() == 1 ? 0 : router_->Route(replica_view_);
  stored.replica = chosen;
  ++result_.requests_per_replica[static_cast<size_t>(chosen)];
  if (has_front_end()) {
    FrontEndState& fe = front_ends_[static_cast<size_t>(chosen)];
    const double ready = fe.front_end->Inbound(now, seq->prompt_tokens);
    fe.pending.push({ready, fe.handed_in++, seq.release()});
    WakeWorker(chosen);  // an idle worker waits for the earliest request its front end holds
  } else {
    replicas_[static_cast<size_t>(chosen)]->Enqueue(seq.release(), now);
    WakeWorker(chosen);
  }
  progress_.Update(result_.arrivals, result_.stats.iterations, now);
}

double Run::RingBytes(int64_t tokens, int tp) const {
  if (tp < 2) return 0;
  // Ring all-reduce: each GPU sends 2 (k - 1) / k of the message; two all-reduces per layer.
  const double message = static_cast<double>(tokens) * static_cast<double>(config_.hidden_size) *
                         config_.activation_bytes;
  return 2.0 * config_.num_layers * 2.0 * (tp - 1) / tp * message +
         static_cast<double>(tokens) * config_.all_to_all_bytes_per_token;
}

void Run::Worker(int index) {
  Replica& replica = *replicas_[static_cast<size_t>(index)];
  WorkerState& state = workers_[static_cast<size_t>(index)];
  while (error_.ok()) {
    const double now = sg::Engine::get_clock();
    // Requests arriving at this very instant are delivered before the batch is formed.
    DrainArrivalsAt(now);
    if (!error_.ok()) return;
    TakeInbound(index, now);
    if (replica.HasWork() && replica.Plan(now)) {
      RunIterations(index, now);
      continue;
    }
    replica.Publish();
    if (arrivals_done_ && InboundEmpty(index) && (!IsDecodeOnly(index) || DecodeInputsDone())) {
      if (replica.HasWork()) {
        Fail(absl::InternalError(absl::StrCat(
            "replica ", index, " cannot schedule its ", replica.LiveLoad().outstanding,
            " remaining requests (KV capacity too small for them)")));
      }
      return;
    }
    state.idle = true;
    if (InboundEmpty(index)) {
      state.wake->acquire();
    } else {  // until the front end has the next request ready, or something else happens
      const double wait = front_ends_[static_cast<size_t>(index)].pending.top().ready_s - now;
      if (wait > 0) state.wake->acquire_timeout(wait);
      state.idle = false;
    }
  }
}

void Run::TakeInbound(int index, double now) {
  if (front_ends_.empty()) return;
  FrontEndState& fe = front_ends_[static_cast<size_t>(index)];
  Replica& replica = *replicas_[static_cast<size_t>(index)];
  // Within the clock's rounding of `now`: a timed wait may end a few ulps short of its target.
  const double until = now + 1e-9 + 1e-12 * now;
  while (!fe.pending.empty() && fe.pending.top().ready_s <= until) {
    replica.Enqueue(fe.pending.top().seq, fe.pending.top().ready_s);
    fe.pending.pop();
  }
}

void Run::DrainArrivalsAt(double now) {
  while (!arrivals_done_ && next_arrival_s_ <= now) sg::this_actor::yield();
}

void Run::GroupWorker(int group) {
  const int dp = config_.attention_data_parallel;
  const int first = group * dp;
  WorkerState& state = workers_[static_cast<size_t>(group)];
  auto rank = [&](int r) -> Replica& { return *replicas_[static_cast<size_t>(first + r)]; };
  while (error_.ok()) {
    const double now = sg::Engine::get_clock();
    DrainArrivalsAt(now);
    if (!error_.ok()) return;
    bool any = false;
    for (int r = 0; r < dp; ++r) {
      TakeInbound(first + r, now);
      planned_[static_cast<size_t>(first + r)] = rank(r).HasWork() && rank(r).Plan(now);
      any = any || planned_[static_cast<size_t>(first + r)];
    }
    if (any) {
      RunGroupStep(group, now);
      progress_.Update(result_.arrivals, result_.stats.iterations, sg::Engine::get_clock());
      continue;
    }
    double next_ready = kInfinity;  // the earliest request a rank's front end holds
    for (int r = 0; r < dp; ++r) {
      rank(r).Publish();
      if (!InboundEmpty(first + r)) {
        next_ready = std::min(next_ready, front_ends_[static_cast<size_t>(first + r)].pending.top().ready_s);
      }
    }
    if (arrivals_done_ && next_ready == kInfinity) {
      for (int r = 0; r < dp; ++r) {
        if (rank(r).HasWork()) {
          Fail(absl::InternalError(absl::StrCat("replica ", group, " rank ", r, " cannot schedule its ",
                                                rank(r).LiveLoad().outstanding,
                                                " remaining requests (KV capacity too small for them)")));
        }
      }
      return;
    }
    state.idle = true;
    if (next_ready == kInfinity) {
      state.wake->acquire();
    } else {
      if (next_ready > now) state.wake->acquire_timeout(next_ready - now);
      state.idle = false;
    }
  }
}

void Run::RunGroupStep(int group, double begin) {
  const int dp = config_.attention_data_parallel;
  const int first = group * dp;
  ReplicaDevices& devices = devices_[static_cast<size_t>(group)];
  const double block_bytes =
      static_cast<double>(config_.blocks.block_size) * static_cast<double>(config_.kv_bytes_per_token);
  // Every GPU of the group runs its rank's batch; the exchange of each MoE layer waits for the
  // slowest, so the step lasts as long as the longest rank's (its collectives included).
  double duration_s = 0, hbm_bytes = 0, swap_out = 0, swap_in = 0;
  for (int r = 0; r < dp; ++r) {
    if (!planned_[static_cast<size_t>(first + r)]) continue;
    Replica& replica = *replicas_[static_cast<size_t>(first + r)];
    replica.Publish();
    duration_s = std::max(duration_s, replica.cost().duration_s);
    hbm_bytes = std::max(hbm_bytes, replica.cost().hbm_bytes);
    swap_out += static_cast<double>(replica.plan().swap_out_blocks) * block_bytes;
    swap_in += static_cast<double>(replica.plan().swap_in_blocks) * block_bytes;
  }
  const double t0 = sg::Engine::get_clock();
  devices.HostTransfer(swap_out, swap_in);
  const double t1 = sg::Engine::get_clock();
  devices.Compute(duration_s, hbm_bytes);
  const double end = sg::Engine::get_clock();
  DrainArrivalsAt(end);
  for (int r = 0; r < dp; ++r) {
    if (!planned_[static_cast<size_t>(first + r)]) continue;
    Replica& replica = *replicas_[static_cast<size_t>(first + r)];
    replica.Complete(begin, end, (t1 - t0) + replica.cost().network_s);
  }
  NoteCompletions();
  for (int r = 0; r < dp; ++r) replicas_[static_cast<size_t>(first + r)]->Publish();
}

void Run::RunOne(int index, double begin) {
  Replica& replica = *replicas_[static_cast<size_t>(index)];
  ReplicaDevices& devices = devices_[static_cast<size_t>(index)];
  const double block_bytes =
      static_cast<double>(config_.blocks.block_size) * static_cast<double>(config_.kv_bytes_per_token);
  replica.Publish();
  const BatchPlan& plan = replica.plan();
  const IterationTimes times = Times(replica.cost(), replica.planned_tokens(), devices);
  const double t0 = sg::Engine::get_clock();
  devices.HostTransfer(static_cast<double>(plan.swap_out_blocks) * block_bytes,
                       static_cast<double>(plan.swap_in_blocks) * block_bytes);
  const double t1 = sg::Engine::get_clock();
  devices.Compute(times.compute_s, replica.cost().hbm_bytes);
  const double t2 = sg::Engine::get_clock();
  devices.AllReduce(times.ring_bytes);
  const double end = sg::Engine::get_clock();
  // An arrival at this very instant sees the load the iteration started with (as it does
  // when iterations run ahead).
  DrainArrivalsAt(end);
  replica.Complete(begin, end, (t1 - t0) + times.latency_s + (end - t2));
  NoteCompletions();
  replica.Publish();
}

void Run::RunIterations(int index, double start) {
  Replica& replica = *replicas_[static_cast<size_t>(index)];
  ReplicaDevices& devices = devices_[static_cast<size_t>(index)];
  auto has_transfer = [&] {
    return replica.plan().swap_out_blocks > 0 || replica.plan().swap_in_blocks > 0;
  };
  // Under disaggregation KV transfers cross the replicas' links at any time: nothing runs ahead.
  if (!config_.coalesce || config_.max_concurrency > 0 || !devices.exclusive() || has_transfer() ||
      config_.prefill_replicas > 0) {
    RunOne(index, start);
    progress_.Update(result_.arrivals, result_.stats.iterations, sg::Engine::get_clock());
    return;
  }

  // Run ahead: every iteration ending before the next input (an arrival, or a request its
  // front end has ready) cannot be interrupted. The iteration during which the next input comes
  // completes only after it is sent, as iteration by iteration: the front end serves requests
  // and tokens in time order. With inline arrivals the worker sends what arrived by that
  // iteration's end itself, completes it, takes what its front end has ready and goes on;
  // otherwise that iteration runs on its own once the run is executed.
  double horizon = NextInput(index);
  double t = start;
  double compute_s = 0;
  double hbm_bytes = 0;
  double ring_bytes = 0;
  int64_t count = 0;
  bool transfer_pending = false;
  bool input_pending = false;
  while (true) {
    const IterationTimes times = Times(replica.cost(), replica.planned_tokens(), devices);
    const double end = t + times.compute_s + times.ring_s;
    const bool at_input = end >= horizon;
    if (at_input && !inline_arrivals_) {
      input_pending = true;
      break;
    }
    const bool last = count + 1 >= config_.max_run_iterations;
    // The load a router sees during the iteration in flight when the run is executed.
    if (last) replica.Publish();
    compute_s += times.compute_s;
    hbm_bytes += replica.cost().hbm_bytes;
    ring_bytes += times.ring_bytes;
    if (at_input) SendArrivalsUntil(end);
    replica.Complete(t, end, times.latency_s + times.ring_s);
    ++count;
    t = end;
    if (at_input) {
      if (!error_.ok()) break;
      TakeInbound(index, t);
      horizon = NextInput(index);
    }
    if (last || !replica.HasWork() || !replica.Plan(t)) break;
    if (has_transfer()) {
      transfer_pending = true;
      break;
    }
  }
  devices.Compute(compute_s, hbm_bytes);
  devices.AllReduce(ring_bytes);
  DrainArrivalsAt(sg::Engine::get_clock());
  replica.Publish();
  if (transfer_pending || input_pending) RunOne(index, t);
  progress_.Update(result_.arrivals, result_.stats.iterations, sg::Engine::get_clock());
}

}  // namespace

absl::StatusOr<SimulationResult> RunSimulation(const EngineConfig& config, const GpuSpec& gpu,
                                               const IterationCostModel& cost_model,
                                               RequestSource& source, IterationSink* sink) {
  static bool engine_started = false;
  if (engine_started) {
    return absl::FailedPreconditionError(
        "SimGrid allows one simulation per process; run each simulation in its own process");
  }
  engine_started = true;
  // SimGrid reads its own options from argv: ours never reach it, its logging stays quiet and
  // the ptask model is selected.
  char arg0[] = "infergrid";
  char arg1[] = "--log=root.thres:critical";
  char arg2[] = "--cfg=host/model:ptask_L07";
  // Under AddressSanitizer actors run on system threads: ASan cannot follow SimGrid's own
  // stack switching (Debian's SimGrid is not built with ASan annotations) and would report
  // false positives. The thread factory gives the same simulation, only slower.
  char arg3[] = "--cfg=contexts/factory:thread";
  char* argv[] = {arg0, arg1, arg2, kAddressSanitizer ? arg3 : nullptr, nullptr};
  int argc = kAddressSanitizer ? 4 : 3;
  // SimGrid installs a SIGINT handler of its own (it lists its actors and exits 1); the process
  // keeps the one it had (the command's: remove the run's temporaries, say so, exit 130).
  struct sigaction interrupt_handler = {};
  sigaction(SIGINT, nullptr, &interrupt_handler);
  sg::Engine engine(&argc, argv);
  sigaction(SIGINT, &interrupt_handler, nullptr);

  absl::StatusOr<std::vector<ReplicaDevices>> devices = BuildPlatform(gpu, config.layout);
  if (!devices.ok()) return devices.status();
  sg::Host* host = (*devices)[0].host();
  auto run = std::make_unique<Run>(config, cost_model, source, sink);
  if (absl::Status s = run->Setup(*std::move(devices)); !s.ok()) return s;

  Run* r = run.get();
  sg::Actor::create("arrivals", host, [r] { r->Arrivals(); });
  for (int i = 0; i < config.layout.num_replicas; ++i) {
    if (config.attention_data_parallel > 1) {
      sg::Actor::create(absl::StrCat("replica", i), host, [r, i] { r->GroupWorker(i); });
    } else {
      sg::Actor::create(absl::StrCat("replica", i), host, [r, i] { r->Worker(i); });
    }
  }
  const auto wall_start = std::chrono::steady_clock::now();
  try {
    engine.run();
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("SimGrid: ", e.what()));
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  r->FinishProgress();
  if (!r->error().ok()) return r->error();

  SimulationResult result = std::move(r->result());
  // The run lasts from the first arrival (time 0) to its last response: the front end hands a
  // request its last tokens after the engine's last step (its CPU queues), so the engine's clock
  // alone would end the run early and overstate its throughput.
  result.duration_s = sg::Engine::get_clock();
  result.wall_s = wall;
  int64_t finished = 0;
  for (const RequestRecord& record : result.log.records()) {
    finished += record.outcome == RequestOutcome::kFinished;
    result.duration_s = std::max({result.duration_s, record.finish_s, record.last_token_s});
  }
  result.events = result.arrivals + result.stats.iterations + finished;
  result.activities = r->activities();
  result.cost_model_calls = r->cost_model_calls();
  return result;
}

}  // namespace infergrid
