// A request as the simulator consumes it: plain data, not an actor. Every trace reader and
// synthetic generator yields these, in arrival order, through RequestSource.
#ifndef INFERGRID_TRACES_REQUEST_H_
#define INFERGRID_TRACES_REQUEST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace infergrid {

struct Request {
  int64_t id = 0;  // 0-based position in the source
  double arrival_s = 0;  // seconds from the run's origin (the first arrival is 0
      // unless the source says otherwise); never absolute time
  int32_t input_tokens = 0;  // prompt length
  int32_t output_tokens = 0;  // tokens to generate (>= 1 for a served request)
  std::vector<uint64_t> prefix_block_hashes;  // Mooncake hash_ids: one per 512-token block
  int32_t priority = 0;
  std::string session;  // tenant / session id where the trace has one
  std::string model;  // the model that served it, where the trace says (BurstGPT)
  std::string log_type;  // BurstGPT "Log Type": "Conversation log" or "API log"
  int32_t tokens_per_hash = 512;  // tokens one prefix hash names (Mooncake's 512; synthetic
      // shared prefixes: traces/shared_prefix.h)
};

// A stream of requests in non-decreasing arrival order. Next() returns false at the end and an
// error (naming file:line) for a bad row. Sources read lazily: a week-long trace is never held
// in memory whole.
class RequestSource {
 public:
  virtual ~RequestSource() = default;
  virtual absl::StatusOr<bool> Next(Request* request) = 0;
};

// A source over requests already in memory (tests, resampled workloads).
class VectorRequestSource final : public RequestSource {
 public:
  explicit VectorRequestSource(std::vector<Request> requests) : requests_(std::move(requests)) {}
  absl::StatusOr<bool> Next(Request* request) override {
    if (next_ >= requests_.size()) return false;
    *request = requests_[next_++];
    return true;
  }

 private:
  std::vector<Request> requests_;
  size_t next_ = 0;
};

}  // namespace infergrid

#endif  // INFERGRID_TRACES_REQUEST_H_
