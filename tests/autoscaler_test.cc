// sim/core/engine/autoscaler.h and autoscale_policy.h: the policy's arithmetic (the target's
// text, HPA's rule, the scale-down window, the default start-up) and whole runs with the linear
// test cost model (each in a forked child): a replica takes requests only after its start-up,
// GPU-seconds are the integral of the replicas on, a scale-down waits its delay and a drained
// replica serves nothing sent after it stopped being routable.

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/core/engine/autoscale_policy.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::HasSubstr;

// ---------------------------------------------------------------- the policy, without SimGrid

TEST(AutoscalePolicy, ParsesTheMetricAndItsTarget) {
  absl::StatusOr<AutoscaleTarget> u = ParseAutoscaleTarget("utilization:0.6");
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->metric, AutoscaleMetric::kUtilization);
  EXPECT_DOUBLE_EQ(u->target, 0.6);
  absl::StatusOr<AutoscaleTarget> q = ParseAutoscaleTarget("queue:8");
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->metric, AutoscaleMetric::kQueue);
  EXPECT_DOUBLE_EQ(q->target, 8);
  for (const char* bad : {"utilization", "utilization:0", "utilization:1.5", "queue:-1", "ttfx:1", "queue:x", ""}) {
    EXPECT_FALSE(ParseAutoscaleTarget(bad).ok()) << bad;
  }
}

TEST(AutoscalePolicy, DesiredReplicasIsHpasRuleClamped) {
  EXPECT_EQ(DesiredReplicas(2, 0.9, 0.6, 1, 8), 3);  // ceil(2 x 0.9 / 0.6) = ceil(3.0)
  EXPECT_EQ(DesiredReplicas(2, 0.6, 0.6, 1, 8), 2);  // exactly on target: no change
  EXPECT_EQ(DesiredReplicas(3, 0.61, 0.6, 1, 8), 4);
  EXPECT_EQ(DesiredReplicas(4, 0.1, 0.6, 2, 8), 2);  // ceil(0.67) = 1, raised to the minimum
  EXPECT_EQ(DesiredReplicas(4, 5.0, 0.6, 1, 8), 8);  // 34, cut to the maximum
  EXPECT_EQ(DesiredReplicas(2, 20, 8, 1, 8), 5);  // queue: 40 requests at 8 a replica
}

TEST(AutoscalePolicy, ScaleDownFollowsTheHighestDesiredWithinTheDelay) {
  ScaleDownWindow window(60);
  EXPECT_EQ(window.Add(30, 4), 4);
  EXPECT_EQ(window.Add(60, 1), 4);
  EXPECT_EQ(window.Add(89, 1), 4);  // 30 is still within (29, 89]
  EXPECT_EQ(window.Add(90, 2), 2);  // 30 is not within (30, 90]
  EXPECT_EQ(window.Add(151, 1), 1);
}

TEST(AutoscalePolicy, DefaultStartupIsTheWeightsAtTwoGbPerSecondPlusTheEngineStart) {
  EXPECT_DOUBLE_EQ(DefaultReplicaStartup(16e9), 8 + 30);
  EXPECT_DOUBLE_EQ(DefaultReplicaStartup(0), kEngineStartS);
}

// ---------------------------------------------------------------- whole runs (one engine per child)

EngineConfig AutoscaledConfig(int replicas, AutoscaleMetric metric, double target) {
  EngineConfig config;
  config.scheduler = SchedulerKind::kVllm;
  config.limits = {.max_num_seqs = 64, .max_num_batched_tokens = 4096};
  config.blocks = {.num_gpu_blocks = 4000, .block_size = 16, .watermark = 0.01};
  config.max_model_len = 4096;
  config.kv_bytes_per_token = 131072;
  config.layout.num_replicas = replicas;
  config.autoscale.enabled = true;
  config.autoscale.target = {metric, target};
  return config;
}

// Requests every `gap_s` from `from_s` until `to_s`, each `output` tokens long.
void AddArrivals(std::vector<Request>& requests, double from_s, double to_s, double gap_s, int32_t output) {
  for (double t = from_s; t < to_s - 1e-12; t += gap_s) {
    Request r;
    r.id = static_cast<int64_t>(requests.size());
    r.arrival_s = t;
    r.input_tokens = 200;
    r.output_tokens = output;
    requests.push_back(r);
  }
}

