#include "sim/core/engine/autoscaler.h"

#include <algorithm>
#include <limits>

namespace infergrid {

namespace sg = simgrid::s4u;

Autoscaler::Autoscaler(RunContext& ctx, const FrontEndQueues& front_ends)
    : ctx_(ctx),
      front_ends_(front_ends),
      config_(ctx.config.autoscale),
      window_(ctx.config.autoscale.scale_down_delay_s) {
  const size_t n = ctx.replicas.size();
  state_.assign(n, State::kOff);
  ready_s_.assign(n, 0);
  turned_on_.assign(n, -1);
  busy_s_.assign(n, 0);
  for (int rank = 0; rank < std::min(config_.min_replicas, static_cast<int>(n)); ++rank) {
    turned_on_[static_cast<size_t>(rank)] = turn_ons_++;
    SetState(rank, State::kRoutable, 0);
  }
  result_.peak_active = Count(State::kRoutable);
  ctx.sink.set_observer(this);
  ctx.next_control_s = config_.interval_s;
}

int Autoscaler::Count(State state) const { return static_cast<int>(std::count(state_.begin(), state_.end(), state)); }

void Autoscaler::Integrate(double now) {
  on_seconds_ += static_cast<double>(on_) * (now - last_s_);
  routable_seconds_ += static_cast<double>(routable_.size()) * (now - last_s_);
  last_s_ = now;
}

void Autoscaler::SetState(int rank, State state, double now) {
  Integrate(now);
  const size_t r = static_cast<size_t>(rank);
  on_ += (state != State::kOff) - (state_[r] != State::kOff);
  state_[r] = state;
  routable_.clear();
  routable_ranks_.clear();
  for (size_t i = 0; i < state_.size(); ++i) {
    if (state_[i] != State::kRoutable) continue;
    routable_.push_back(ctx_.replicas[i].get());
    routable_ranks_.push_back(static_cast<int>(i));
  }
  result_.peak_active = std::max(result_.peak_active, static_cast<int>(routable_.size()));
}

void Autoscaler::OnIteration(const IterationRecord& record) {
  busy_s_[static_cast<size_t>(record.replica)] += record.end_s - record.start_s;
}

int Autoscaler::Route(Router& router) {
  if (routable_.size() == 1) return routable_ranks_[0];
  return routable_ranks_[static_cast<size_t>(router.Route(routable_))];
}

void Autoscaler::NoteIdle(int rank, double now) {
  if (state_[static_cast<size_t>(rank)] == State::kDraining) {
    SetState(rank, State::kOff, now);
    ++result_.replicas_stopped;
  }
}

void Autoscaler::Run() {
  double next_decision = config_.interval_s;
  while (true) {
    double wake = next_decision;
    for (size_t i = 0; i < state_.size(); ++i) {
      if (state_[i] == State::kStarting) wake = std::min(wake, ready_s_[i]);
    }
    sg::this_actor::sleep_until(wake);
    const double now = sg::Engine::get_clock();
    for (size_t i = 0; i < state_.size(); ++i) {
      if (state_[i] == State::kStarting && ready_s_[i] <= now) SetState(static_cast<int>(i), State::kRoutable, now);
    }
    if (now >= next_decision) {
      Decide(now);
      next_decision += config_.interval_s;
      ctx_.next_control_s = next_decision;
    }
  }
}

double Autoscaler::Metric() const {
  double sum = 0;
  for (size_t k = 0; k < routable_ranks_.size(); ++k) {
    const size_t rank = static_cast<size_t>(routable_ranks_[k]);
    if (config_.target.metric == AutoscaleMetric::kUtilization) {
      sum += busy_s_[rank] / config_.interval_s;
    } else {
      sum += static_cast<double>(routable_[k]->LiveLoad().outstanding);
    }
  }
  return routable_.empty() ? 0 : sum / static_cast<double>(routable_.size());
}

void Autoscaler::Decide(double now) {
  const int active = static_cast<int>(routable_.size());
  const double metric = Metric();
  const int desired =
      DesiredReplicas(active, metric, config_.target.target, config_.min_replicas, static_cast<int>(state_.size()));
  std::fill(busy_s_.begin(), busy_s_.end(), 0.0);
  const int down_to = window_.Add(now, desired);
  const int provisioned = active + Count(State::kStarting);
  if (desired > provisioned) {
    ScaleUp(desired - provisioned, now);
  } else if (down_to < provisioned) {
    ScaleDown(provisioned - down_to, now);
  }
  result_.decisions.push_back({now, metric, desired, static_cast<int>(routable_.size()), on_});
}

void Autoscaler::ScaleUp(int count, double now) {
  int started = 0;
  for (size_t i = 0; i < state_.size() && started < count; ++i) {
    if (state_[i] != State::kOff) continue;
    turned_on_[i] = turn_ons_++;
    ready_s_[i] = now + config_.startup_s;
    SetState(static_cast<int>(i), State::kStarting, now);
    ++started;
  }
  if (started == 0) return;
  ++result_.scale_ups;
  result_.replicas_started += started;
}

void Autoscaler::ScaleDown(int count, double now) {
  int stopped = 0;
  for (; stopped < count; ++stopped) {
    // The replica turned on last: starting ones first (they were turned on after every routable
    // one still on), then routable ones, at least one of which stays.
    int newest = -1;
    for (size_t i = 0; i < state_.size(); ++i) {
      const bool candidate = state_[i] == State::kStarting || (state_[i] == State::kRoutable && routable_.size() > 1);
      if (candidate && (newest < 0 || turned_on_[i] > turned_on_[static_cast<size_t>(newest)])) {
        newest = static_cast<int>(i);
      }
    }
    if (newest < 0) break;
    const Replica& replica = *ctx_.replicas[static_cast<size_t>(newest)];
    const bool empty = !replica.HasWork() && front_ends_.Empty(newest);
    if (state_[static_cast<size_t>(newest)] == State::kStarting || empty) {
      SetState(newest, State::kOff, now);
      ++result_.replicas_stopped;
    } else {
      SetState(newest, State::kDraining, now);
    }
  }
  if (stopped > 0) ++result_.scale_downs;
}

AutoscaleResult Autoscaler::Finish(double end_s) {
  Integrate(std::max(end_s, last_s_));
  AutoscaleResult r = result_;
  const double gpus = static_cast<double>(ctx_.config.layout.tensor_parallel);
  r.gpu_seconds = on_seconds_ * gpus;
  r.fixed_gpu_seconds = static_cast<double>(state_.size()) * gpus * end_s;
  r.mean_active = end_s > 0 ? routable_seconds_ / end_s : static_cast<double>(routable_.size());
  r.startup_s = config_.startup_s;
  return r;
}

}  // namespace infergrid
