#include "sim/app/output/fleet_csv.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "sim/app/output/buffered_file.h"
#include "sim/app/output/csv_append.h"
#include "sim/core/metrics/latency_stats.h"

namespace infergrid {
namespace {

// The request log's figures of each window.
struct RequestWindows {
  std::vector<int64_t> arrivals, completions;
  std::vector<double> in_flight_s;  // request-seconds in flight within the window
  std::vector<size_t> ttft_start;  // finished requests that arrived in window k: ttft[ttft_start[k] ..]
  std::vector<double> ttft;
};

class Windows {
 public:
  Windows(double window_s, size_t count, double duration_s)
      : window_s_(window_s), count_(count), duration_s_(duration_s) {}
  size_t Of(double t) const {
    const double k = std::floor(std::max(0.0, t) / window_s_);
    return k >= static_cast<double>(count_) ? count_ - 1 : static_cast<size_t>(k);
  }
  double Start(size_t k) const { return static_cast<double>(k) * window_s_; }
  double End(size_t k) const { return k + 1 == count_ ? std::max(duration_s_, Start(k)) : Start(k + 1); }
  size_t count() const { return count_; }

 private:
  double window_s_;
  size_t count_;
  double duration_s_;
};

// Adds the span [from, to) to the windows it overlaps: the partial ends directly, the windows
// between through `whole` (+1 at the first, -1 past the last, summed afterwards).
void AddSpan(const Windows& w, double from, double to, std::vector<double>& seconds, std::vector<int64_t>& whole) {
  if (to <= from) return;
  const size_t a = w.Of(from), b = w.Of(to);
  if (a == b) {
    seconds[a] += to - from;
    return;
  }
  seconds[a] += w.End(a) - from;
  seconds[b] += to - w.Start(b);
  ++whole[a + 1];
  --whole[b];
}

RequestWindows TallyRequests(const RequestLog& log, const Windows& w, double duration_s) {
  const size_t n = w.count();
  RequestWindows out{std::vector<int64_t>(n, 0),
                     std::vector<int64_t>(n, 0),
                     std::vector<double>(n, 0),
                     std::vector<size_t>(n + 1, 0),
                     {}};
  std::vector<int64_t> whole(n + 1, 0);
  for (const RequestRecord& r : log.records()) {
    const size_t k = w.Of(r.arrival_s);
    ++out.arrivals[k];
    const bool finished = r.outcome == RequestOutcome::kFinished;
    if (finished) {
      ++out.completions[w.Of(r.finish_s)];
      ++out.ttft_start[k + 1];
    }
    const double leaves = finished ? r.finish_s : r.outcome == RequestOutcome::kRejected ? r.arrival_s : duration_s;
    AddSpan(w, r.arrival_s, leaves, out.in_flight_s, whole);
  }
  int64_t covering = 0;
  for (size_t k = 0; k < n; ++k) {
    covering += whole[k];
    out.in_flight_s[k] += static_cast<double>(covering) * (w.End(k) - w.Start(k));
    out.ttft_start[k + 1] += out.ttft_start[k];
  }
  out.ttft.resize(out.ttft_start[n]);
  std::vector<size_t> next(out.ttft_start.begin(), out.ttft_start.end() - 1);
  for (const RequestRecord& r : log.records()) {
    if (r.outcome == RequestOutcome::kFinished) out.ttft[next[w.Of(r.arrival_s)]++] = r.first_token_s - r.arrival_s;
  }
  return out;
}

// A fraction or mean with 6 decimals, or an empty field when there is nothing to average.
void FixedOrEmpty(TextRow& row, bool present, double value, char separator = ',') {
  if (present) {
    row.Fixed(value, 6, separator);
  } else {
    row.Text("", separator);
  }
}

}  // namespace

size_t FleetSeries::WindowOf(double t) const { return static_cast<size_t>(std::floor(std::max(0.0, t) / window_s_)); }

void FleetSeries::OnIteration(const IterationRecord& r) {
  const size_t last = WindowOf(r.end_s);
  if (last >= windows_.size()) windows_.resize(last + 1);
  const double kv =
      r.kv_blocks_total > 0 ? static_cast<double>(r.kv_blocks_used) / static_cast<double>(r.kv_blocks_total) : 0;
  for (size_t k = WindowOf(r.start_s); k <= last; ++k) {
    const double from = std::max(r.start_s, static_cast<double>(k) * window_s_);
    const double to = std::min(r.end_s, static_cast<double>(k + 1) * window_s_);
    IterationWindow& window = windows_[k];
    window.kv_max = std::max(window.kv_max, kv);
    if (to <= from) continue;
    window.busy_s += to - from;
    window.kv_weighted_s += kv * (to - from);
  }
}

absl::Status FleetSeries::Write(const RequestLog& log, double duration_s, const std::string& path) const {
  const size_t count = std::max<size_t>(1, static_cast<size_t>(std::ceil(std::max(0.0, duration_s) / window_s_)));
  const Windows w(window_s_, count, duration_s);  // an iteration ending at duration_s adds no time past it
  RequestWindows requests = TallyRequests(log, w, duration_s);
  absl::StatusOr<BufferedFile> file = BufferedFile::Open(path, Compression::kNone);
  if (!file.ok()) return file.status();
  std::string& out = *file->buffer();
  out =
      "start_s,end_s,arrivals,completions,in_flight,busy_replicas,utilization,kv_fraction_mean,kv_fraction_max,"
      "ttft_p99_s\n";
  std::vector<double> ttft;
  for (size_t k = 0; k < w.count(); ++k) {
    const IterationWindow it = k < windows_.size() ? windows_[k] : IterationWindow{};
    const double length = w.End(k) - w.Start(k);
    const double busy = length > 0 ? it.busy_s / length : 0;
    ttft.assign(requests.ttft.begin() + static_cast<std::ptrdiff_t>(requests.ttft_start[k]),
                requests.ttft.begin() + static_cast<std::ptrdiff_t>(requests.ttft_start[k + 1]));
    std::sort(ttft.begin(), ttft.end());
    {  // the row is complete before the buffer may be flushed
      TextRow row(&out);
      row.Fixed(w.Start(k), 9);
      row.Fixed(w.End(k), 9);
      row.Int(requests.arrivals[k]);
      row.Int(requests.completions[k]);
      row.Fixed(length > 0 ? requests.in_flight_s[k] / length : 0, 6);
      row.Fixed(busy, 6);
      row.Fixed(replicas_ > 0 ? busy / replicas_ : 0, 6);
      FixedOrEmpty(row, it.busy_s > 0, it.busy_s > 0 ? it.kv_weighted_s / it.busy_s : 0);
      FixedOrEmpty(row, it.busy_s > 0, it.kv_max);
      if (ttft.empty()) {
        row.Text("", '\n');
      } else {
        row.Fixed(SortedQuantile(ttft, 0.99), 9, '\n');
      }
    }
    file->FlushIfFull();
  }
  return file->Close();
}

}  // namespace infergrid
