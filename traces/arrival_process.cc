#include "traces/arrival_process.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/decimal_number.h"
#include "traces/random_streams.h"

namespace infergrid {
namespace {

constexpr absl::string_view kStream = "arrivals";

absl::Status CheckRate(double rate) {
  if (!(rate > 0) || !std::isfinite(rate)) {
    return absl::InvalidArgumentError(absl::StrCat("arrival rate must be > 0 per s, got ", rate));
  }
  return absl::OkStatus();
}

class GapProcess final : public ArrivalProcess {
 public:
  // shape 0: exponential gaps; shape < 0: constant gaps of 1 / rate (no draw).
  GapProcess(double rate, double shape, uint64_t seed) : rate_(rate), shape_(shape), random_(seed, kStream) {}
  absl::StatusOr<double> Next() override {
    if (!started_) {
      started_ = true;
      return now_;
    }
    const double gap = shape_ < 0    ? 1.0 / rate_
                       : shape_ == 0 ? random_.Exponential() / rate_
                                     : random_.Gamma(shape_) / (shape_ * rate_);
    now_ += gap;
    return now_;
  }

 private:
  double rate_;
  double shape_;
  RandomStream random_;
  bool started_ = false;
  double now_ = 0;
};

// Inverts the integrated rate: each arrival is one unit of Exp(1) mass further along.
class PiecewiseProcess final : public ArrivalProcess {
 public:
  PiecewiseProcess(std::vector<RateSegment> schedule, uint64_t seed)
      : schedule_(std::move(schedule)), random_(seed, kStream) {}
  absl::StatusOr<double> Next() override {
    double mass = random_.Exponential();
    while (true) {
      const RateSegment& seg = schedule_[segment_];
      const double left = seg.duration_s - offset_;
      if (seg.rate_per_s > 0 && mass <= left * seg.rate_per_s) {
        const double step = mass / seg.rate_per_s;
        offset_ += step;
        return start_ + offset_;
      }
      mass -= left * seg.rate_per_s;
      start_ += seg.duration_s;
      offset_ = 0;
      segment_ = (segment_ + 1) % schedule_.size();
    }
  }

 private:
  std::vector<RateSegment> schedule_;
  RandomStream random_;
  size_t segment_ = 0;
  double start_ = 0;  // start of the current segment
  double offset_ = 0;  // position within it
};

class ReplayProcess final : public ArrivalProcess {
 public:
  ReplayProcess(std::string path, TraceOptions options, double factor, double cycle_s)
      : path_(std::move(path)), options_(std::move(options)), factor_(factor), cycle_s_(cycle_s) {}
  absl::StatusOr<double> Next() override {
    while (true) {
      if (source_ == nullptr) {
        absl::StatusOr<std::unique_ptr<RequestSource>> s = OpenTrace(path_, options_);
        if (!s.ok()) return s.status();
        source_ = *std::move(s);
      }
      absl::StatusOr<bool> more = source_->Next(&request_);
      if (!more.ok()) return more.status();
      if (*more) return (offset_ + request_.arrival_s) * factor_;
      source_.reset();
      offset_ += cycle_s_;
    }
  }

