// sim/core/engine/simulation.h: whole runs with the linear test cost model (each in a forked
// child): priced iterations, running ahead and inline arrivals against iteration by iteration,
// fleet run-ahead against runs cut at every arrival and against one replica alone, its clock,
// cost stride, tensor parallelism, disaggregation and KV transfers, swaps, the front end, noise.

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/serving_helpers.h"

namespace infergrid {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ---------------------------------------------------------------- whole runs (one engine per child)

EngineConfig TestConfig() {
  EngineConfig config;
  config.scheduler = SchedulerKind::kVllm;
  config.limits = {.max_num_seqs = 64, .max_num_batched_tokens = 4096};
  config.blocks = {.num_gpu_blocks = 2000, .block_size = 16, .watermark = 0.01};
  config.max_model_len = 4096;
  config.num_layers = 32;
  config.hidden_size = 4096;
  config.kv_bytes_per_token = 131072;
  return config;
}

Request OneRequest(double arrival_s, int32_t prompt, int32_t output) {
  Request r;
  r.arrival_s = arrival_s;
  r.input_tokens = prompt;
  r.output_tokens = output;
  return r;
}

std::vector<Request> Requests(int n, double gap_s, int32_t prompt, int32_t output) {
  std::vector<Request> requests;
  for (int i = 0; i < n; ++i) {
    Request r;
    r.id = i;
    r.arrival_s = i * gap_s;
    r.input_tokens = prompt + (i % 5) * 7;
    r.output_tokens = output + (i % 3) * 5;
    requests.push_back(r);
  }
  return requests;
}

// Runs and prints every request record and a few aggregates, one line each.
std::string RunAndDescribe(const EngineConfig& config, const std::vector<Request>& requests,
                           const std::string& gpu_name = "h100-sxm") {
  const GpuSpec gpu = *ResolveGpu(gpu_name);
  LinearCostModel cost;
  VectorRequestSource source(requests);
  RecordingSink sink;
  absl::StatusOr<SimulationResult> result = RunSimulation(config, gpu, cost, source, &sink);
  if (!result.ok()) return absl::StrCat("error: ", result.status().message());
  std::string out =
      absl::StrCat("iterations ", result->stats.iterations, " preemptions ", result->stats.preemptions, " swap_out ",
                   result->stats.swap_out_blocks, " duration ", absl::StrFormat("%.12f", result->duration_s),
                   " activities ", result->activities, "\n");
  for (const RequestRecord& r : result->log.records()) {
    absl::StrAppendFormat(&out, "%d %d %.12f %.12f %.12f %d\n", r.replica, static_cast<int>(r.outcome), r.scheduled_s,
                          r.first_token_s, r.finish_s, r.preemptions);
  }
  for (const RequestRecord& r : result->log.records()) {
    if (r.kv_transfer_s >= 0) absl::StrAppendFormat(&out, "transfer %d %.12f\n", r.replica, r.kv_transfer_s);
  }
  if (!sink.records.empty()) {
    const IterationRecord& first = sink.records.front();
    absl::StrAppendFormat(&out, "first_iteration %.12f %.12f %.12f\n", first.start_s, first.end_s,
                          first.communication_s);
  }
  return out;
}

TEST(Engine, OneRequestTakesThePricedIterations) {
  const std::string out = InChild([] { return RunAndDescribe(TestConfig(), {OneRequest(2.5, 100, 4)}); });
  const std::vector<std::string> lines = absl::StrSplit(out, '\n');
  ASSERT_GE(lines.size(), 3u) << out;
  EXPECT_THAT(lines[0], HasSubstr("iterations 4 "));
  // Prefill of 100 tokens, then decodes at contexts 100, 101, 102.
  const double prefill = LinearCostModel::Seconds(100, 0);
  double finish = 2.5 + prefill;
  for (int c = 100; c < 103; ++c) finish += LinearCostModel::Seconds(1, c);
  double scheduled, first, end;
  int replica, outcome, preemptions;
  ASSERT_EQ(
      std::sscanf(lines[1].c_str(), "%d %d %lf %lf %lf %d", &replica, &outcome, &scheduled, &first, &end, &preemptions),
      6)
      << out;
  EXPECT_DOUBLE_EQ(scheduled, 2.5);
  EXPECT_NEAR(first, 2.5 + prefill, 1e-12);
  EXPECT_NEAR(end, finish, 1e-12);
}

// Both descriptions hold the same requests at the same times (1 ns).
void ExpectSameTimes(const std::string& a_text, const std::string& b_text) {
  ASSERT_THAT(a_text, HasSubstr("iterations")) << a_text;
  const std::vector<std::string> a = absl::StrSplit(a_text, '\n');
  const std::vector<std::string> b = absl::StrSplit(b_text, '\n');
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 1; i + 1 < a.size(); ++i) {
    double x[5], y[5];
    int n1 = std::sscanf(a[i].c_str(), "%lf %lf %lf %lf %lf", &x[0], &x[1], &x[2], &x[3], &x[4]);
    int n2 = std::sscanf(b[i].c_str(), "%lf %lf %lf %lf %lf", &y[0], &y[1], &y[2], &y[3], &y[4]);
    ASSERT_EQ(n1, n2);
    for (int k = 0; k < n1; ++k) EXPECT_NEAR(x[k], y[k], 1e-9) << "line " << i << ": " << a[i] << " vs " << b[i];
  }
}

