#include "traces/trace_transforms.h"

#include <cmath>
#include <deque>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "traces/field_parse.h"

namespace infergrid {
namespace {

class ScaledSource final : public RequestSource {
 public:
  ScaledSource(std::unique_ptr<RequestSource> inner, double factor) : inner_(std::move(inner)), factor_(factor) {}
  absl::StatusOr<bool> Next(Request* request) override {
    absl::StatusOr<bool> more = inner_->Next(request);
    if (!more.ok() || !*more) return more;
    request->arrival_s *= factor_;
    request->id = next_id_++;
    return true;
  }

 private:
  std::unique_ptr<RequestSource> inner_;
  double factor_;
  int64_t next_id_ = 0;
};

class ArrivalReplacingSource final : public RequestSource {
 public:
  ArrivalReplacingSource(std::unique_ptr<RequestSource> inner, std::unique_ptr<ArrivalProcess> arrivals)
      : inner_(std::move(inner)), arrivals_(std::move(arrivals)) {}
  absl::StatusOr<bool> Next(Request* request) override {
    absl::StatusOr<bool> more = inner_->Next(request);
    if (!more.ok() || !*more) return more;
    absl::StatusOr<double> t = arrivals_->Next();
    if (!t.ok()) return t.status();
    request->arrival_s = *t;
    request->id = next_id_++;
    return true;
  }

 private:
  std::unique_ptr<RequestSource> inner_;
  std::unique_ptr<ArrivalProcess> arrivals_;
  int64_t next_id_ = 0;
};

// Buffers a probe of the stream to measure its rate, then replays the probe and the rest.
class RateSource final : public RequestSource {
 public:
  RateSource(std::unique_ptr<RequestSource> inner, double rate, int64_t probe)
      : inner_(std::move(inner)), rate_(rate), probe_(probe) {}

  absl::StatusOr<bool> Next(Request* request) override {
    if (!probed_) {
      if (absl::Status s = Probe(); !s.ok()) return s;
    }
    if (!buffer_.empty()) {
      *request = std::move(buffer_.front());
      buffer_.pop_front();
    } else {
      absl::StatusOr<bool> more = inner_->Next(request);
      if (!more.ok() || !*more) return more;
    }
    request->arrival_s = constant_rate_ ? static_cast<double>(next_id_) / rate_ : request->arrival_s * factor_;
    request->id = next_id_++;
    return true;
  }

 private:
  absl::Status Probe() {
    probed_ = true;
    Request r;
    while (static_cast<int64_t>(buffer_.size()) < probe_) {
      absl::StatusOr<bool> more = inner_->Next(&r);
      if (!more.ok()) return more.status();
      if (!*more) break;
      buffer_.push_back(r);
    }
    if (buffer_.size() < 2) {
      constant_rate_ = true;
      return absl::OkStatus();
    }
    const double span = buffer_.back().arrival_s - buffer_.front().arrival_s;
    if (!(span > 0)) {
      constant_rate_ = true;  // all arrivals equal: a length-only table
      return absl::OkStatus();
    }
    const double observed = static_cast<double>(buffer_.size() - 1) / span;
    factor_ = observed / rate_;
    return absl::OkStatus();
  }

  std::unique_ptr<RequestSource> inner_;
  double rate_;
  int64_t probe_;
  bool probed_ = false;
  bool constant_rate_ = false;
  double factor_ = 1;
  std::deque<Request> buffer_;
  int64_t next_id_ = 0;
};

class LimitedSource final : public RequestSource {
 public:
  LimitedSource(std::unique_ptr<RequestSource> inner, int64_t limit) : inner_(std::move(inner)), limit_(limit) {}
  absl::StatusOr<bool> Next(Request* request) override {
    if (served_ >= limit_) return false;
    absl::StatusOr<bool> more = inner_->Next(request);
    if (!more.ok() || !*more) return more;
    request->id = served_++;
    return true;
  }

 private:
  std::unique_ptr<RequestSource> inner_;
  int64_t limit_;
  int64_t served_ = 0;
};

// Stops at the first arrival past kMaxTimestampS (or not finite), naming it and `cause`.
class BoundedSource final : public RequestSource {
 public:
  BoundedSource(std::unique_ptr<RequestSource> inner, std::string cause)
      : inner_(std::move(inner)), cause_(std::move(cause)) {}
  absl::StatusOr<bool> Next(Request* request) override {
    absl::StatusOr<bool> more = inner_->Next(request);
    if (!more.ok() || !*more) return more;
    if (!(std::abs(request->arrival_s) <= kMaxTimestampS)) {
      return absl::InvalidArgumentError(
          absl::StrCat("request ", request->id, " arrives at ", request->arrival_s,
                       " s, beyond 2^32 s (136 years), where seconds as doubles no longer resolve a microsecond",
                       cause_.empty() ? "" : absl::StrCat(" (", cause_, ")")));
    }
    return true;
  }

 private:
  std::unique_ptr<RequestSource> inner_;
  std::string cause_;
};

}  // namespace

std::unique_ptr<RequestSource> BoundArrivals(std::unique_ptr<RequestSource> inner, std::string cause) {
  return std::make_unique<BoundedSource>(std::move(inner), std::move(cause));
}

absl::StatusOr<std::unique_ptr<RequestSource>> ScaleTime(std::unique_ptr<RequestSource> inner, double factor) {
  if (!(factor > 0) || !std::isfinite(factor)) {
    return absl::InvalidArgumentError(absl::StrCat("time scale factor must be > 0, got ", factor));
  }
  return std::unique_ptr<RequestSource>(new ScaledSource(std::move(inner), factor));
}

absl::StatusOr<std::unique_ptr<RequestSource>> ScaleToRate(std::unique_ptr<RequestSource> inner, double rate_per_s,
                                                           int64_t probe_requests) {
  if (!(rate_per_s > 0) || !std::isfinite(rate_per_s)) {
    return absl::InvalidArgumentError(absl::StrCat("target rate must be > 0 per s, got ", rate_per_s));
  }
  if (probe_requests < 2) {
    return absl::InvalidArgumentError(absl::StrCat("rate probe needs >= 2 requests, got ", probe_requests));
  }
  return std::unique_ptr<RequestSource>(new RateSource(std::move(inner), rate_per_s, probe_requests));
}

std::unique_ptr<RequestSource> ReplaceArrivals(std::unique_ptr<RequestSource> inner,
                                               std::unique_ptr<ArrivalProcess> arrivals) {
  return std::unique_ptr<RequestSource>(new ArrivalReplacingSource(std::move(inner), std::move(arrivals)));
}

absl::StatusOr<std::unique_ptr<RequestSource>> LimitRequests(std::unique_ptr<RequestSource> inner,
                                                             int64_t max_requests) {
  if (max_requests < 0) {
    return absl::InvalidArgumentError(absl::StrCat("max requests must be >= 0, got ", max_requests));
  }
  return std::unique_ptr<RequestSource>(new LimitedSource(std::move(inner), max_requests));
}

}  // namespace infergrid