 private:
  std::string path_;
  TraceOptions options_;
  double factor_;
  double cycle_s_;  // trace span + one mean gap, in the trace's own time
  double offset_ = 0;
  std::unique_ptr<RequestSource> source_;
  Request request_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ArrivalProcess>> MakePoissonArrivals(double rate_per_s, uint64_t seed) {
  if (absl::Status s = CheckRate(rate_per_s); !s.ok()) return s;
  return std::unique_ptr<ArrivalProcess>(new GapProcess(rate_per_s, 0, seed));
}

absl::StatusOr<std::unique_ptr<ArrivalProcess>> MakeConstantArrivals(double rate_per_s) {
  if (absl::Status s = CheckRate(rate_per_s); !s.ok()) return s;
  return std::unique_ptr<ArrivalProcess>(new GapProcess(rate_per_s, -1, 0));
}

absl::StatusOr<std::unique_ptr<ArrivalProcess>> MakeGammaArrivals(double rate_per_s, double cv, uint64_t seed) {
  if (absl::Status s = CheckRate(rate_per_s); !s.ok()) return s;
  if (!(cv > 0) || !std::isfinite(cv) || cv > 100) {
    return absl::InvalidArgumentError(absl::StrCat("gamma arrival cv must be in (0, 100], got ", cv));
  }
  // Gamma gaps with shape k have cv 1/sqrt(k).
  return std::unique_ptr<ArrivalProcess>(new GapProcess(rate_per_s, 1.0 / (cv * cv), seed));
}

absl::StatusOr<std::unique_ptr<ArrivalProcess>> MakePiecewiseArrivals(std::vector<RateSegment> schedule,
                                                                      uint64_t seed) {
  double mass = 0;
  for (const RateSegment& s : schedule) {
    if (!(s.duration_s > 0) || !std::isfinite(s.duration_s) || !(s.rate_per_s >= 0) || !std::isfinite(s.rate_per_s)) {
      return absl::InvalidArgumentError(absl::StrCat("rate schedule segment needs duration > 0 and rate >= 0, got ",
                                                     s.duration_s, " s at ", s.rate_per_s, " per s"));
    }
    mass += s.duration_s * s.rate_per_s;
  }
  if (!(mass > 0)) {
    return absl::InvalidArgumentError("rate schedule has no segment with a rate above 0");
  }
  return std::unique_ptr<ArrivalProcess>(new PiecewiseProcess(std::move(schedule), seed));
}

absl::StatusOr<std::vector<RateSegment>> ParseRateSchedule(absl::string_view text, double mean_rate_per_s) {
  if (mean_rate_per_s != 0) {
    if (absl::Status s = CheckRate(mean_rate_per_s); !s.ok()) return s;
  }
  std::vector<RateSegment> schedule;
  double duration = 0, mass = 0;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    const std::vector<absl::string_view> pair = absl::StrSplit(part, ':');
    RateSegment seg;
    if (pair.size() != 2 || !ParseDecimal(pair[0], &seg.duration_s) || !ParseDecimal(pair[1], &seg.rate_per_s) ||
        !(seg.duration_s > 0) || !(seg.rate_per_s >= 0) || !std::isfinite(seg.duration_s) ||
        !std::isfinite(seg.rate_per_s)) {
      return absl::InvalidArgumentError(
          absl::StrCat("rate schedule: expected DURATION_S:RELATIVE_RATE pairs separated by ',', got '", part, "'"));
    }
    duration += seg.duration_s;
    mass += seg.duration_s * seg.rate_per_s;
    schedule.push_back(seg);
  }
  if (!(mass > 0)) return absl::InvalidArgumentError("rate schedule: every rate is 0");
  if (mean_rate_per_s == 0) return schedule;  // the rates as written
  const double scale = mean_rate_per_s * duration / mass;
  for (RateSegment& seg : schedule) seg.rate_per_s *= scale;
  return schedule;
}

double MeanRate(const std::vector<RateSegment>& schedule) {
  double duration = 0, mass = 0;
  for (const RateSegment& seg : schedule) {
    duration += seg.duration_s;
    mass += seg.duration_s * seg.rate_per_s;
  }
  return duration > 0 ? mass / duration : 0;
}

absl::StatusOr<std::unique_ptr<ArrivalProcess>> MakeReplayArrivals(const std::string& path, const TraceOptions& options,
                                                                   double rate_per_s) {
  // First pass: the trace's own rate.
  absl::StatusOr<std::unique_ptr<RequestSource>> source = OpenTrace(path, options);
  if (!source.ok()) return source.status();
  Request r;
  int64_t n = 0;
  double last = 0;
  while (true) {
    absl::StatusOr<bool> more = (*source)->Next(&r);
    if (!more.ok()) return more.status();
    if (!*more) break;
    ++n;
    last = r.arrival_s;
  }
  if (n < 2 || !(last > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot replay inter-arrivals: the trace needs at least 2 distinct arrival times"));
  }
  const double mean_gap = last / static_cast<double>(n - 1);
  const double factor = rate_per_s > 0 ? (1.0 / mean_gap) / rate_per_s : 1.0;
  return std::unique_ptr<ArrivalProcess>(new ReplayProcess(path, options, factor, last + mean_gap));
}

}  // namespace infergrid