TEST(Engine, RunningAheadGivesTheSameTimesAsIterationByIteration) {
  const std::vector<Request> requests = Requests(60, 0.031, 300, 40);
  EngineConfig config = TestConfig();
  const std::string ahead = InChild([&] { return RunAndDescribe(config, requests); });
  config.coalesce = false;
  const std::string single = InChild([&] { return RunAndDescribe(config, requests); });
  ExpectSameTimes(ahead, single);
  // A load-aware router sees the same loads either way, so it routes the same.
  config = TestConfig();
  config.layout.num_replicas = 3;
  config.router = RouterKind::kLeastKv;
  const std::vector<Request> busy = Requests(150, 0.004, 300, 40);
  const std::string routed_ahead = InChild([&] { return RunAndDescribe(config, busy); });
  config.coalesce = false;
  const std::string routed_single = InChild([&] { return RunAndDescribe(config, busy); });
  ExpectSameTimes(routed_ahead, routed_single);
}

// With one replica a worker running ahead sends the requests arriving meanwhile itself (inline
// arrivals) and goes on without the other actors: the same times as iteration by iteration,
// with a front end between the client and the engine and a schedule-ahead engine too.
TEST(Engine, InlineArrivalsGiveTheSameTimesAsIterationByIteration) {
  const std::vector<Request> requests = Requests(120, 0.011, 300, 40);
  for (const int variant : {0, 1, 2}) {
    SCOPED_TRACE(variant);
    EngineConfig config = TestConfig();
    if (variant != 1)
      config.front_end.processes = {{.name = "api", .request_s = 2e-3, .prompt_token_s = 1e-6, .output_token_s = 1e-4}};
    if (variant != 0) {
      config.execution = ExecutionPolicy{};
      config.execution->schedules_ahead = true;
    }
    const std::string ahead = InChild([&] { return RunAndDescribe(config, requests); });
    config.coalesce = false;
    const std::string single = InChild([&] { return RunAndDescribe(config, requests); });
    ExpectSameTimes(ahead, single);
  }
}

// The SimGrid activities a description (RunAndDescribe) counts.
int64_t Activities(const std::string& text) {
  const size_t at = text.find(" activities ");
  return at == std::string::npos ? -1 : std::strtoll(text.c_str() + at + 12, nullptr, 10);
}

// Fleet run-ahead (issue 47): under round-robin each replica runs ahead to its own next arrival,
// through the other replicas' arrivals: the same times as cutting every replica's run at every
// arrival, with a front end and a schedule-ahead engine too.
TEST(Engine, FleetRunAheadGivesTheSameTimesAsCuttingAtEveryArrival) {
  const std::vector<Request> requests = Requests(200, 0.003, 300, 40);
  for (const int variant : {0, 1, 2}) {
    SCOPED_TRACE(variant);
    EngineConfig config = TestConfig();
    config.layout.num_replicas = 4;
    if (variant == 1)
      config.front_end.processes = {{.name = "api", .request_s = 2e-3, .prompt_token_s = 1e-6, .output_token_s = 1e-4}};
    if (variant == 2) {
      config.execution = ExecutionPolicy{};
      config.execution->schedules_ahead = true;
    }
    const std::string cut = InChild([&] { return RunAndDescribe(config, requests); });
    config.fleet_run_ahead = true;
    const std::string fleet = InChild([&] { return RunAndDescribe(config, requests); });
    ExpectSameTimes(cut, fleet);
    // Fewer runs, each through the other replicas' arrivals.
    EXPECT_LT(Activities(fleet), Activities(cut)) << fleet << cut;
  }
}

