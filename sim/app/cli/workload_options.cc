#include "sim/app/cli/workload_options.h"

#include <unistd.h>

#include <cmath>
#include <memory>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "sim/app/cli/accounting_setup.h"
#include "sim/app/cli/command_line.h"
#include "sim/app/cli/number_flags.h"
#include "sim/app/cli/simulate_flags.h"
#include "sim/app/cli/trace_flags.h"
#include "traces/arrival_process.h"
#include "traces/length_distribution.h"

namespace infergrid::cli {
namespace {

// --input-len / --output-len as a length spec of traces/length_distribution.h: an integer N is
// fixed:N, or with --range-ratio r the integers floor(N(1-r))..ceil(N(1+r)), equally likely (vLLM's
// --random-range-ratio); any other value is a spec (uniform:LO:HI, lognormal:MU:SIGMA, ...).
absl::StatusOr<std::string> LengthSpecOfFlag(absl::string_view flag, const std::string& value, double range_ratio) {
  if (value.empty()) return std::string();
  int64_t n = 0;
  if (absl::SimpleAtoi(value, &n)) {
    if (n < 1 || n > (int64_t{1} << 24)) {
      return UsageError(absl::StrCat("--", flag, "=", value, ": a length must be in [1, 16777216] tokens"));
    }
    if (range_ratio == 0) return absl::StrCat("fixed:", n);
    const auto low = static_cast<int64_t>(std::floor(static_cast<double>(n) * (1 - range_ratio)));
    const auto high = static_cast<int64_t>(std::ceil(static_cast<double>(n) * (1 + range_ratio)));
    return absl::StrCat("uniform:", std::max<int64_t>(1, low), ":", high);
  }
  if (range_ratio != 0) {
    return UsageError(absl::StrCat("--range-ratio applies to an integer --", flag, ", not to '", value, "'"));
  }
  if (absl::StatusOr<std::unique_ptr<LengthMarginal>> m = ParseLengthMarginal(value); !m.ok()) {
    return UsageError(absl::StrCat("--", flag, "=", value, ": ", m.status().message(),
                                   " (expected N, fixed:N, uniform:LO:HI, lognormal:MU:SIGMA or zipf:S:MAX)"));
  }
  return value;
}

// The lengths of a synthetic workload: --input-len/--output-len (each replacing one of the
// preset's), or --lengths (pairs resampled from a table, both replaced).
absl::Status ReadSyntheticLengths(const FlagValues& flags, const SimulateFlags& f, SyntheticWorkloadSpec& spec) {
  if (absl::Status s = CheckDoubleRange("range-ratio", f.range_ratio, 0, 0.999999); !s.ok()) return s;
  if (f.range_ratio != 0 && f.input_len.empty() && f.output_len.empty()) {
    return UsageError("--range-ratio needs --input-len or --output-len (the lengths it spreads)");
  }
  absl::StatusOr<std::string> input = LengthSpecOfFlag("input-len", f.input_len, f.range_ratio);
  if (!input.ok()) return input.status();
  absl::StatusOr<std::string> output = LengthSpecOfFlag("output-len", f.output_len, f.range_ratio);
  if (!output.ok()) return output.status();
  spec.input_lengths = *input;
  spec.output_lengths = *output;
  spec.lengths_trace = f.lengths;
  if (!f.lengths.empty()) {
    if (!input->empty() || !output->empty()) {
      return UsageError("--lengths gives both lengths of each request; drop --input-len and --output-len");
    }
    if (access(f.lengths.c_str(), R_OK) != 0) {
      return absl::NotFoundError(absl::StrCat("--lengths=", f.lengths, ": cannot read the file"));
    }
  }
  const bool preset_unused = !f.lengths.empty() || (!input->empty() && !output->empty());
  if (preset_unused && flags.IsSet("workload")) {
    return UsageError(absl::StrCat("--workload=", f.workload_preset, " gives lengths that ",
                                   f.lengths.empty() ? "--input-len and --output-len" : "--lengths",
                                   " replace; give one or the other"));
  }
  return absl::OkStatus();
}

// --rate-schedule: a Poisson process whose rate follows the schedule ("piecewise"), for a
// synthetic workload or a length table; the process is the schedule's, so --arrival and --cv
// beside it are refused.
absl::StatusOr<std::string> ReadRateSchedule(const FlagValues& flags, const SimulateFlags& f, bool trace_has_times) {
  if (flags.IsSet("arrival") || f.cv != 1) {
    return UsageError(
        "--rate-schedule makes the arrivals (a Poisson process whose rate follows the schedule); drop --arrival "
        "and --cv");
  }
  if (trace_has_times) {
    return UsageError(
        "--rate-schedule makes arrivals for a synthetic workload or a length table; this --trace has its own "
        "times (--rate and --time-scale rescale them)");
  }
  if (absl::StatusOr<std::vector<RateSegment>> schedule = ParseRateSchedule(f.rate_schedule, 0); !schedule.ok()) {
    return UsageError(absl::StrCat("--rate-schedule=", f.rate_schedule, ": ", schedule.status().message()));
  }
  return std::string("piecewise");
}

// --arrival and --cv: --cv other than 1 without --arrival means gamma (cv 1 is Poisson's); --cv
// with another process is refused, as is either on a trace that has times of its own.
absl::StatusOr<std::string> ReadArrival(const FlagValues& flags, const SimulateFlags& f, bool trace_has_times) {
  const double cv = f.cv;
  if (!(cv > 0) || cv > 1e3) return UsageError(absl::StrCat("--cv=", cv, " is outside (0, 1000]"));
  if (!f.rate_schedule.empty()) return ReadRateSchedule(flags, f, trace_has_times);
  std::string arrival = f.arrival;
  if (cv != 1 && !flags.IsSet("arrival")) arrival = "gamma";
  if (arrival != "poisson" && arrival != "gamma" && arrival != "constant") {
    return UsageError(absl::StrCat("--arrival: expected poisson, gamma or constant, got '", arrival, "'"));
  }
  if (cv != 1 && arrival != "gamma") {
    return UsageError(absl::StrCat("--cv=", cv, " is the gamma process's burstiness; --arrival=", arrival,
                                   " has none (use --arrival=gamma, or leave --arrival out)"));
  }
  if (trace_has_times && (arrival != "poisson" || flags.IsSet("arrival"))) {
    return UsageError(absl::StrCat("--arrival", cv != 1 ? " and --cv" : "",
                                   " make arrivals for a synthetic workload or a length table; this --trace has "
                                   "its own times (--rate and --time-scale rescale them)"));
  }
  return arrival;
}

// The trace's format as its header shows it (the reader opens lazily: this reads one line).
absl::StatusOr<std::string> DetectTraceFormat(const std::string& path, const TraceOptions& options) {
  TraceReadStats stats;
  absl::StatusOr<std::unique_ptr<RequestSource>> source = OpenTrace(path, options, &stats);
  if (!source.ok()) return source.status();
  return stats.format;
}

// --trace and its rescaling; a length table (no times) is flagged for an arrival process.
absl::Status ReadTraceWorkload(const FlagValues& flags, const SimulateFlags& f, WorkloadSettings& w) {
  w.trace = TraceFlagGroup().Read(flags).trace;
  absl::StatusOr<TraceOptions> trace_options = ResolveTraceOptions(flags);
  if (!trace_options.ok()) return trace_options.status();
  w.trace_options = *trace_options;
  w.time_scale = f.time_scale;
  w.max_requests = f.max_requests;
  if (w.trace.empty()) {
    if (f.time_scale != 1) return UsageError("--time-scale applies to --trace; a synthetic workload takes --rate");
    return absl::OkStatus();
  }
  if (access(w.trace.c_str(), R_OK) != 0) {
    return absl::NotFoundError(absl::StrCat("--trace=", w.trace, ": cannot read the file"));
  }
  if (!f.input_len.empty() || !f.output_len.empty() || !f.lengths.empty() || f.range_ratio != 0) {
    return UsageError(
        "--input-len, --output-len, --range-ratio and --lengths make a synthetic workload; "
        "--trace brings its own lengths (a length table: --lengths=FILE resamples it)");
  }
  absl::StatusOr<std::string> format = DetectTraceFormat(w.trace, w.trace_options);
  if (!format.ok()) return format.status();
  w.trace_without_times = *format == "lengths";
  if (w.trace_without_times && f.time_scale != 1) {
    return UsageError(absl::StrCat("--time-scale: --trace=", w.trace, " has no times to scale (--rate sets the rate)"));
  }
  w.trace_rate = w.trace_without_times ? 0 : f.rate;
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadWorkloadOptions(const FlagValues& flags, WorkloadSettings& w) {
  const SimulateFlags f = SimulateFlagGroup().Read(flags);
  if (absl::Status s = CheckDoubleRange("rate", f.rate, 0, 1e9); !s.ok()) return s;
  if (!(f.time_scale > 0) || f.time_scale > 1e9) {
    return UsageError(absl::StrCat("--time-scale=", f.time_scale, " is outside (0, 1e9]"));
  }
  if (absl::Status s = CheckRange("max_requests", f.max_requests, 0, kMaxSimulatedRequests); !s.ok()) return s;
  if (absl::Status s = ReadTraceWorkload(flags, f, w); !s.ok()) return s;
  absl::StatusOr<std::string> arrival = ReadArrival(flags, f, !w.trace.empty() && !w.trace_without_times);
  if (!arrival.ok()) return arrival.status();
  w.synthetic.preset = f.workload_preset;
  w.synthetic.arrival = *arrival;
  w.synthetic.rate_per_s = f.rate > 0 ? f.rate : kDefaultSyntheticRate;
  if (*arrival == "piecewise") {  // without --rate, the schedule's rates as written
    w.synthetic.rate_schedule = f.rate_schedule;
    if (f.rate == 0) w.synthetic.rate_per_s = MeanRate(*ParseRateSchedule(f.rate_schedule, 0));
  }
  w.synthetic.cv = f.cv;
  w.synthetic.num_requests = f.max_requests > 0 ? f.max_requests : kDefaultSyntheticRequests;
  w.synthetic.seed = f.seed;
  if (!w.trace.empty()) return absl::OkStatus();
  if (absl::Status s = ReadSyntheticLengths(flags, f, w.synthetic); !s.ok()) return s;
  // Sources are lazy: opening one checks the preset, the lengths and the arrival parameters only.
  absl::StatusOr<std::unique_ptr<RequestSource>> probe = MakeSyntheticWorkload(w.synthetic);
  if (!probe.ok()) {
    if (!w.synthetic.lengths_trace.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--lengths: ", probe.status().message()));
    }
    return UsageError(absl::StrCat("--workload: ", probe.status().message()));
  }
  return absl::OkStatus();
}

}  // namespace infergrid::cli