// What a run did, as text a child can hand back: the autoscaler's figures, its decisions, each
// request (replica, arrival) and each replica's first and last iteration.
std::string RunAutoscaled(const EngineConfig& config, const std::vector<Request>& requests) {
  const GpuSpec gpu = *ResolveGpu("h100-sxm");
  LinearCostModel cost;
  VectorRequestSource source(requests);
  RecordingSink sink;
  absl::StatusOr<SimulationResult> result = RunSimulation(config, gpu, cost, source, &sink);
  if (!result.ok()) return absl::StrCat("error: ", result.status().message());
  if (!result->autoscale.has_value()) return "error: no autoscale result";
  const AutoscaleResult& a = *result->autoscale;
  std::string out = absl::StrFormat("autoscale %.12f %.12f %d %d %d %d %d %.12f %.12f %.12f\n", a.gpu_seconds,
                                    a.fixed_gpu_seconds, a.scale_ups, a.scale_downs, a.replicas_started,
                                    a.replicas_stopped, a.peak_active, a.mean_active, a.startup_s, result->duration_s);
  for (const AutoscaleDecision& d : a.decisions) {
    absl::StrAppendFormat(&out, "decision %.12f %.12f %d %d %d\n", d.time_s, d.metric, d.desired, d.routable, d.on);
  }
  for (const RequestRecord& r : result->log.records()) {
    absl::StrAppendFormat(&out, "request %d %.12f %.12f\n", r.replica, r.arrival_s, r.finish_s);
  }
  std::map<int, std::pair<double, double>> spans;
  for (const IterationRecord& it : sink.records) {
    auto [at, fresh] = spans.try_emplace(it.replica, it.start_s, it.end_s);
    if (!fresh) {
      at->second.first = std::min(at->second.first, it.start_s);
      at->second.second = std::max(at->second.second, it.end_s);
    }
  }
  for (const auto& [replica, span] : spans) {
    absl::StrAppendFormat(&out, "replica %d %.12f %.12f\n", replica, span.first, span.second);
  }
  if (sink.records.size() <= 5000) {
    for (const IterationRecord& it : sink.records) {
      absl::StrAppendFormat(&out, "iteration %d %.17g %.17g\n", it.replica, it.start_s, it.end_s);
    }
  }
  return out;
}

struct ScaledRun {
  double gpu_seconds = 0, fixed_gpu_seconds = 0, mean_active = 0, startup_s = 0, duration_s = 0;
  int scale_ups = 0, scale_downs = 0, started = 0, stopped = 0, peak = 0;
  std::vector<AutoscaleDecision> decisions;
  struct Sent {
    int replica;
    double arrival_s, finish_s;
  };
  std::vector<Sent> requests;
  std::map<int, std::pair<double, double>> spans;  // replica: first iteration's start, last's end
  std::vector<std::pair<double, double>> iterations;  // (start, end), every replica's
};

ScaledRun Parse(const std::string& text) {
  ScaledRun run;
  const std::vector<std::string> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  for (const std::string& line : lines) {
    AutoscaleDecision d;
    ScaledRun::Sent s;
    int replica = 0;
    double first = 0, last = 0;
    if (std::sscanf(line.c_str(), "autoscale %lf %lf %d %d %d %d %d %lf %lf %lf", &run.gpu_seconds,
                    &run.fixed_gpu_seconds, &run.scale_ups, &run.scale_downs, &run.started, &run.stopped, &run.peak,
                    &run.mean_active, &run.startup_s, &run.duration_s) == 10) {
      continue;
    }
    if (std::sscanf(line.c_str(), "decision %lf %lf %d %d %d", &d.time_s, &d.metric, &d.desired, &d.routable, &d.on) ==
        5) {
      run.decisions.push_back(d);
    } else if (std::sscanf(line.c_str(), "request %d %lf %lf", &s.replica, &s.arrival_s, &s.finish_s) == 3) {
      run.requests.push_back(s);
    } else if (std::sscanf(line.c_str(), "replica %d %lf %lf", &replica, &first, &last) == 3) {
      run.spans[replica] = {first, last};
    } else if (std::sscanf(line.c_str(), "iteration %d %lf %lf", &replica, &first, &last) == 3) {
      run.iterations.emplace_back(first, last);
    }
  }
  return run;
}