// The request lines of a description (RunAndDescribe) served by `replica`, without the replica.
std::vector<std::string> RequestLinesOf(const std::string& text, int replica) {
  std::vector<std::string> lines;
  const std::vector<std::string> all = absl::StrSplit(text, '\n');
  for (size_t i = 1; i < all.size(); ++i) {
    int r = -1;
    char rest[256] = {};
    if (std::sscanf(all[i].c_str(), "%d %255[^\n]", &r, rest) == 2 && r == replica) lines.push_back(rest);
  }
  return lines;
}

// Under round-robin with fleet run-ahead a replica advances on its own between its arrivals:
// what it serves does not depend on how many replicas run beside it. Replica k of 4 gives the
// requests it was sent the times one replica alone gives them (1 ns).
TEST(Engine, UnderFleetRunAheadAReplicaServesAsIfAlone) {
  const std::vector<Request> requests = Requests(160, 0.002, 300, 40);
  EngineConfig config = TestConfig();
  config.layout.num_replicas = 4;
  config.fleet_run_ahead = true;
  const std::string fleet = InChild([&] { return RunAndDescribe(config, requests); });
  ASSERT_THAT(fleet, HasSubstr("iterations")) << fleet;
  for (int k = 0; k < 4; ++k) {
    SCOPED_TRACE(k);
    std::vector<Request> own;
    for (size_t i = static_cast<size_t>(k); i < requests.size(); i += 4) own.push_back(requests[i]);
    EngineConfig alone = TestConfig();
    const std::string single = InChild([&] { return RunAndDescribe(alone, own); });
    const std::vector<std::string> a = RequestLinesOf(fleet, k);
    const std::vector<std::string> b = RequestLinesOf(single, 0);
    ASSERT_EQ(a.size(), own.size());
    ASSERT_EQ(b.size(), own.size());
    for (size_t i = 0; i < a.size(); ++i) {
      double x[5], y[5];
      ASSERT_EQ(std::sscanf(a[i].c_str(), "%lf %lf %lf %lf %lf", &x[0], &x[1], &x[2], &x[3], &x[4]), 5) << a[i];
      ASSERT_EQ(std::sscanf(b[i].c_str(), "%lf %lf %lf %lf %lf", &y[0], &y[1], &y[2], &y[3], &y[4]), 5) << b[i];
      for (int f = 0; f < 5; ++f) EXPECT_NEAR(x[f], y[f], 1e-9) << a[i] << " vs " << b[i];
    }
  }
}

// The fleet's run-ahead clock (run_ahead_clock.h) wakes each waiter at its own time: in time
// order, ties in the order they came, one that comes for an earlier time while the keeper
// sleeps to a later one at its own time, and a time already past at once.
TEST(Engine, RunAheadClockWakesEachWaiterAtItsTime) {
  const std::string woken = InChild([] {
    int argc = 2;
    char arg0[] = "test";
    char arg1[] = "--log=root.thres:critical";
    char* argv[] = {arg0, arg1, nullptr};
    simgrid::s4u::Engine engine(&argc, argv);
    simgrid::s4u::NetZone* zone = simgrid::s4u::create_full_zone("zone");
    simgrid::s4u::Host* host = zone->create_host("host", 1e9);
    zone->seal();
    RunAheadClock clock;
    std::string out;
    const auto waiter = [&](const std::string& name, double start, double until) {
      simgrid::s4u::Actor::create(name, host, [&, name, start, until] {
        if (start > 0) simgrid::s4u::this_actor::sleep_for(start);
        clock.WaitUntil(until, simgrid::s4u::Semaphore::create(0));
        absl::StrAppend(&out, name, "@", simgrid::s4u::Engine::get_clock(), " ");
      });
    };
    clock.Start(host);
    waiter("late", 0, 5);
    waiter("first-at-3", 0, 3);
    waiter("earlier", 1, 2);  // comes at 1 while the keeper sleeps to 3
    waiter("second-at-3", 0.5, 3);
    waiter("past", 1.5, 1);
    engine.run();
    return absl::StrCat(out, "timed waits ", clock.activities());
  });
  EXPECT_EQ(woken, "past@1.5 earlier@2 first-at-3@3 second-at-3@3 late@5 timed waits 4");
}

