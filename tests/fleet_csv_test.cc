// sim/app/output/fleet_csv.cc: fleet.csv's windows from hand-made iterations and requests (an
// iteration and a request across a window end split between the windows, a rejected request
// arriving but never in flight, an unfinished one in flight to the end, the last window cut at
// the run's duration).
#include <string>

#include "gtest/gtest.h"
#include "sim/app/output/fleet_csv.h"
#include "tests/command_runner.h"
#include "tests/test_files.h"

namespace infergrid {
namespace {

IterationRecord Iteration(int replica, double start_s, double end_s, int64_t kv_used) {
  IterationRecord r;
  r.replica = replica;
  r.start_s = start_s;
  r.end_s = end_s;
  r.kv_blocks_used = kv_used;
  r.kv_blocks_total = 100;
  return r;
}

RequestRecord WindowRecord(double arrival_s, double first_token_s, double finish_s, RequestOutcome outcome) {
  RequestRecord r;
  r.arrival_s = arrival_s;
  r.first_token_s = first_token_s;
  r.finish_s = finish_s;
  r.outcome = outcome;
  return r;
}

TEST(FleetSeries, WindowsTakeIterationsAndRequestsWhereTheyFall) {
  FleetSeries series(10, 2);
  series.OnIteration(Iteration(0, 0, 4, 50));
  series.OnIteration(Iteration(1, 8, 12, 20));  // 2 s in each window
  RequestLog log;
  log.Add(WindowRecord(1, 2, 5, RequestOutcome::kFinished));
  log.Add(WindowRecord(3, -1, -1, RequestOutcome::kRejected));
  log.Add(WindowRecord(9, 11, 15, RequestOutcome::kFinished));  // in flight 1 s, then 5 s
  log.Add(WindowRecord(12, -1, -1, RequestOutcome::kPending));  // in flight to the end
  const std::string path = (testing::TestDir() / "fleet.csv").string();
  ASSERT_TRUE(series.Write(log, 15, path).ok());
  EXPECT_EQ(testing::ReadAll(path),
            "start_s,end_s,arrivals,completions,in_flight,busy_replicas,utilization,kv_fraction_mean,"
            "kv_fraction_max,ttft_p99_s\n"
            "0.000000000,10.000000000,3,1,0.500000,0.600000,0.300000,0.400000,0.500000,1.990000000\n"
            "10.000000000,15.000000000,1,1,1.600000,0.400000,0.200000,0.200000,0.200000,\n");
}

TEST(FleetSeries, AWindowWithoutIterationsOrFinishedArrivalsLeavesThoseFieldsEmpty) {
  FleetSeries series(1, 4);
  series.OnIteration(Iteration(3, 0, 0.5, 10));
  RequestLog log;
  log.Add(WindowRecord(0, 0.25, 0.5, RequestOutcome::kFinished));
  log.Add(WindowRecord(2.5, 2.75, 3, RequestOutcome::kFinished));
  const std::string path = (testing::TestDir() / "fleet.csv").string();
  ASSERT_TRUE(series.Write(log, 3, path).ok());
  EXPECT_EQ(testing::ReadAll(path),
            "start_s,end_s,arrivals,completions,in_flight,busy_replicas,utilization,kv_fraction_mean,"
            "kv_fraction_max,ttft_p99_s\n"
            "0.000000000,1.000000000,1,1,0.500000,0.500000,0.125000,0.100000,0.100000,0.250000000\n"
            "1.000000000,2.000000000,0,0,0.000000,0.000000,0.000000,,,\n"
            "2.000000000,3.000000000,1,1,0.500000,0.000000,0.000000,,,0.250000000\n");
}

}  // namespace
}  // namespace infergrid