// Low traffic for 20 s, then a burst one replica cannot hold. The decision at 20 s sees the
// queue and turns the other three replicas on; they take requests only from 20 s + start-up,
// and the GPU-seconds are one replica for the run and three from 20 s on (no scale-down within
// the delay).
TEST(Autoscaler, AddsAReplicaOnlyAfterItsStartupAndCountsItsGpuSeconds) {
  EngineConfig config = AutoscaledConfig(4, AutoscaleMetric::kQueue, 4);
  config.autoscale.interval_s = 10;
  config.autoscale.startup_s = 25;
  config.autoscale.scale_down_delay_s = 1000;
  config.layout.tensor_parallel = 2;
  std::vector<Request> requests;
  AddArrivals(requests, 0, 19.5, 1, 20);
  AddArrivals(requests, 19.5, 60, 0.01, 400);
  const std::string text = InChild([&] { return RunAutoscaled(config, requests); });
  const ScaledRun run = Parse(text);
  ASSERT_FALSE(run.decisions.empty()) << text;
  EXPECT_EQ(run.decisions[0].desired, 1) << text;  // 10 s: the low traffic
  ASSERT_GE(run.decisions.size(), 2u) << text;
  EXPECT_DOUBLE_EQ(run.decisions[1].time_s, 20);
  EXPECT_EQ(run.decisions[1].desired, 4) << text;
  EXPECT_EQ(run.decisions[1].routable, 1);  // the new ones are starting
  EXPECT_EQ(run.decisions[1].on, 4);
  EXPECT_EQ(run.scale_ups, 1);
  EXPECT_EQ(run.started, 3);
  EXPECT_EQ(run.peak, 4);
  const double ready_s = 20 + 25;
  for (const ScaledRun::Sent& s : run.requests) {
    if (s.arrival_s < ready_s) {
      EXPECT_EQ(s.replica, 0) << "sent at " << s.arrival_s;
    }
  }
  for (int replica = 1; replica < 4; ++replica) {
    ASSERT_TRUE(run.spans.count(replica)) << replica << "\n" << text;
    EXPECT_GE(run.spans.at(replica).first, ready_s) << replica;
  }
  // GPU-seconds: TP 2, replica 0 over the whole run, replicas 1-3 from the decision at 20 s.
  const double end = run.duration_s;
  EXPECT_NEAR(run.gpu_seconds, 2 * (end + 3 * (end - 20)), 1e-9);
  EXPECT_NEAR(run.fixed_gpu_seconds, 2 * 4 * end, 1e-9);
  EXPECT_NEAR(run.mean_active, (end + 3 * (end - ready_s)) / end, 1e-9);
}

// Utilization is the engine-busy fraction of the interval: the durations of the iterations that
// ended in it, over its length (one routable replica here, under the target: nothing scales).
TEST(Autoscaler, UtilizationIsTheBusyTimeOfTheIterationsEndedInTheInterval) {
  EngineConfig config = AutoscaledConfig(2, AutoscaleMetric::kUtilization, 0.9);
  config.autoscale.interval_s = 7;
  std::vector<Request> requests;
  AddArrivals(requests, 0.25, 40, 0.5, 30);
  const std::string text = InChild([&] { return RunAutoscaled(config, requests); });
  const ScaledRun run = Parse(text);
  ASSERT_GE(run.decisions.size(), 5u) << text;
  ASSERT_FALSE(run.iterations.empty()) << text;
  EXPECT_EQ(run.scale_ups, 0);
  for (const AutoscaleDecision& d : run.decisions) {
    double busy = 0;
    for (const auto& [start, end] : run.iterations) {
      if (end > d.time_s - 7 && end <= d.time_s) busy += end - start;
    }
    EXPECT_NEAR(d.metric, busy / 7, 1e-9) << d.time_s;
    EXPECT_GT(d.metric, 0.05) << d.time_s;  // a request every 0.5 s keeps it partly busy
    EXPECT_EQ(d.desired, 1);
  }
  EXPECT_NEAR(run.gpu_seconds, run.duration_s, 1e-9);  // one GPU the whole run
}