// Load-aware routers read every replica's load at each arrival: fleet run-ahead leaves them on
// the horizon of the next arrival anywhere, and their replicas wait on the fleet's clock instead
// of executing each run as a parallel task: every routing decision the same, the same times to
// 1 ns.
TEST(Engine, UnderFleetRunAheadLoadAwareRoutersRouteTheSame) {
  const std::vector<Request> requests = Requests(150, 0.004, 300, 40);
  for (const RouterKind router : {RouterKind::kLeastOutstanding, RouterKind::kLeastKv}) {
    EngineConfig config = TestConfig();
    config.layout.num_replicas = 3;
    config.router = router;
    const std::string cut = InChild([&] { return RunAndDescribe(config, requests); });
    config.fleet_run_ahead = true;
    const std::string fleet = InChild([&] { return RunAndDescribe(config, requests); });
    ExpectSameTimes(cut, fleet);
  }
}

// A schedule-ahead engine (vLLM V1 async scheduling, SGLang's and TensorRT-LLM's overlap
// schedulers) forms the next batch when the running one starts. B arrives during A's first
// decode step: it misses the batch formed then (A's second decode) and is prefilled one
// iteration later than a synchronous engine would; an arrival at an idle engine runs at once.
TEST(Engine, ScheduleAheadEnginesAdmitAnArrivalOneIterationLater) {
  const std::vector<Request> requests = {OneRequest(0, 100, 50), OneRequest(2.5e-3, 100, 5), OneRequest(10, 100, 5)};
  const auto scheduled = [&](bool ahead) {
    EngineConfig config = TestConfig();
    config.execution = ExecutionPolicy{};
    config.execution->schedules_ahead = ahead;
    const std::string out = InChild([&] { return RunAndDescribe(config, requests); });
    const std::vector<std::string> lines = absl::StrSplit(out, '\n');
    std::vector<double> times;
    for (size_t i = 1; i <= 3 && i < lines.size(); ++i) {
      double s = 0, first = 0, end = 0;
      int replica = 0, outcome = 0, preemptions = 0;
      if (std::sscanf(lines[i].c_str(), "%d %d %lf %lf %lf %d", &replica, &outcome, &s, &first, &end, &preemptions) ==
          6) {
        times.push_back(s);
      }
    }
    return times;
  };
  const std::vector<double> sync = scheduled(false);
  const std::vector<double> ahead = scheduled(true);
  ASSERT_EQ(sync.size(), 3u);
  ASSERT_EQ(ahead.size(), 3u);
  const double prefill = LinearCostModel::Seconds(100, 0);
  const double first_decode = LinearCostModel::Seconds(1, 100);
  EXPECT_NEAR(sync[1], prefill + first_decode, 1e-12);
  EXPECT_NEAR(ahead[1], prefill + first_decode + LinearCostModel::Seconds(1, 101), 1e-12);
  EXPECT_DOUBLE_EQ(ahead[0], 0);
  EXPECT_DOUBLE_EQ(ahead[2], 10);
  EXPECT_DOUBLE_EQ(sync[2], 10);
}

TEST(Engine, CostStrideInterpolatesALinearModelExactly) {
  // The test model is linear in the contexts, so interpolating decode runs changes nothing.
  const std::vector<Request> requests = Requests(40, 0.05, 200, 60);
  EngineConfig config = TestConfig();
  const std::string exact = InChild([&] { return RunAndDescribe(config, requests); });
  config.cost_stride = 16;
  const std::string strided = InChild([&] { return RunAndDescribe(config, requests); });
  ExpectSameTimes(exact, strided);
}

