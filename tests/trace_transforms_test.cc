// traces/trace_transforms.h: a request source's arrivals scaled in time, to a rate, and cut to a
// count.

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "traces/request.h"
#include "traces/trace_reader.h"
#include "traces/trace_transforms.h"

namespace infergrid {
namespace {

std::unique_ptr<RequestSource> Arrivals(const std::vector<double>& times) {
  std::vector<Request> requests;
  for (double t : times) {
    Request r;
    r.id = static_cast<int64_t>(requests.size());
    r.arrival_s = t;
    r.input_tokens = r.output_tokens = 1;
    requests.push_back(r);
  }
  return std::make_unique<VectorRequestSource>(std::move(requests));
}

std::vector<double> Drain(RequestSource& source) {
  std::vector<double> times;
  Request r;
  while (true) {
    absl::StatusOr<bool> more = source.Next(&r);
    EXPECT_TRUE(more.ok()) << more.status();
    if (!more.ok() || !*more) break;
    EXPECT_EQ(r.id, static_cast<int64_t>(times.size()));
    times.push_back(r.arrival_s);
  }
  return times;
}

TEST(Transforms, ScaleTimeRateAndLimit) {
  auto scaled = ScaleTime(Arrivals({0, 1, 3}), 2.0);
  ASSERT_TRUE(scaled.ok());
  EXPECT_EQ(Drain(**scaled), (std::vector<double>{0, 2, 6}));
  // 5 requests over 2 s is 2 per s; to 8 per s the span becomes 0.5 s.
  auto rated = ScaleToRate(Arrivals({0, 0.5, 1, 1.5, 2}), 8.0, 3);
  ASSERT_TRUE(rated.ok());
  EXPECT_EQ(Drain(**rated), (std::vector<double>{0, 0.125, 0.25, 0.375, 0.5}));
  // A length-only table (all arrivals 0) is spread at the target rate.
  auto spread = ScaleToRate(Arrivals({0, 0, 0, 0}), 4.0);
  ASSERT_TRUE(spread.ok());
  EXPECT_EQ(Drain(**spread), (std::vector<double>{0, 0.25, 0.5, 0.75}));
  auto limited = LimitRequests(Arrivals({0, 1, 2, 3}), 2);
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(Drain(**limited), (std::vector<double>{0, 1}));
  EXPECT_FALSE(ScaleTime(Arrivals({0}), 0).ok());
  EXPECT_FALSE(ScaleToRate(Arrivals({0}), -1).ok());
  EXPECT_FALSE(LimitRequests(Arrivals({0}), -1).ok());
}

}  // namespace
}  // namespace infergrid
