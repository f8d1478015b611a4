// Wrappers that rescale a RequestSource for `simulate`: stretch time by a factor, retime to a
// target mean rate, or stop after a number of requests. Each owns its inner source and keeps
// arrival order; ids are renumbered 0.. in output order.
#ifndef INFERGRID_TRACES_TRACE_TRANSFORMS_H_
#define INFERGRID_TRACES_TRACE_TRANSFORMS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "traces/arrival_process.h"
#include "traces/request.h"

namespace infergrid {

// Multiplies every arrival by `factor` (> 0): 2 makes the trace twice as long (half the rate).
absl::StatusOr<std::unique_ptr<RequestSource>> ScaleTime(std::unique_ptr<RequestSource> inner, double factor);

// Rescales arrivals so that the mean rate is `rate_per_s` (> 0). A stream cannot be read twice,
// so the factor comes from the first `probe_requests` requests, which are buffered: their rate
// (n - 1) / (t_last - t_first) is mapped to rate_per_s. A probe whose arrivals all coincide (a
// length-only table) is spread at a constant rate_per_s instead.
absl::StatusOr<std::unique_ptr<RequestSource>> ScaleToRate(std::unique_ptr<RequestSource> inner, double rate_per_s,
                                                           int64_t probe_requests = 100000);

// Keeps the inner source's requests in order (their lengths, hashes, sessions) and gives each
// the next time of `arrivals` instead of its own: a length table, whose arrivals are all 0,
// becomes a workload with an arrival process.
std::unique_ptr<RequestSource> ReplaceArrivals(std::unique_ptr<RequestSource> inner,
                                               std::unique_ptr<ArrivalProcess> arrivals);

// Yields the inner source's requests; an arrival beyond 2^32 s (kMaxTimestampS) or not finite
// is an InvalidArgument naming the request and `cause` (what set the arrivals: "--rate=1e-300").
std::unique_ptr<RequestSource> BoundArrivals(std::unique_ptr<RequestSource> inner, std::string cause);

// Yields at most `max_requests` (>= 0) requests.
absl::StatusOr<std::unique_ptr<RequestSource>> LimitRequests(std::unique_ptr<RequestSource> inner,
                                                             int64_t max_requests);

}  // namespace infergrid

#endif  // INFERGRID_TRACES_TRACE_TRANSFORMS_H_