TEST(Engine, SameInputsSameResults) {
  const std::vector<Request> requests = Requests(80, 0.02, 500, 30);
  EngineConfig config = TestConfig();
  config.layout.num_replicas = 2;
  config.router = RouterKind::kLeastOutstanding;
  const std::string first = InChild([&] { return RunAndDescribe(config, requests); });
  const std::string second = InChild([&] { return RunAndDescribe(config, requests); });
  EXPECT_THAT(first, HasSubstr("iterations"));
  EXPECT_EQ(first, second);
}

TEST(Engine, TensorParallelAddsAllReducesOverNvlink) {
  EngineConfig config = TestConfig();
  config.layout.tensor_parallel = 2;
  config.allreduce_latency_s = 7e-6;
  const std::string out = InChild([&] { return RunAndDescribe(config, {OneRequest(0, 1000, 2)}); });
  // Prefill of 1,000 tokens: 2 x 32 all-reduces of 1000 x 4096 x 2 B; a ring of two sends half
  // of each message both ways at 450 GB/s, plus 64 x 7 us latency.
  const double ring_bytes = 2.0 * 32 * 2.0 * 1 / 2 * 1000 * 4096 * 2;
  const double communication = 64 * 7e-6 + ring_bytes / 450e9;
  const std::string expected_end = absl::StrFormat("first_iteration %.12f %.12f %.12f", 0.0,
                                                   LinearCostModel::Seconds(1000, 0) + communication, communication);
  EXPECT_THAT(out, HasSubstr(expected_end)) << out;
}

// Sixteen-way TP across four GB200 trays of one NVL72 rack: the ring stays on NVLink at
// 900 GB/s per direction. HGX H100 cannot hold it (its NVLink domain is one 8-GPU board).
TEST(Engine, SixteenWayTensorParallelOnGb200StaysOnNvlink) {
  EngineConfig config = TestConfig();
  config.layout = {.num_replicas = 1, .tensor_parallel = 16, .gpus_per_node = 4, .nvlink_domain_gpus = 72};
  config.allreduce_latency_s = 7e-6;
  const std::string out = InChild([&] { return RunAndDescribe(config, {OneRequest(0, 1000, 2)}, "gb200"); });
  // Each GPU sends 2 x 15/16 of each 1000 x 4096 x 2 B message, 2 x 32 all-reduces.
  const double ring_bytes = 2.0 * 32 * 2.0 * 15 / 16 * 1000 * 4096 * 2;
  const double communication = 64 * 7e-6 + ring_bytes / 900e9;
  EXPECT_THAT(out, HasSubstr(absl::StrFormat("first_iteration %.12f %.12f %.12f", 0.0,
                                             LinearCostModel::Seconds(1000, 0) + communication, communication)))
      << out;
  config.layout = {.num_replicas = 1, .tensor_parallel = 16, .gpus_per_node = 8, .nvlink_domain_gpus = 8};
  const std::string h100 = InChild([&] { return RunAndDescribe(config, {OneRequest(0, 1000, 2)}); });
  EXPECT_THAT(h100, HasSubstr("--tensor-parallel-size=16 does not fit an NVLink domain of 8 GPUs"));
}

// The KV transfers of the disaggregation's tests, read back from RunAndDescribe's output.
std::vector<double> TransferTimes(const std::string& out) {
  std::vector<double> times;
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    int replica = 0;
    double seconds = 0;
    if (std::sscanf(std::string(line).c_str(), "transfer %d %lf", &replica, &seconds) == 2) times.push_back(seconds);
  }
  return times;
}

