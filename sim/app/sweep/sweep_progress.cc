#include "sim/app/sweep/sweep_progress.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace infergrid::sweep {
namespace {

constexpr int kBarWidth = 24;
constexpr absl::Duration kLinePeriod = absl::Seconds(5);  // off a terminal

std::string Clock(absl::Duration d) {
  const int64_t s = absl::ToInt64Seconds(d);
  if (s >= 3600) return absl::StrFormat("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  return absl::StrFormat("%d:%02d", s / 60, s % 60);
}

}  // namespace

SweepProgress::SweepProgress(std::FILE* out, bool terminal, int total, int already_done)
    : out_(out), terminal_(terminal), total_(total), already_done_(already_done), start_(absl::Now()) {}

std::string SweepProgress::Line(int done, int failed, absl::Duration elapsed) const {
  std::string line;
  if (terminal_) {
    const int filled = total_ > 0 ? static_cast<int>(int64_t{kBarWidth} * done / total_) : kBarWidth;
    absl::StrAppend(&line, "[", std::string(filled, '#'), std::string(kBarWidth - filled, '-'), "] ");
  } else {
    line = "sweep: ";
  }
  absl::StrAppend(&line, done, "/", total_, " runs done");
  if (already_done_ > 0) absl::StrAppend(&line, " (", already_done_, " before)");
  absl::StrAppend(&line, ", ", failed, " failed, elapsed ", Clock(elapsed));
  const int ran = done - already_done_;
  if (ran > 0 && done < total_) {
    absl::StrAppend(&line, ", ETA ", Clock(elapsed / ran * (total_ - done)));
  }
  return line;
}

void SweepProgress::Update(int done, int failed) { Show(done, failed, false); }

void SweepProgress::Finish(int done, int failed) { Show(done, failed, true); }

void SweepProgress::Show(int done, int failed, bool final) {
  const absl::Time now = absl::Now();
  if (!terminal_ && !final && now - last_line_ < kLinePeriod) return;
  last_line_ = now;
  const std::string line = Line(done, failed, now - start_);
  if (terminal_) {
    std::fprintf(out_, "\r%s\033[K%s", line.c_str(), final ? "\n" : "");
  } else {
    std::fprintf(out_, "%s\n", line.c_str());
  }
  std::fflush(out_);
}

}  // namespace infergrid::sweep