// A burst that needs two replicas, then a trickle: the fleet shrinks only at the first decision
// that comes a whole delay after the last one wanting two, and the replica drained then serves
// nothing sent after it, finishing what it had before turning off.
TEST(Autoscaler, ScaleDownWaitsTheDelayAndTheDrainedReplicaServesNothingNew) {
  EngineConfig config = AutoscaledConfig(2, AutoscaleMetric::kQueue, 2);
  config.autoscale.interval_s = 10;
  config.autoscale.startup_s = 5;
  config.autoscale.scale_down_delay_s = 50;
  std::vector<Request> requests;
  AddArrivals(requests, 0, 30, 0.01, 300);
  AddArrivals(requests, 30, 200, 2, 10);
  const std::string text = InChild([&] { return RunAutoscaled(config, requests); });
  const ScaledRun run = Parse(text);
  ASSERT_FALSE(run.decisions.empty()) << text;
  EXPECT_EQ(run.scale_ups, 1) << text;
  EXPECT_EQ(run.scale_downs, 1) << text;
  EXPECT_EQ(run.stopped, 1) << text;
  // The decision that drained replica 1, and the last one before it that wanted two.
  size_t down = 0;
  while (down < run.decisions.size() &&
         !(run.decisions[down].routable == 1 && down > 0 && run.decisions[down - 1].routable == 2)) {
    ++down;
  }
  ASSERT_LT(down, run.decisions.size()) << text;
  const double down_s = run.decisions[down].time_s;
  double last_wanting_two = -1;
  for (size_t i = 0; i < down; ++i) {
    if (run.decisions[i].desired >= 2) last_wanting_two = run.decisions[i].time_s;
  }
  ASSERT_GT(last_wanting_two, 0) << text;
  EXPECT_GE(down_s - last_wanting_two, 50) << text;  // every decision of the delay wanted one
  EXPECT_LT(down_s - last_wanting_two, 50 + 10) << text;  // and it shrank at the first chance
  for (const ScaledRun::Sent& s : run.requests) {
    if (s.arrival_s >= down_s) {
      EXPECT_EQ(s.replica, 0) << "sent at " << s.arrival_s;
    }
  }
  ASSERT_TRUE(run.spans.count(1)) << text;
  double last_finish_on_1 = 0;
  for (const ScaledRun::Sent& s : run.requests) {
    if (s.replica == 1) last_finish_on_1 = std::max(last_finish_on_1, s.finish_s);
  }
  EXPECT_NEAR(run.spans.at(1).second, last_finish_on_1, 1e-9);
  // Replica 1 was on from the decision that wanted it to the end of its last iteration (it was
  // busy at the scale-down, or off at once when it was idle then).
  double up_s = -1;
  for (const AutoscaleDecision& d : run.decisions) {
    if (d.on == 2 && up_s < 0) up_s = d.time_s;
  }
  const double off_s = std::max(down_s, run.spans.at(1).second);
  EXPECT_NEAR(run.gpu_seconds, run.duration_s + (off_s - up_s), 1e-9) << text;
}

// Pinned to the whole fleet (--min-replicas = --num-replicas) the autoscaler changes nothing:
// the same replica and times for every request as without it (to SimGrid's 1 ns: its decisions
// cut the replicas' runs ahead), and the GPU-seconds of the fixed fleet.
TEST(Autoscaler, PinnedToTheWholeFleetServesAsWithoutIt) {
  std::vector<Request> requests;
  AddArrivals(requests, 0, 20, 0.005, 100);
  for (const RouterKind router : {RouterKind::kRoundRobin, RouterKind::kLeastOutstanding}) {
    SCOPED_TRACE(static_cast<int>(router));
    EngineConfig config = AutoscaledConfig(3, AutoscaleMetric::kUtilization, 0.5);
    config.router = router;
    config.autoscale.min_replicas = 3;
    config.autoscale.interval_s = 0.7;
    const ScaledRun scaled = Parse(InChild([&] { return RunAutoscaled(config, requests); }));
    config.autoscale.enabled = false;
    const std::string plain_text = InChild([&] {
      const GpuSpec gpu = *ResolveGpu("h100-sxm");
      LinearCostModel cost;
      VectorRequestSource source(requests);
      absl::StatusOr<SimulationResult> result = RunSimulation(config, gpu, cost, source, nullptr);
      if (!result.ok()) return absl::StrCat("error: ", result.status().message());
      std::string out;
      for (const RequestRecord& r : result->log.records()) {
        absl::StrAppendFormat(&out, "request %d %.12f %.12f\n", r.replica, r.arrival_s, r.finish_s);
      }
      return out;
    });
    const ScaledRun plain = Parse(plain_text);
    ASSERT_EQ(scaled.requests.size(), requests.size());
    ASSERT_EQ(plain.requests.size(), requests.size()) << plain_text;
    for (size_t i = 0; i < requests.size(); ++i) {
      EXPECT_EQ(scaled.requests[i].replica, plain.requests[i].replica) << i;
      EXPECT_NEAR(scaled.requests[i].finish_s, plain.requests[i].finish_s, 1e-9) << i;
    }
    EXPECT_EQ(scaled.scale_ups + scaled.scale_downs, 0);
    EXPECT_NEAR(scaled.gpu_seconds, scaled.fixed_gpu_seconds, 1e-9);
    EXPECT_NEAR(scaled.mean_active, 3, 1e-12);
  }
}

// The autoscaler refuses what it does not model, naming it.
TEST(Autoscaler, RefusesDisaggregationAndTooFewReplicas) {
  EngineConfig config = AutoscaledConfig(2, AutoscaleMetric::kQueue, 2);
  config.autoscale.min_replicas = 3;
  std::vector<Request> requests;
  AddArrivals(requests, 0, 1, 0.1, 10);
  EXPECT_THAT(InChild([&] { return RunAutoscaled(config, requests); }), HasSubstr("autoscaling needs 1 to 2"));
}

}  // namespace
}  // namespace infergrid