// One prefill and one decode replica on one H100 node: the prefill ends, the prompt's KV
// (1,000 x 131,072 B) crosses NVLink at 450 GB/s each way, the first token reaches the client
// when it has arrived, and the decode replica makes the other two.
TEST(Engine, DisaggregatedPrefillHandsItsKvToADecodeReplica) {
  EngineConfig config = TestConfig();
  config.layout.num_replicas = 2;
  config.prefill_replicas = 1;
  const std::string out = InChild([&] { return RunAndDescribe(config, {OneRequest(0, 1000, 3)}); });
  const std::vector<std::string> lines = absl::StrSplit(out, '\n');
  ASSERT_GE(lines.size(), 3u) << out;
  int replica = 0, outcome = 0, preemptions = 0;
  double scheduled = 0, first = 0, finish = 0;
  ASSERT_EQ(std::sscanf(lines[1].c_str(), "%d %d %lf %lf %lf %d", &replica, &outcome, &scheduled, &first, &finish,
                        &preemptions),
            6)
      << out;
  const double transfer = 1000.0 * 131072 / (ResolveGpu("h100-sxm")->nvlink_bytes_per_s() / 2);
  const double prefill = LinearCostModel::Seconds(1000, 0);
  EXPECT_EQ(replica, 1);
  EXPECT_EQ(outcome, 1);
  EXPECT_NEAR(first, prefill + transfer, 1e-9);
  EXPECT_NEAR(finish, prefill + transfer + LinearCostModel::Seconds(1, 1000) + LinearCostModel::Seconds(1, 1001), 1e-9);
  ASSERT_EQ(TransferTimes(out).size(), 1u) << out;
  EXPECT_NEAR(TransferTimes(out)[0], transfer, 1e-9);
  // Three iterations: the prefill, then two decode steps for tokens 2 and 3.
  EXPECT_THAT(lines[0], HasSubstr("iterations 3 "));

  // Across nodes (one TP8 replica per node): over PCIe and the fabric, 50 GB/s per GPU.
  config.layout = {.num_replicas = 2, .tensor_parallel = 8, .gpus_per_node = 8};
  const std::string nodes = InChild([&] { return RunAndDescribe(config, {OneRequest(0, 1000, 3)}); });
  ASSERT_EQ(TransferTimes(nodes).size(), 1u) << nodes;
  EXPECT_NEAR(TransferTimes(nodes)[0], kFabricLatencyS + 1000.0 * 131072 / kNicBytesPerS, 1e-9);
  // A slower fabric (200 Gb/s per GPU, 20 us) and a fixed 1 ms per transfer.
  config.layout.fabric_bytes_per_s = 25e9;
  config.layout.fabric_latency_s = 20e-6;
  config.kv_transfer_latency_s = 1e-3;
  const std::string slow = InChild([&] { return RunAndDescribe(config, {OneRequest(0, 1000, 3)}); });
  ASSERT_EQ(TransferTimes(slow).size(), 1u) << slow;
  EXPECT_NEAR(TransferTimes(slow)[0], 1e-3 + 20e-6 + 1000.0 * 131072 / 25e9, 1e-9);
  // Inside one NVLink domain the fabric's latency does not apply: two TP4 replicas of one node.
  config.layout = {.num_replicas = 2, .tensor_parallel = 4, .gpus_per_node = 8, .fabric_latency_s = 1.0};
  config.kv_transfer_latency_s = 0;
  const std::string node = InChild([&] { return RunAndDescribe(config, {OneRequest(0, 1000, 3)}); });
  ASSERT_EQ(TransferTimes(node).size(), 1u) << node;
  EXPECT_LT(TransferTimes(node)[0], 1e-2);
}

// The decode router under --pd: a long request holds one decode replica's KV for about a
// second; two short ones arriving while it decodes go, with least-kv, both to the other decode
// replica (the one with the most free KV), and with round-robin the second of them back to the
// busy one.
TEST(Engine, DecodeRouterSendsKvToTheReplicaWithTheMostFreeBlocks) {
  const auto decode_replicas = [](RouterKind router) {
    EngineConfig config = TestConfig();
    config.layout.num_replicas = 3;
    config.prefill_replicas = 1;
    config.decode_router = router;
    const std::string out = InChild([&] {
      return RunAndDescribe(config, {OneRequest(0, 1000, 1000), OneRequest(0.1, 10, 2), OneRequest(0.3, 10, 2)});
    });
    std::vector<int> replicas;
    const std::vector<std::string> lines = absl::StrSplit(out, '\n');
    for (size_t i = 1; i < lines.size() && i <= 3; ++i) {
      int replica = -1;
      EXPECT_EQ(std::sscanf(lines[i].c_str(), "%d", &replica), 1) << out;
      replicas.push_back(replica);
    }
    EXPECT_EQ(replicas.size(), 3u) << out;
    return replicas;
  };
  const std::vector<int> kv = decode_replicas(RouterKind::kLeastKv);
  ASSERT_EQ(kv.size(), 3u);
  EXPECT_GE(kv[0], 1);  // decode replicas are 1 and 2
  EXPECT_NE(kv[1], kv[0]);
  EXPECT_EQ(kv[2], kv[1]);
  const std::vector<int> rr = decode_replicas(RouterKind::kRoundRobin);
  ASSERT_EQ(rr.size(), 3u);
  EXPECT_NE(rr[1], rr[0]);
  EXPECT_EQ(rr[2], rr[0]);
}

// Two prefill replicas finish at the same instant and both send to the one decode replica:
// the two transfers share its NVLink port and each takes twice as long.
TEST(Engine, KvTransfersSharingALinkShareItsBandwidth) {
  EngineConfig config = TestConfig();
  config.layout.num_replicas = 3;
  config.prefill_replicas = 2;
  const std::string out = InChild([&] {
    return RunAndDescribe(config, {OneRequest(0, 1000, 2), OneRequest(0, 1000, 2)});
  });
  const std::vector<double> times = TransferTimes(out);
  ASSERT_EQ(times.size(), 2u) << out;
  const double alone = 1000.0 * 131072 / (ResolveGpu("h100-sxm")->nvlink_bytes_per_s() / 2);
  EXPECT_NEAR(times[0], 2 * alone, 1e-9);
  EXPECT_NEAR(times[1], 2 * alone, 1e-9);
}

TEST(Engine, SwapPreemptionMovesKvOverPcie) {
  EngineConfig config = TestConfig();
  config.blocks = {.num_gpu_blocks = 40, .block_size = 16, .watermark = 0.01, .num_cpu_blocks = 400};
  config.limits.preemption = PreemptionMode::kSwap;
  config.max_model_len = 600;
  const std::string out = InChild([&] { return RunAndDescribe(config, Requests(6, 0.001, 150, 150)); });
  ASSERT_THAT(out, HasSubstr("iterations")) << out;
  int iterations = 0, preemptions = 0, swap_out = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "iterations %d preemptions %d swap_out %d", &iterations, &preemptions, &swap_out),
            3);
  EXPECT_GT(preemptions, 0);
  EXPECT_GT(swap_out, 0);
  // Every request finishes (outcome 1) despite the preemptions.
  const std::vector<std::string> lines = absl::StrSplit(out, '\n');
  for (size_t i = 1; i <= 6; ++i) EXPECT_THAT(lines[i], HasSubstr(" 1 ")) << lines[i];
}

TEST(Engine, OneEnginePerProcess) {
  const std::string out = InChild([] {
    EngineConfig config = TestConfig();
    const std::string first = RunAndDescribe(config, Requests(2, 0.1, 10, 2));
    return RunAndDescribe(config, Requests(2, 0.1, 10, 2));
  });
  EXPECT_THAT(out, HasSubstr("one simulation per process"));
}

TEST(Engine, BadArrivalOrderIsAnError) {
  std::vector<Request> requests = Requests(3, 1.0, 10, 2);
  requests[2].arrival_s = 0.5;
  const std::string out = InChild([&] { return RunAndDescribe(TestConfig(), requests); });
  EXPECT_THAT(out, HasSubstr("request 2: arrival time 0.5"));
}

// ---------------------------------------------------------------- serving front end, noise

// The records of a run as (scheduled, first token, finish) triples, in request order.
struct Times {
  double scheduled = 0, first = 0, finish = 0;
};

std::vector<Times> ParseTimes(const std::string& out) {
  std::vector<Times> times;
  const std::vector<std::string> lines = absl::StrSplit(out, '\n');
  for (size_t i = 1; i < lines.size(); ++i) {
    Times t;
    int replica = 0, outcome = 0, preemptions = 0;
    if (std::sscanf(lines[i].c_str(), "%d %d %lf %lf %lf %d", &replica, &outcome, &t.scheduled, &t.first, &t.finish,
                    &preemptions) == 6) {
      times.push_back(t);
    }
  }
  return times;
}

// A request at an idle engine: the front end's inbound cost before its prefill, the outbound
// cost of its first step after it.
TEST(Engine, FrontEndCostAppearsInTheFirstTokenAtLowLoad) {
  EngineConfig config = TestConfig();
  config.front_end.processes = {{.name = "api", .request_s = 3e-3, .prompt_token_s = 1e-6, .output_token_s = 2e-4}};
  const std::string out = InChild([&] { return RunAndDescribe(config, {OneRequest(1.0, 100, 4)}); });
  const std::vector<Times> t = ParseTimes(out);
  ASSERT_EQ(t.size(), 1u) << out;
  const double reaches_engine = 1.0 + 3e-3 + 100 * 1e-6;
  EXPECT_NEAR(t[0].scheduled, reaches_engine, 1e-9);
  EXPECT_NEAR(t[0].first, reaches_engine + LinearCostModel::Seconds(100, 0) + 2e-4, 1e-9);
  // Off: the engine sees the request when it is sent.
  const std::vector<Times> off =
      ParseTimes(InChild([&] { return RunAndDescribe(TestConfig(), {OneRequest(1.0, 100, 4)}); }));
  ASSERT_EQ(off.size(), 1u);
  EXPECT_NEAR(t[0].first - off[0].first, 3e-3 + 100 * 1e-6 + 2e-4, 1e-9);
}

// One Python process costing 10 ms a request serves at most 100 requests a second: below that
// the time to the first token stays flat; above it the queue in front of the engine grows with
// every request and so does the time to the first token.
TEST(Engine, ASingleProcessFrontEndSaturatesAtTheRateItsCostsImply) {
  EngineConfig config = TestConfig();
  config.front_end.processes = {{.name = "api", .request_s = 10e-3}};
  const auto ttfts = [&](double rate) {
    const std::vector<Request> requests = Requests(200, 1.0 / rate, 10, 2);
    const std::vector<Times> t = ParseTimes(InChild([&] { return RunAndDescribe(config, requests); }));
    std::vector<double> out;
    for (size_t i = 0; i < t.size(); ++i) out.push_back(t[i].first - requests[i].arrival_s);
    return out;
  };
  const std::vector<double> below = ttfts(80);
  const std::vector<double> above = ttfts(125);
  ASSERT_EQ(below.size(), 200u);
  ASSERT_EQ(above.size(), 200u);
  EXPECT_LT(below.back(), 0.013);
  EXPECT_LT(below.back() - below.front(), 1e-3);
  // 125 req/s against 100: each request waits 2 ms more than the one before.
  EXPECT_NEAR(above.back() - above.front(), 199 * (10e-3 - 8e-3), 2e-3);
  EXPECT_GT(above[150], above[50]);
}

// Identical requests in a closed loop start and finish together for the whole run without
// noise; the client's send jitter spreads them over iterations, as on hardware, and a
// chunked-prefill engine keeps them apart. The same seed gives the same times.
TEST(Engine, NoiseDesynchronisesAClosedLoopOfIdenticalRequestsAndIsSeeded) {
  std::vector<Request> requests;
  for (int i = 0; i < 96; ++i) requests.push_back(OneRequest(0, 200, 30));
  EngineConfig config = TestConfig();
  config.scheduler = SchedulerKind::kSarathi;  // decodes first, prompts chunked (vLLM V1)
  config.limits.max_num_batched_tokens = 4096;
  config.limits.chunk_size = 4096;
  config.max_concurrency = 8;
  const auto distinct_finishes = [](const std::string& out) {
    std::vector<double> finishes;
    for (const Times& t : ParseTimes(out)) finishes.push_back(std::round(t.finish * 1e9));
    std::sort(finishes.begin(), finishes.end());
    return std::unique(finishes.begin(), finishes.end()) - finishes.begin();
  };
  const std::string lockstep = InChild([&] { return RunAndDescribe(config, requests); });
  const auto together = distinct_finishes(lockstep);
  EXPECT_EQ(together, 96 / 8) << lockstep;
  config.noise = {.iteration_sigma = 0.01, .send_jitter_s = 1e-3, .seed = 7};
  const std::string noisy = InChild([&] { return RunAndDescribe(config, requests); });
  EXPECT_GE(2 * distinct_finishes(noisy), 3 * together) << noisy;
  EXPECT_EQ(InChild([&] { return RunAndDescribe(config, requests); }), noisy);
  config.noise.seed = 8;
  EXPECT_NE(InChild([&] { return RunAndDescribe(config, requests); }), noisy);
}

}  // namespace
}  // namespace infergrid
